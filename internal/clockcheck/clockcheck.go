// Package clockcheck finds test code whose verdict depends on the day it
// runs: a time written into the test (time.Date, time.Unix, a parsed
// literal) that meets the machine's clock. Such a test passes on the day
// it was written and fails from some hour on, or only in some time zones.
//
// It reads the source, not the running program: Go reads the wall clock
// through the vDSO, so the clock cannot be moved under a test run (faketime
// does not reach it, and a time namespace moves only the monotonic and boot
// clocks). What it finds, in each function (with its closures) and at
// package level, by name:
//
//   - a context deadline that is a written time: context.WithDeadline and
//     WithDeadlineCause run by the machine's clock, whatever the test's;
//   - time.Since and time.Until of a written time;
//   - a written time compared with, or subtracted from, the machine's
//     clock (Before, After, Equal, Compare, Sub), which also finds a
//     timer or a context's timeout made so.
//
// A written time given to the code under test as its clock (an engine's
// now) is what a test should do, and is not reported. A written time
// stored in a fixture that the code then holds against the machine's clock
// is beyond a reading by names; the tests' own review covers it.
package clockcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Finding is one place where a written time meets the machine's clock.
type Finding struct {
	Pos  token.Position
	What string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.What) }

// written are the time package's functions that make a time from what the
// test wrote (a parse only of a literal); clock those that read the
// machine's clock.
var (
	written = map[string]bool{"Date": true, "Unix": true, "UnixMilli": true, "UnixMicro": true, "Parse": true, "ParseInLocation": true}
	clock   = map[string]bool{"Now": true}
	compare = map[string]bool{"Before": true, "After": true, "Equal": true, "Compare": true, "Sub": true}
)

// Source reports the findings in one Go file's source.
func Source(filename string, src any) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, 0)
	if err != nil {
		return nil, err
	}
	return file(fset, f), nil
}

// Tree reports the findings in the Go files under root that hold test
// code: every _test.go file, and the files of the packages named in
// harnesses (directories relative to root) that only tests import.
// Directories named testdata are skipped.
func Tree(root string, harnesses ...string) ([]Finding, int, error) {
	var all []Finding
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !isTestCode(root, path, harnesses) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		found, err := Source(rel, src)
		if err != nil {
			return err
		}
		files++
		all = append(all, found...)
		return nil
	})
	return all, files, err
}

func isTestCode(root, path string, harnesses []string) bool {
	if strings.HasSuffix(path, "_test.go") {
		return true
	}
	for _, h := range harnesses {
		if filepath.Dir(path) == filepath.Join(root, h) {
			return true
		}
	}
	return false
}

// names is what a scope's identifiers are known to hold: a written time
// (or one made from it), or the machine's clock.
type names struct {
	written, clock map[string]bool
}

func file(fset *token.FileSet, f *ast.File) []Finding {
	local := imports(f)
	top := names{written: map[string]bool{}, clock: map[string]bool{}}
	var bodies []ast.Node
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			learn(top, d, local)
		case *ast.FuncDecl:
			if d.Body != nil {
				bodies = append(bodies, d.Body)
			}
		}
	}
	var found []Finding
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			found = append(found, check(fset, g, top, local)...)
		}
	}
	for _, b := range bodies {
		n := names{written: maps.Clone(top.written), clock: maps.Clone(top.clock)}
		learn(n, b, local)
		found = append(found, check(fset, b, n, local)...)
	}
	return found
}

// imports maps the names under which f imports "time" and "context" to
// those paths.
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, s := range f.Imports {
		path := strings.Trim(s.Path.Value, `"`)
		if path != "time" && path != "context" {
			continue
		}
		name := path
		if s.Name != nil {
			name = s.Name.Name
		}
		out[name] = path
	}
	return out
}

// learn records, until nothing changes, every name assigned or declared
// in node from a written time or from the machine's clock.
func learn(n names, node ast.Node, local map[string]string) {
	for changed := true; changed; {
		changed = false
		mark := func(lhs []ast.Expr, rhs []ast.Expr) {
			for i, l := range lhs {
				id, ok := l.(*ast.Ident)
				if !ok || id.Name == "_" {
					continue
				}
				var r ast.Expr
				switch {
				case len(rhs) == len(lhs):
					r = rhs[i]
				case len(rhs) == 1:
					r = rhs[0]
				default:
					continue
				}
				if !n.written[id.Name] && holds(r, n.written, local, written) {
					n.written[id.Name], changed = true, true
				}
				if !n.clock[id.Name] && holds(r, n.clock, local, clock) {
					n.clock[id.Name], changed = true, true
				}
			}
		}
		ast.Inspect(node, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.AssignStmt:
				mark(x.Lhs, x.Rhs)
			case *ast.ValueSpec:
				lhs := make([]ast.Expr, len(x.Names))
				for i, id := range x.Names {
					lhs[i] = id
				}
				mark(lhs, x.Values)
			}
			return true
		})
	}
}

// holds reports whether e uses a name in known, or calls one of the time
// package's functions in fns.
func holds(e ast.Node, known map[string]bool, local map[string]string, fns map[string]bool) bool {
	found := false
	ast.Inspect(e, func(x ast.Node) bool {
		if found {
			return false
		}
		switch x := x.(type) {
		case *ast.Ident:
			found = known[x.Name]
		case *ast.CallExpr:
			if pkg, fn, ok := callee(x, local); ok && pkg == "time" && fns[fn] {
				// A time parsed from what the program said was not
				// written by the test: only a literal's is.
				found = !strings.HasPrefix(fn, "Parse") || slices.ContainsFunc(x.Args, isLiteral)
			}
		}
		return !found
	})
	return found
}

func isLiteral(e ast.Expr) bool {
	_, ok := e.(*ast.BasicLit)
	return ok
}

// callee names the package-level function that call calls, when it is
// one of the imported packages in local.
func callee(call *ast.CallExpr, local map[string]string) (pkg, fn string, ok bool) {
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel {
		return "", "", false
	}
	id, isID := sel.X.(*ast.Ident)
	if !isID || local[id.Name] == "" {
		return "", "", false
	}
	return local[id.Name], sel.Sel.Name, true
}

func check(fset *token.FileSet, node ast.Node, n names, local map[string]string) []Finding {
	var found []Finding
	isWritten := func(e ast.Expr) bool { return holds(e, n.written, local, written) }
	isClock := func(e ast.Expr) bool { return holds(e, n.clock, local, clock) }
	report := func(at ast.Node, format string, args ...any) {
		found = append(found, Finding{Pos: fset.Position(at.Pos()), What: fmt.Sprintf(format, args...)})
	}
	ast.Inspect(node, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok {
			return true
		}
		if pkg, fn, ok := callee(call, local); ok {
			switch {
			case pkg == "context" && (fn == "WithDeadline" || fn == "WithDeadlineCause") && len(call.Args) > 1 && isWritten(call.Args[1]):
				report(call, "context.%s with a written time as its deadline: the context runs out by the machine's clock, so the test's verdict depends on the day it runs; give a deadline from time.Now()", fn)
			case pkg == "time" && (fn == "Since" || fn == "Until") && len(call.Args) == 1 && isWritten(call.Args[0]):
				report(call, "time.%s of a written time: the result depends on the day the test runs", fn)
			}
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !compare[sel.Sel.Name] || len(call.Args) != 1 {
			return true
		}
		if (isWritten(sel.X) && isClock(call.Args[0])) || (isClock(sel.X) && isWritten(call.Args[0])) {
			report(call, "a written time meets the machine's clock in %s: the result depends on the day the test runs", sel.Sel.Name)
		}
		return true
	})
	return found
}
