//go:build e2e && unix

package lifecycle_test

import (
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Real dialogs, issue 12: an answer given after its caller stopped waiting
// is collected by the next identical request, once, even past --remember,
// and is gone after --collect-within.

func TestRealDialogCollectWithRememberZero(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-collect0")
	args := []string{"--json", "--remember", "0", "--wait", "2s", "--title", title, "--message", "collect me"}
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.Click(title, "approve")
	h.WaitNoWindow(title, 30*time.Second)
	h.AnsweredAt(o.Res.Key)

	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("the collected answer is not marked remembered: %+v", o.Res)
	}
	if ws := h.Windows(title); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}

	// Collected once: the same command again asks anew, and waits for the
	// click however long a busy machine takes to make it.
	r := h.Start(append(args, "--wait", "60s")...)
	h.WaitWindow(title)
	h.Click(title, "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// --remember 1s stands for the default: the bound can never be below
// --remember, so with the default 60 s a retry "after --remember but within
// the bound" would take over a minute of waiting per case. The in-process
// tests (cmd/collect_test.go) run the defaults on a fake clock.
func TestRealDialogCollectPastRememberWithinBound(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-bound")
	args := []string{"--json", "--remember", "1s", "--collect-within", "10s", "--wait", "2s", "--title", title, "--message", "collect me later"}

	// A retry after --remember, within the bound, collects.
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.Click(title, "approve")
	at := h.AnsweredAt(o.Res.Key)
	e2e.SleepUntil(at.Add(2 * time.Second))
	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered || time.Since(at) < time.Second {
		t.Fatalf("collected %s after the click: %+v", time.Since(at), o.Res)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}

	// A retry after the bound shows a new dialog.
	e2e.SleepUntil(at.Add(time.Second)) // the collected answer is past --remember
	o = h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.Click(title, "approve")
	at = h.AnsweredAt(o.Res.Key)
	e2e.SleepUntil(at.Add(11 * time.Second))
	r := h.Start(append(args, "--wait", "60s")...)
	h.WaitWindow(title) // a new dialog, not the forgotten approval
	h.Click(title, "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 3 {
		t.Fatalf("%d dialogs were requested, want 3", n)
	}
}

// A caller that was waiting at the click collects the answer: after
// --remember the same command shows a new dialog.
func TestRealDialogWaitingCallerCollects(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-waiter")
	args := []string{"--json", "--remember", "1s", "--title", title, "--message", "I am waiting"}
	r := h.Start(args...)
	h.Click(title, "approve")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Remembered {
		t.Fatalf("the waiting caller's answer reads as remembered: %+v", o.Res)
	}
	e2e.SleepUntil(o.Res.AnsweredAt.Add(1500 * time.Millisecond))
	r = h.Start(args...)
	h.WaitWindow(title)
	h.Click(title, "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

func TestRealDialogCollectDenialAndExpiry(t *testing.T) {
	h := e2e.NewRealHarness(t)

	deny := h.Title("RD-collectdeny")
	args := []string{"--json", "--remember", "1s", "--wait", "2s", "--title", deny, "--message", "deny me later"}
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.Click(deny, "cancel")
	e2e.SleepUntil(h.AnsweredAt(o.Res.Key).Add(2 * time.Second))
	o = h.Run(args...)
	h.Expect(o, 1, lifecycle.StatusDenied)
	if !o.Res.Remembered || len(h.Windows(deny)) != 0 {
		t.Fatalf("the denial was not collected: %+v", o.Res)
	}

	expire := h.Title("RD-collectexpire")
	args = []string{"--json", "--remember", "1s", "--timeout", "10s", "--wait", "1s", "--title", expire, "--message", "nobody answers"}
	o = h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	// --timeout leaves a slow machine time to map the window before it
	// closes by itself.
	h.WaitWindow(expire)
	h.WaitNoWindow(expire, 30*time.Second)
	e2e.SleepUntil(h.AnsweredAt(o.Res.Key).Add(2 * time.Second))
	o = h.Run(args...)
	h.Expect(o, 5, lifecycle.StatusExpired)
	if !o.Res.Remembered || len(h.Windows(expire)) != 0 {
		t.Fatalf("the expiry was not collected: %+v", o.Res)
	}
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// MCP: a call that returned pending, an approval while no call waits, and a
// confirm call after --remember collects the approval; status saw it as
// collectable without collecting it.
func TestMCPRealCollectPastRemember(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "2s", "--remember", "1s")
	title := h.Title("MCP-collect")
	args := map[string]any{"title": title, "message": "Deploy once I am back?"}
	c := s.Call("confirm", args)
	e2e.ExpectResult(t, c, lifecycle.StatusPending, e2e.TextPending)
	h.Click(title, "approve")
	e2e.SleepUntil(h.AnsweredAt(c.Out.Key).Add(2 * time.Second))

	st := s.Call("status", map[string]any{"key": c.Out.Key})
	e2e.ExpectResult(t, st, lifecycle.StatusApproved, "")
	c = s.Call("confirm", args)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "")
	if !c.Out.Remembered || len(h.Windows(title)) != 0 {
		t.Fatalf("the approval was not collected: %+v", c.Out)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
	// Collected by that call: the next one is asked anew.
	c = s.Call("confirm", args)
	e2e.ExpectResult(t, c, lifecycle.StatusPending, e2e.TextPending)
	h.WaitWindow(title)
	h.Click(title, "cancel")
}
