package lifecycle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/gosrc"
	"github.com/ask-confirm/ask-confirm/internal/mdtable"
	"github.com/ask-confirm/ask-confirm/store"
)

// docs/scripting.md's table of --json statuses names every status a
// Result can carry, with the exit code that goes with it, and no other.
func TestDocsStatusTable(t *testing.T) {
	rows, err := mdtable.Rows("../docs/scripting.md", "### JSON status values")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		StatusPending:  ExitPending.String(),
		StatusStale:    ExitPending.String(),
		StatusHeadless: ExitHeadless.String(),
		StatusError:    ExitUsage.String() + " or " + ExitInternal.String(),
	}
	// The statuses a request's record ends in, with the codes fromRecord gives.
	for _, s := range storeStatuses(t) {
		if r := fromRecord(store.Record{Status: s}, false, time.Unix(1, 0)); r.Status != StatusPending {
			want[r.Status] = r.ExitCode.String()
		}
	}
	for _, name := range resultStatuses(t) {
		if _, ok := want[name]; !ok {
			t.Errorf("the test does not know the exit code of the status %q", name)
		}
	}
	got := map[string]string{}
	for _, row := range rows {
		got[mdtable.Code(row[0])] = row[1]
	}
	for status, code := range want {
		if got[status] != code {
			t.Errorf("docs/scripting.md says status %q exits %q; the code says %s", status, got[status], code)
		}
	}
	for status := range got {
		if _, ok := want[status]; !ok {
			t.Errorf("docs/scripting.md lists the status %q, which no Result carries", status)
		}
	}
}

// docs/trust-and-files.md's table of history events names every event the
// engine writes to the history, and no other. The events are found in the
// engine's source: the first argument of each logEvent call, and what
// eventFor makes of each final status.
func TestDocsHistoryEventsTable(t *testing.T) {
	rows, err := mdtable.Rows("../docs/trust-and-files.md", "### History events")
	if err != nil {
		t.Fatal(err)
	}
	got := mdtable.Names(rows)
	want := map[string]bool{}
	for _, s := range storeStatuses(t) {
		if s.Final() {
			want[eventFor(s)] = true
		}
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "logEvent" && sel.Sel.Name != "logEventOrWarn") {
				return true
			}
			switch arg := call.Args[0].(type) {
			case *ast.BasicLit:
				v, _ := strconv.Unquote(arg.Value)
				want[v] = true
			case *ast.CallExpr:
				if id, ok := arg.Fun.(*ast.Ident); !ok || id.Name != "eventFor" {
					t.Errorf("%s: an event the test cannot read", fset.Position(arg.Pos()))
				}
			case *ast.Ident:
				// logEventOrWarn handing its own event on.
				if arg.Name != "event" {
					t.Errorf("%s: an event the test cannot read: %s", fset.Position(arg.Pos()), arg.Name)
				}
			default:
				t.Errorf("%s: an event the test cannot read", fset.Position(arg.Pos()))
			}
			return true
		})
	}
	wantList := slices.Sorted(func(yield func(string) bool) {
		for e := range want {
			if !yield(e) {
				return
			}
		}
	})
	slices.Sort(got)
	if !slices.Equal(got, wantList) {
		t.Errorf("docs/trust-and-files.md lists the history events %v; the engine writes %v", got, wantList)
	}
}

// storeStatuses are the store's statuses, read from its source, so that a
// new one reaches the tables' tests without a list here.
func storeStatuses(t *testing.T) []store.Status {
	var out []store.Status
	for _, v := range stringConsts(t, "../store/record.go", nil, "Status") {
		out = append(out, store.Status(v))
	}
	return out
}

// resultStatuses are the values of the Status constants of result.go.
func resultStatuses(t *testing.T) []string {
	var out []string
	for name, v := range stringConsts(t, "result.go", stringConsts(t, "../store/record.go", nil, "Status"), "") {
		if strings.HasPrefix(name, "Status") {
			out = append(out, v)
		}
	}
	return out
}

// stringConsts is gosrc.StringConsts, failing the test on an error.
func stringConsts(t *testing.T, file string, outside map[string]string, typ string) map[string]string {
	t.Helper()
	consts, err := gosrc.StringConsts(file, outside, typ)
	if err != nil {
		t.Fatal(err)
	}
	return consts
}
