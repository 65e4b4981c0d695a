//go:build e2e && unix

package lifecycle_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Lifecycle tests with the scripted zenity: the real holder process, the
// real store and locks, and a dialog program the test controls.

func TestLifecycleApproveAndDeny(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	r := h.Start("--json", "--message", "approve me")
	h.WaitShown(1)
	h.Answer("approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)

	r = h.Start("--json", "--message", "deny me")
	h.WaitShown(1)
	h.Answer("cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestLifecycleRenderFailureRetriesThenExits6(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	h.NothingRenders()
	e2e.Must(t, os.WriteFile(filepath.Join(h.FakeDir, "broken"), nil, 0o600))
	o := h.Run("--json", "--retries", "2", "--message", "never renders")
	h.Expect(o, 6, lifecycle.StatusFailed)
	if o.Res.Attempt != 3 || o.Res.Rendered || o.Res.ShouldRetry {
		t.Fatalf("after 2 retries: %+v", o.Res)
	}
	if !strings.Contains(o.Res.Message, "before its window could appear") {
		t.Fatalf("failure reason missing: %q", o.Res.Message)
	}
	if n := len(h.FakeCalls()); n != 3 {
		t.Fatalf("dialog program started %d times, want 3", n)
	}
	if n := h.CountEvents("failed"); n != 3 {
		t.Fatalf("history holds %d failed events, want 3", n)
	}
}

// A holder SIGKILLed while its dialog is up: the waiting caller notices at
// once, a new dialog replaces the orphaned one, and the approval reaches the
// same caller.
func TestLifecycleHolderKilledWhileShown(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	r := h.Start("--json", "--message", "survive a holder kill")
	first := h.WaitShown(1)[0]
	holder := h.FakeHolder(first)
	killedAt := time.Now()
	e2e.Must(t, syscall.Kill(holder, syscall.SIGKILL))

	var second int
	e2e.Eventually(t, 30*time.Second, "a new dialog after the holder was killed", func() bool {
		for _, pid := range h.LiveDialogs() {
			if pid != first {
				second = pid
				return true
			}
		}
		return false
	})
	t.Logf("new dialog process %d %s after the kill", second, time.Since(killedAt))
	e2e.Eventually(t, 30*time.Second, "the orphaned dialog to be gone", func() bool { return !e2e.ProcessAlive(first) })
	h.WaitShown(1)
	h.Answer("approve")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Attempt != 2 {
		t.Fatalf("attempt %d, want 2", o.Res.Attempt)
	}
}

// A holder killed while nobody waits leaves its dialog behind; cancel ends
// the request and closes that orphaned dialog too.
func TestLifecycleCancelClosesOrphanedDialog(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	h.Expect(h.Run("--json", "--wait", "0", "--key", "orphan", "--message", "left behind"), 3, lifecycle.StatusPending)
	dialog := h.WaitShown(1)[0]
	e2e.Must(t, syscall.Kill(h.FakeHolder(dialog), syscall.SIGKILL))
	if !e2e.ProcessAlive(dialog) {
		t.Fatal("the dialog died with its holder; nothing to test")
	}
	o := h.Run("cancel", "orphan")
	if o.Code != 0 || !strings.Contains(o.Stdout, "cancelled") {
		t.Fatalf("cancel: %d %s %s", o.Code, o.Stdout, o.Stderr)
	}
	e2e.Eventually(t, 30*time.Second, "the orphaned dialog to be closed", func() bool { return !e2e.ProcessAlive(dialog) })
	if st := h.Status("orphan"); st.Status != lifecycle.StatusCancelled {
		t.Fatalf("status after cancel: %+v", st)
	}
}
