//go:build unix

package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/platform"
)

// Who asks is the program that ran ask-confirm and its directory: kept
// with the request, shown by the holder and written to the history, and
// no part of the identity. --no-origin leaves it out.
func TestConfirmRecordsWhoAsks(t *testing.T) {
	f := newCLIFixture(t)
	r := f.run("--json", "--wait", "0", "--message", "Ship v2?")
	f.expectCode(r, 3)
	wd, err := os.Getwd()
	must(t, err)
	home, _ := os.UserHomeDir()
	parent := platform.ProcessName(os.Getppid())
	if parent == "" {
		t.Fatal("the test's parent process has no name")
	}
	rec := f.record(r.res.Key)
	if want := parent + " in "; !strings.HasPrefix(rec.Origin, want) || !strings.HasSuffix(wd, strings.TrimPrefix(strings.TrimPrefix(rec.Origin, want), "~")) {
		t.Fatalf("origin %q, want %q then %s (home %s)", rec.Origin, want, wd, home)
	}
	var logged bool
	for _, e := range f.events() {
		logged = logged || (e.Event == "requested" && e.Origin == rec.Origin)
	}
	if !logged {
		t.Fatalf("the history does not say who asked: %+v", f.events())
	}

	r = f.run("--json", "--wait", "0", "--no-origin", "--message", "Tag v2?")
	f.expectCode(r, 3)
	if o := f.record(r.res.Key).Origin; o != "" {
		t.Fatalf("--no-origin recorded %q", o)
	}
}
