//go:build e2e && unix

package cmd

import (
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Real dialogs, issue 12: an answer given after its caller stopped waiting
// is collected by the next identical request, once, even past --remember,
// and is gone after --collect-within.

// answeredAt waits until the request named by key has ended and returns
// when it did, from ask-confirm status.
func (h *harness) answeredAt(key string) time.Time {
	h.t.Helper()
	var at time.Time
	eventually(h.t, 30*time.Second, "the answer to be on record", func() bool {
		o := h.run("status", key, "--json")
		at = o.res.AnsweredAt
		return o.code != int(lifecycle.ExitPending) && !at.IsZero()
	})
	return at
}

// sleepUntil sleeps until t has passed.
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

func TestRealDialogCollectWithRememberZero(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-collect0")
	args := []string{"--json", "--remember", "0", "--wait", "2s", "--title", title, "--message", "collect me"}
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.click(title, "approve")
	h.waitNoWindow(title, 30*time.Second)
	h.answeredAt(o.res.Key)

	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("the collected answer is not marked remembered: %+v", o.res)
	}
	if ws := h.windows(title); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}

	// Collected once: the same command again asks anew.
	r := h.start(args...)
	h.waitWindow(title)
	h.click(title, "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.dialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// --remember 1s stands for the default: the bound can never be below
// --remember, so with the default 60 s a retry "after --remember but within
// the bound" would take over a minute of waiting per case. The in-process
// tests (collect_test.go) run the defaults on a fake clock.
func TestRealDialogCollectPastRememberWithinBound(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-bound")
	args := []string{"--json", "--remember", "1s", "--collect-within", "6s", "--wait", "2s", "--title", title, "--message", "collect me later"}

	// A retry after --remember, within the bound, collects.
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.click(title, "approve")
	at := h.answeredAt(o.res.Key)
	sleepUntil(at.Add(2 * time.Second))
	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered || time.Since(at) < time.Second {
		t.Fatalf("collected %s after the click: %+v", time.Since(at), o.res)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}

	// A retry after the bound shows a new dialog.
	sleepUntil(at.Add(time.Second)) // the collected answer is past --remember
	o = h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.click(title, "approve")
	at = h.answeredAt(o.res.Key)
	sleepUntil(at.Add(7 * time.Second))
	r := h.start(args...)
	h.waitWindow(title) // a new dialog, not the forgotten approval
	h.click(title, "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.dialogsRequested(); n != 3 {
		t.Fatalf("%d dialogs were requested, want 3", n)
	}
}

// A caller that was waiting at the click collects the answer: after
// --remember the same command shows a new dialog.
func TestRealDialogWaitingCallerCollects(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-waiter")
	args := []string{"--json", "--remember", "1s", "--title", title, "--message", "I am waiting"}
	r := h.start(args...)
	h.click(title, "approve")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Remembered {
		t.Fatalf("the waiting caller's answer reads as remembered: %+v", o.res)
	}
	sleepUntil(o.res.AnsweredAt.Add(1500 * time.Millisecond))
	r = h.start(args...)
	h.waitWindow(title)
	h.click(title, "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.dialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

func TestRealDialogCollectDenialAndExpiry(t *testing.T) {
	h := newRealHarness(t)

	deny := h.title("RD-collectdeny")
	args := []string{"--json", "--remember", "1s", "--wait", "2s", "--title", deny, "--message", "deny me later"}
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.click(deny, "cancel")
	sleepUntil(h.answeredAt(o.res.Key).Add(2 * time.Second))
	o = h.run(args...)
	h.expect(o, 1, lifecycle.StatusDenied)
	if !o.res.Remembered || len(h.windows(deny)) != 0 {
		t.Fatalf("the denial was not collected: %+v", o.res)
	}

	expire := h.title("RD-collectexpire")
	args = []string{"--json", "--remember", "1s", "--timeout", "6s", "--wait", "1s", "--title", expire, "--message", "nobody answers"}
	o = h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	// --timeout leaves a slow machine time to map the window before it
	// closes by itself.
	h.waitWindow(expire)
	h.waitNoWindow(expire, 30*time.Second)
	sleepUntil(h.answeredAt(o.res.Key).Add(2 * time.Second))
	o = h.run(args...)
	h.expect(o, 5, lifecycle.StatusExpired)
	if !o.res.Remembered || len(h.windows(expire)) != 0 {
		t.Fatalf("the expiry was not collected: %+v", o.res)
	}
	if n := h.dialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// MCP: a call that returned pending, an approval while no call waits, and a
// confirm call after --remember collects the approval; status saw it as
// collectable without collecting it.
func TestMCPRealCollectPastRemember(t *testing.T) {
	h := newRealHarness(t)
	s := h.mcpConnect("--wait", "2s", "--remember", "1s")
	title := h.title("MCP-collect")
	args := map[string]any{"title": title, "message": "Deploy once I am back?"}
	c := s.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, textPending)
	h.click(title, "approve")
	sleepUntil(h.answeredAt(c.out.Key).Add(2 * time.Second))

	st := s.call("status", map[string]any{"key": c.out.Key})
	expectResult(t, st, lifecycle.StatusApproved, "")
	c = s.call("confirm", args)
	expectResult(t, c, lifecycle.StatusApproved, "")
	if !c.out.Remembered || len(h.windows(title)) != 0 {
		t.Fatalf("the approval was not collected: %+v", c.out)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
	// Collected by that call: the next one is asked anew.
	c = s.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, textPending)
	h.waitWindow(title)
	h.click(title, "cancel")
}
