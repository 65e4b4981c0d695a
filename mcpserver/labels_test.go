package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/store"
)

// A button does what it reads (issue 42). Before, an agent's confirm call
// with "ok_label":"Deny","cancel_label":"Approve" was asked, and a tap on
// Deny approved. Buttons that read as each other's answer are a tool error
// naming the argument, and nobody is asked: no dialog, no form through the
// client, nothing stored.
func TestConfirmRefusesButtonsThatReadAsTheOther(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"the issue's swapped buttons", map[string]any{"ok_label": "Deny", "cancel_label": "Approve"},
			`invalid argument ok_label: "Deny" reads as "deny", a refusal, but this button approves`},
		{"Deny in capitals with a Cyrillic E", map[string]any{"ok_label": "D\u0415NY"},
			"invalid argument ok_label: \"D\u0415NY\" reads as \"deny\""},
		{"Don't", map[string]any{"ok_label": "Don\u2019t", "cancel_label": "Run"},
			"invalid argument ok_label: \"Don\u2019t\" reads as \"don't\""},
		{"Approve on the refusing button", map[string]any{"ok_label": "Run", "cancel_label": "Approve"},
			`invalid argument cancel_label: "Approve" reads as "approve", an approval, but this button refuses`},
		{"a private-use character", map[string]any{"cancel_label": "Approve\ue000"},
			"invalid argument cancel_label: contains the private-use character U+E000"},
	}
	for _, c := range cases {
		c.args["message"] = "Run rm -rf /srv/data ?"
	}
	t.Run("by dialog", func(t *testing.T) {
		env := newTestEnv(t)
		ts := env.connect(0)
		for _, c := range cases {
			got := ts.call("confirm", c.args)
			expectToolError(t, got, c.want)
			if strings.Contains(got.text, "--") {
				t.Errorf("%s: the error names a command-line flag, not the argument: %q", c.name, got.text)
			}
		}
		if n := env.holders.count(); n != 0 {
			t.Fatalf("%d dialog holders started", n)
		}
		if recs, err := store.New(env.paths.DB).List(); err != nil || len(recs) != 0 {
			t.Fatalf("%d records stored (%v)", len(recs), err)
		}
	})
	for _, version := range formVersions {
		t.Run("through the client's form at "+version, func(t *testing.T) {
			env := newTestEnv(t).headless()
			ts := env.connectClient(10*time.Second, nobody(t).client(version))
			for _, c := range cases {
				expectToolError(t, ts.call("confirm", c.args), c.want)
			}
			if recs, err := store.New(env.paths.DB).List(); err != nil || len(recs) != 0 {
				t.Fatalf("%d records stored (%v)", len(recs), err)
			}
		})
	}
}
