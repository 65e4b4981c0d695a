//go:build e2e && unix

package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
)

// These tests hold what ask-confirm says of a request to what is true of
// it, with the real binary, its detached holders and a real ntfy server
// (issue 44, items 1 to 3): a request the phone never saw is never
// reported open on the phone, a test nobody was asked is never "nobody
// answered", and status, list and a re-run agree about a holder killed.

// statusJSON runs status --json KEY and returns what it says.
func statusJSON(t *testing.T, h *e2e.Harness, key string) (int, lifecycle.Result) {
	t.Helper()
	o := h.Run("status", "--json", key)
	var r lifecycle.Result
	if err := json.Unmarshal([]byte(o.Stdout), &r); err != nil {
		t.Fatalf("status --json %s: exit %d %v\n%s%s", key, o.Code, err, o.Stdout, o.Stderr)
	}
	return o.Code, r
}

// listRow returns list's row of the request whose identity is id, its
// blanks squeezed.
func listRow(t *testing.T, h *e2e.Harness, id string) string {
	t.Helper()
	o := h.Run("list")
	for _, l := range strings.Split(o.Stdout, "\n") {
		if strings.HasPrefix(l, id[:12]) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	t.Fatalf("list has no row of %s:\n%s", id[:12], o.Stdout)
	return ""
}

// A request to be asked on the phone alone, where the phone cannot be
// reached (its server down, or refusing the asking token), ends with exit
// 6 and says it was never reached and why, within about the server's
// opening (5 s) past a shorter --wait: never "pending: the request is
// still open on the phone" (exit 3), which it said for --remote only
// --wait 4s and for --remote fallback with nobody to ask here (issue 44,
// item 1). status and list then say it was never reached.
func TestPhoneNeverReachedIsNotPending(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phoneSetUp(t, h, s, "off")
	s.Stop()

	for _, c := range []struct{ name, mode, wait string }{
		{"--remote only, server down", "only", "4s"},
		{"--remote fallback with nobody to ask here, server down", "fallback", "5s"},
	} {
		o := h.Run("--json", "--message", "Anyone? "+c.mode, "--remote", c.mode, "--wait", c.wait)
		h.Expect(o, 6, "failed")
		if o.Res.State != lifecycle.StateNeverReached || !strings.HasPrefix(o.Res.Message, "never reached: nobody was asked") ||
			!strings.Contains(o.Res.Message, "could not be reached") || o.Res.ShouldRetry {
			t.Fatalf("%s: %s", c.name, o.Stdout)
		}
		if o.Elapsed > 12*time.Second {
			t.Errorf("%s: exit 6 after %s", c.name, o.Elapsed)
		}
		plain := h.Run("--message", "Anyone? "+c.mode, "--remote", c.mode, "--wait", c.wait)
		if plain.Code != 6 || !strings.Contains(plain.Stderr, "never reached: nobody was asked") || strings.Contains(plain.Stderr, "still open") {
			t.Fatalf("%s, its stderr line: exit %d %s", c.name, plain.Code, plain.Stderr)
		}
		code, st := statusJSON(t, h, o.Res.Key)
		if code != 3 || st.Status != lifecycle.StatusStale || !strings.HasPrefix(st.Message, "never reached: nobody was asked") {
			t.Fatalf("%s, status: exit %d %+v", c.name, code, st)
		}
		if row := listRow(t, h, o.Res.Key); !strings.Contains(row, " phone stale (never reached) ") {
			t.Fatalf("%s, list: %q", c.name, row)
		}
	}

	// A server that refuses the asking token.
	s.Start()
	settings := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")
	b, err := os.ReadFile(settings)
	e2e.Must(t, err)
	e2e.Must(t, os.WriteFile(settings, []byte(strings.ReplaceAll(string(b), s.AskerToken, "tk_"+strings.Repeat("a", 29))), 0o600))
	o := h.Run("--json", "--message", "Refused?", "--remote", "only", "--wait", "4s")
	h.Expect(o, 6, "failed")
	if o.Res.State != lifecycle.StateNeverReached || !strings.Contains(o.Res.Message, "401") {
		t.Fatalf("a refused asking token: %s", o.Stdout)
	}
}

// remote test with the server down says the phone could not be reached,
// exit 6, as a request on the phone alone ends: never "nobody answered on
// the phone in time" (exit 5), since nobody was asked (issue 44, item 2).
func TestRemoteTestWithTheServerDown(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phoneSetUp(t, h, s, "off")
	s.Stop()
	o := h.Run("remote", "test", "--wait", "3s")
	if o.Code != 6 || !strings.Contains(o.Stderr, "never reached: the phone could not be reached") || strings.Contains(o.Stdout+o.Stderr, "nobody answered") {
		t.Fatalf("remote test, server down: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
}

// A holder SIGKILLed while its dialog is shown: status, list and the
// re-run agree that nothing asks any more and that running it again asks
// anew, its second attempt (issue 44, item 3: list said "shown (holder
// gone)", status "pending", "the dialog is still open on the person's
// screen", and the re-run started attempt 2 at once).
func TestKilledHolderStatusListAndRerunAgree(t *testing.T) {
	t.Parallel() // scripted dialogs only
	h := e2e.NewFakeHarness(t)
	args := []string{"--json", "--key", "k3", "--message", "Ship v3?", "--wait", "1s"}
	o := h.Run(args...)
	h.Expect(o, 3, "pending")
	dialogs := h.WaitShown(1)
	e2e.Eventually(t, 30*time.Second, "the request to be shown", func() bool { return h.OnlyRecord().Status == "shown" })
	holder := h.FakeHolder(dialogs[0])
	e2e.Must(t, syscall.Kill(holder, syscall.SIGKILL))
	lock := filepath.Join(h.Dir, "state", "ask-confirm", "locks", o.Res.Key+".lock")
	e2e.Eventually(t, 30*time.Second, "the holder's lock to be free", func() bool { held, err := platform.LockHeld(lock); return err == nil && !held })

	code, st := statusJSON(t, h, "k3")
	if code != 3 || st.Status != lifecycle.StatusStale || st.State != lifecycle.StateHolderGone || !st.ShouldRetry ||
		!strings.Contains(st.Message, "the dialog's holder is gone") || strings.Contains(st.Message, "still open") {
		t.Fatalf("status after the kill: exit %d %+v", code, st)
	}
	if row := listRow(t, h, o.Res.Key); !strings.Contains(row, " dialog stale (holder gone) ") || !strings.Contains(row, " 0s ") {
		t.Fatalf("list after the kill: %q", row)
	}
	// What both said: running it again asks anew.
	again := h.Run(args...)
	h.Expect(again, 3, "pending")
	if again.Res.Attempt != 2 || again.Res.State != lifecycle.StateOpen {
		t.Fatalf("the re-run: %s", again.Stdout)
	}
	h.WaitShown(1)
	if code, st := statusJSON(t, h, "k3"); code != 3 || st.State != lifecycle.StateOpen {
		t.Fatalf("status once the re-run asks: exit %d %+v", code, st)
	}
}
