//go:build unix

package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// A button does what it reads (issue 42). Before, `ask-confirm --remote
// only --ok-label Deny --cancel-label Approve` asked, and a tap on Deny
// approved. Buttons that read as each other's answer, or a label holding
// a character no font draws as itself, exit 2 before anything is asked:
// no holder is started to ask on the phone (or by dialog), and nothing
// reaches the store or the history.
func TestCLIRefusesButtonsThatReadAsTheOther(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"the issue's swapped buttons", []string{"--ok-label", "Deny", "--cancel-label", "Approve"},
			`ask-confirm: error: --ok-label: "Deny" reads as "deny", a refusal, but this button approves`},
		{"Deny with a Cyrillic e", []string{"--ok-label", "D\u0435ny", "--cancel-label", "Keep"},
			"ask-confirm: error: --ok-label: \"D\u0435ny\" reads as \"deny\""},
		{"Do not run", []string{"--ok-label", "Do not run"}, `ask-confirm: error: --ok-label: "Do not run" reads as "not"`},
		{"Cancel on the approving button", []string{"--ok-label", "Cancel", "--cancel-label", "Run"},
			`ask-confirm: error: --ok-label: "Cancel" reads as "cancel" alone`},
		{"Approve on the refusing button", []string{"--ok-label", "Run", "--cancel-label", "Approve"},
			`ask-confirm: error: --cancel-label: "Approve" reads as "approve", an approval, but this button refuses`},
		{"a private-use character", []string{"--cancel-label", "Approve\ue000"},
			"ask-confirm: error: --cancel-label: contains the private-use character U+E000"},
		{"a blank notehead", []string{"--cancel-label", "Approve\U0001d159"},
			"ask-confirm: error: --cancel-label: contains the invisible character U+1D159"},
		{"a dotted i that reads as an i", []string{"--ok-label", "Confirm", "--cancel-label", "Confi\u0307rm"},
			"ask-confirm: error: --cancel-label: \"Confi\u0307rm\" reads the same as --ok-label \"Confirm\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			// A phone is set up, so that the request, were it accepted,
			// would start the holder that asks on it.
			settings := remote.Settings{Mode: "only", Config: remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies",
				Token: "tk_asker", AnswerToken: "tk_answer", Name: "alice"}}
			if err := remote.Save(filepath.Join(filepath.Dir(filepath.Dir(f.paths.DB)), "config", "remote.json"), settings); err != nil {
				t.Fatal(err)
			}

			args := append([]string{"--remote", "only", "--message", "Run rm -rf /srv/data ?"}, c.args...)
			r := f.run(args...)
			f.expectCode(r, lifecycle.ExitUsage)
			if !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "ask-confirm: hint: ") {
				t.Errorf("stderr does not say %q with a hint:\n%s", c.says, r.stderr)
			}
			r = f.run(append([]string{"--json"}, args...)...)
			f.expectCode(r, lifecycle.ExitUsage)
			if r.res.Status != lifecycle.StatusError {
				t.Errorf("--json status %q, want %q", r.res.Status, lifecycle.StatusError)
			}
			if n := f.spawnCount(); n != 0 {
				t.Errorf("the holder, which asks on the phone, was started %d times", n)
			}
			if ev := f.events(); len(ev) != 0 {
				t.Errorf("the refused request reached the history: %+v", ev)
			}
			if recs, err := f.store.List(); err != nil || len(recs) != 0 {
				t.Errorf("the refused request was stored: %d records (%v)", len(recs), err)
			}
		})
	}
}
