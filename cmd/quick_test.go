//go:build unix

package cmd

import (
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/store"
)

// The quick path runs exactly the invocations that are the confirm command
// with flags only, and gives them the command tree's outcome to the byte.
func TestQuickPathMatchesTheCommandTree(t *testing.T) {
	approved := cliRequest("Ship it?", cliWorkDir(t), "")
	for _, tc := range []struct {
		args  []string
		quick bool
	}{
		{[]string{"--message", "Ship it?"}, true},
		{[]string{"--message", "Ship it?", "--json"}, true},
		{[]string{"--json", "--message=Ship it?", "--remember", "0s"}, true},
		{[]string{"--message", "Ship it?", "--"}, true},
		{[]string{"--message", "Other?", "--if-headless", "deny", "--json"}, true},
		{[]string{"--message", "-rf /", "--json"}, true},
		{[]string{"--message", "list"}, true},
		{[]string{"--message", ""}, true},
		{[]string{"--message", "m", "--wait", "25h", "--json"}, true},
		{[]string{"--message", "m", "--if-headless", "maybe"}, true},
		{[]string{"--title", "T"}, true},
		{[]string{}, true},

		{[]string{"--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"--message", "m", "--help"}, false},
		{[]string{"list"}, false},
		{[]string{"--json", "list"}, false},
		{[]string{"--message", "m", "stray"}, false},
		{[]string{"--message", "m", "--", "stray"}, false},
		{[]string{"--mesage", "typo"}, false},
		{[]string{"--message"}, false},
		{[]string{"--wait", "soon", "--message", "m", "--json"}, false},
		{[]string{"--json=maybe", "--message", "m"}, false},
		{[]string{"version"}, false},
		{[]string{"completion", "bash"}, false},
	} {
		// Two identical worlds: a headless session and one approval of
		// approved, answered a few seconds before a fixed clock.
		quick, tree := newCLIFixture(t), newCLIFixture(t)
		for _, f := range []*cliFixture{quick, tree} {
			f.fixClock(cliNow)
			f.headless("no display in this test")
			f.seed(approved, store.Approved, 5*time.Second)
		}
		probe := newCLIFixture(t)
		probe.headless("no display in this test")
		if _, ok := probe.a.quickConfirm(tc.args); ok != tc.quick {
			t.Errorf("%q: quick path taken %v, want %v", tc.args, ok, tc.quick)
			continue
		}
		q, c := quick.runRaw(tc.args...), tree.runTree(tc.args...)
		if q.code != c.code || q.stdout != c.stdout || q.stderr != c.stderr {
			t.Errorf("%q: Main gave exit %d, stdout %q, stderr %q; the command tree gave exit %d, stdout %q, stderr %q",
				tc.args, q.code, q.stdout, q.stderr, c.code, c.stdout, c.stderr)
		}
	}
}
