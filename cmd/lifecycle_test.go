//go:build e2e && unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Lifecycle tests with the scripted zenity: the real holder process, the
// real store and locks, and a dialog program the test controls.

func TestLifecycleApproveAndDeny(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	r := h.start("--json", "--message", "approve me")
	h.waitShown(1)
	h.answer("approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)

	r = h.start("--json", "--message", "deny me")
	h.waitShown(1)
	h.answer("cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestLifecycleRenderFailureRetriesThenExits6(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	h.nothingRenders()
	must(t, os.WriteFile(filepath.Join(h.fakeDir, "broken"), nil, 0o600))
	o := h.run("--json", "--retries", "2", "--message", "never renders")
	h.expect(o, 6, lifecycle.StatusFailed)
	if o.res.Attempt != 3 || o.res.Rendered || o.res.ShouldRetry {
		t.Fatalf("after 2 retries: %+v", o.res)
	}
	if !strings.Contains(o.res.Message, "before its window could appear") {
		t.Fatalf("failure reason missing: %q", o.res.Message)
	}
	if n := len(h.fakeCalls()); n != 3 {
		t.Fatalf("dialog program started %d times, want 3", n)
	}
	if n := h.countEvents("failed"); n != 3 {
		t.Fatalf("history holds %d failed events, want 3", n)
	}
}

// A holder SIGKILLed while its dialog is up: the waiting caller notices at
// once, a new dialog replaces the orphaned one, and the approval reaches the
// same caller.
func TestLifecycleHolderKilledWhileShown(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	r := h.start("--json", "--message", "survive a holder kill")
	first := h.waitShown(1)[0]
	holder := h.fakeHolder(first)
	killedAt := time.Now()
	must(t, syscall.Kill(holder, syscall.SIGKILL))

	var second int
	eventually(t, 30*time.Second, "a new dialog after the holder was killed", func() bool {
		for _, pid := range h.liveDialogs() {
			if pid != first {
				second = pid
				return true
			}
		}
		return false
	})
	t.Logf("new dialog process %d %s after the kill", second, time.Since(killedAt))
	eventually(t, 30*time.Second, "the orphaned dialog to be gone", func() bool { return !processAlive(first) })
	h.waitShown(1)
	h.answer("approve")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Attempt != 2 {
		t.Fatalf("attempt %d, want 2", o.res.Attempt)
	}
}

// A holder killed while nobody waits leaves its dialog behind; cancel ends
// the request and closes that orphaned dialog too.
func TestLifecycleCancelClosesOrphanedDialog(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	h.expect(h.run("--json", "--wait", "0", "--key", "orphan", "--message", "left behind"), 3, lifecycle.StatusPending)
	dialog := h.waitShown(1)[0]
	must(t, syscall.Kill(h.fakeHolder(dialog), syscall.SIGKILL))
	if !processAlive(dialog) {
		t.Fatal("the dialog died with its holder; nothing to test")
	}
	o := h.run("cancel", "orphan")
	if o.code != 0 || !strings.Contains(o.stdout, "cancelled") {
		t.Fatalf("cancel: %d %s %s", o.code, o.stdout, o.stderr)
	}
	eventually(t, 30*time.Second, "the orphaned dialog to be closed", func() bool { return !processAlive(dialog) })
	if st := h.status("orphan"); st.Status != lifecycle.StatusCancelled {
		t.Fatalf("status after cancel: %+v", st)
	}
}
