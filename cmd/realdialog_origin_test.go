//go:build e2e && linux

package cmd_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The dialog says who asks: a script named deploy.sh that runs ask-confirm
// puts "Asked by deploy.sh in <its directory> · closes at HH:MM" under the
// question, read here from the real zenity's own arguments (no
// accessibility needed). The origin is no part of the identity: the same
// command run by another process collects the answer given meanwhile.
func TestRealDialogShowsWhoAsks(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-origin")
	script := filepath.Join(h.Work, "deploy.sh")
	e2e.Must(t, os.WriteFile(script, []byte("#!/bin/sh\nask-confirm --json --wait 1s --title \"$1\" --message 'Ship v2?'\n"), 0o700))
	deploy := exec.Command(script, title)
	deploy.Env, deploy.Dir = h.Env, h.Work
	var out bytes.Buffer
	deploy.Stdout = &out
	err := deploy.Run()
	if code := e2e.ExitCode(t, err); code != int(lifecycle.ExitPending) {
		t.Fatalf("deploy.sh: exit %d, want 3 (pending): %s", code, out.String())
	}

	h.WaitStable(h.WaitWindow(title))
	e2e.ExpectOriginLine(t, title, "Ship v2?", h.Work)

	h.Click(title, "approve")
	h.WaitNoWindow(title, 30*time.Second)
	h.WaitAnswered()
	// The same command from this test process, not deploy.sh.
	h.ExpectCollectedByAnother(title, "Ship v2?")
}

// --no-origin hides the line.
func TestRealDialogNoOrigin(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-no-origin")
	r := h.Start("--json", "--no-origin", "--title", title, "--message", "Rotate the keys?")
	h.WaitStable(h.WaitWindow(title))
	if text := e2e.DialogText(t, title); text != "Rotate the keys?" {
		t.Fatalf("with --no-origin the dialog shows %q", text)
	}
	h.Key(title, "Escape")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

// Under the C locale, which MCP hosts and daemons often start programs
// with, a dialog with text outside ASCII (here the message, and always the
// origin line's "·") still shows: GTK would refuse such arguments, so the
// dialog program is started with a UTF-8 locale.
func TestRealDialogUnderTheCLocale(t *testing.T) {
	h := e2e.NewRealHarness(t)
	var env []string
	for _, kv := range h.Env {
		if !strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LC_") {
			env = append(env, kv)
		}
	}
	h.Env = append(env, "LC_ALL=C")
	title := h.Title("RD-c-locale")
	r := h.Start("--json", "--title", title, "--message", "Déployer la v2 ?")
	h.WaitStable(h.WaitWindow(title))
	if text := e2e.DialogText(t, title); !strings.HasPrefix(text, "Déployer la v2 ?\n\nAsked by ") {
		t.Fatalf("the dialog shows %q", text)
	}
	h.Click(title, "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}
