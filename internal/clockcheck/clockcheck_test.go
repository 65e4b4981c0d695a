package clockcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The test that failed CI from the day after it was written is found, at
// the line of its deadline.
func TestFindsTheDeadlineThatRanOut(t *testing.T) {
	src, err := os.ReadFile("testdata/old_phone_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	found, err := Source("old_phone_test.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.Contains(found[0].What, "context.WithDeadline") || found[0].Pos.Line != lineOf(t, string(src), "context.WithDeadline(") {
		t.Fatalf("findings %v, want the one context.WithDeadline", found)
	}
}

func lineOf(t *testing.T, src, s string) int {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q is not in the source", s)
	}
	return strings.Count(src[:i], "\n") + 1
}

// Each way a written time meets the machine's clock is found, and a
// written time given to the code as its clock is not.
// The bodies are source text for the check to read, never run: their
// written dates are the faults it must find.
func TestFindings(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // a part of the one finding's text; "" for none
	}{
		{"a deadline written as a date", `ctx, _ := context.WithDeadline(context.Background(), time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)); _ = ctx`, "WithDeadline"},
		{"a deadline made from a written time", `at := time.Unix(1800000000, 0); later := at.Add(time.Hour); ctx, _ := context.WithDeadlineCause(context.Background(), later, nil); _ = ctx`, "WithDeadlineCause"},
		{"a package-level written time", `ctx, _ := context.WithDeadline(context.Background(), epoch); _ = ctx`, "WithDeadline"},
		{"a parsed time", `at, _ := time.Parse(time.RFC3339, "2026-11-26T14:05:00Z"); _ = time.Until(at)`, "time.Until"},
		{"time.Since", `_ = time.Since(epoch.Add(time.Minute))`, "time.Since"},
		{"compared with now", `if epoch.Before(time.Now()) { panic(0) }`, "Before"},
		{"now compared with it", `now := time.Now(); if now.After(epoch) { panic(0) }`, "After"},
		{"a timeout made from both", `ctx, _ := context.WithTimeout(context.Background(), epoch.Sub(time.Now())); _ = ctx`, "Sub"},
		{"a renamed import", `ctx, _ := ctxpkg.WithDeadline(ctxpkg.Background(), tm.Date(2026, 1, 1, 0, 0, 0, 0, tm.UTC)); _ = ctx`, "WithDeadline"},
		{"a time the program said, parsed", `at, _ := time.Parse(time.RFC3339, said()); _ = time.Since(at)`, ""},
		{"a deadline from now", `ctx, _ := context.WithDeadline(context.Background(), time.Now().Add(time.Hour)); _ = ctx`, ""},
		{"a written clock for the code under test", `e := struct{ now func() time.Time }{now: func() time.Time { return epoch }}; _ = e.now().Add(time.Hour).Sub(epoch)`, ""},
		{"written times against each other", `_ = epoch.Add(time.Hour).After(epoch)`, ""},
		{"a timeout of its own", `ctx, _ := context.WithTimeout(context.Background(), 10*time.Second); _ = ctx`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			imports := "import (\n\t\"context\"\n\t\"time\"\n)\n"
			if strings.Contains(c.body, "ctxpkg") {
				imports = "import (\n\tctxpkg \"context\"\n\ttm \"time\"\n)\nvar epoch = tm.Unix(0, 0)\n"
			} else {
				imports += "var epoch = time.Date(1999, 11, 22, 13, 0, 0, 0, time.UTC)\n"
			}
			src := "package p\n\n" + imports + "\nfunc said() string { return \"\" }\n\nfunc f() {\n" + c.body + "\n}\n"
			found, err := Source("p_test.go", src)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.want == "" && len(found) != 0:
				t.Errorf("found %v in\n%s", found, src)
			case c.want != "" && (len(found) != 1 || !strings.Contains(found[0].What, c.want)):
				t.Errorf("found %v, want one that names %q, in\n%s", found, c.want, src)
			}
		})
	}
}

// The project's own test code: no written time meets the machine's clock.
// The test harnesses that only tests import are read as test code.
func TestTheProjectsTests(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found, files, err := Tree(root, "internal/e2e", "internal/ntfytest", "internal/agenttest", "internal/syncbuf", "internal/leakcheck", "internal/padding", "internal/helpexample")
	if err != nil {
		t.Fatal(err)
	}
	// Far fewer files read means the walk went wrong, not that the tests
	// are sound.
	if files < 100 {
		t.Fatalf("read %d files of test code under %s; the project has over 100", files, root)
	}
	for _, f := range found {
		t.Errorf("%v", f)
	}
}
