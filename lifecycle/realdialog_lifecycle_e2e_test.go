//go:build e2e && unix

package lifecycle_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Real-dialog tests of the request lifecycle: render failure, holder death,
// supersede, cancel, forget, list, status and history.

func TestRealDialogBrokenBackendExits6ThenRecovers(t *testing.T) {
	h := e2e.NewRealHarness(t)
	broken := filepath.Join(h.Dir, "broken")
	e2e.Must(t, os.Mkdir(broken, 0o700))
	e2e.Must(t, os.WriteFile(filepath.Join(broken, "zenity"), []byte("#!/bin/sh\necho 'zenity: cannot load GTK' >&2\nexit 255\n"), 0o700))
	realEnv := h.Env
	// However slowly a loaded machine runs the script, its exit is a
	// dialog that never rendered: no "shown" event, no Rendered.
	h.NothingRenders()
	h.Env = e2e.PrependPath(h.Env, broken)
	args := []string{"--json", "--title", h.Title("RD-broken"), "--message", "Backend is broken"}
	o := h.Run(args...)
	h.Expect(o, 6, lifecycle.StatusFailed)
	if o.Res.Attempt != 3 || o.Res.Rendered || !strings.Contains(o.Res.Message, "cannot load GTK") {
		t.Fatalf("want 3 attempts and the backend's reason: %+v", o.Res)
	}
	if got := h.Events(o.Res.Key); !reflect.DeepEqual(got, []string{"requested", "failed", "requested", "failed", "requested", "failed"}) {
		t.Fatalf("history: %v", got)
	}

	// Not stuck: with the backend repaired, the same command asks again.
	h.Env = realEnv
	r := h.Start(args...)
	h.Click(h.Title("RD-broken"), "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}

func TestRealDialogHolderKilledWhileCallerWaits(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-kill")
	r := h.Start("--json", "--title", title, "--message", "Killed holder")
	w := h.WaitWindow(title)
	oldDialog := e2e.Xdotool(t, "getwindowpid", w)
	rec := h.OnlyRecord()
	e2e.Must(t, syscall.Kill(rec.HolderPID, syscall.SIGKILL))
	killed := time.Now()

	// Never two windows; within about a second a new dialog process owns it.
	e2e.Eventually(t, 30*time.Second, "a new dialog after the holder was killed", func() bool {
		ws := h.Windows(title)
		if len(ws) > 1 {
			t.Fatalf("%d windows at once for one request", len(ws))
		}
		if len(ws) != 1 {
			return false
		}
		pid := e2e.XdotoolMaybe("getwindowpid", ws[0])
		return pid != "" && pid != oldDialog
	})
	t.Logf("new window %s after the holder was killed", time.Since(killed))
	if pid, _ := strconv.Atoi(oldDialog); e2e.ProcessAlive(pid) {
		t.Fatalf("the killed holder's dialog (pid %d) is still running", pid)
	}
	h.Click(title, "approve")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	h.ExpectAttempts(o.Res, 2)
}

func TestRealDialogSupersedeByKey(t *testing.T) {
	h := e2e.NewRealHarness(t)
	oldTitle, newTitle := h.Title("RD-old"), h.Title("RD-new")
	old := h.Start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?")
	h.WaitWindow(oldTitle)
	st := h.Status("release")
	if st.Status != lifecycle.StatusPending {
		t.Fatalf("status before supersede: %+v", st)
	}

	// Same key, same content: joins, no second window.
	joined := h.Start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?")
	time.Sleep(700 * time.Millisecond)
	if n := len(h.Windows(oldTitle)); n != 1 {
		t.Fatalf("%d windows after joining", n)
	}

	newer := h.Start("--json", "--key", "release", "--title", newTitle, "--message", "Tag v2 instead?")
	h.Expect(old.Wait(30*time.Second), 7, lifecycle.StatusSuperseded)
	h.Expect(joined.Wait(30*time.Second), 7, lifecycle.StatusSuperseded)
	h.WaitNoWindow(oldTitle, 30*time.Second)
	h.Click(newTitle, "approve")
	o := newer.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if got := e2e.DropSupersededCollection(h.EventsBesideRenderRetries(o.Res.Key)); !reflect.DeepEqual(got, []string{"requested", "shown", "superseded", "requested", "shown", "answered", "collected"}) {
		t.Fatalf("history: %v", got)
	}
	if st := h.Status("release"); st.Status != lifecycle.StatusApproved || st.ExitCode != 0 {
		t.Fatalf("status after approval: %+v", st)
	}
}

func TestRealDialogCancelCommand(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-cancelcmd")
	args := []string{"--json", "--title", title, "--message", "Cancel me from outside"}
	waiter := h.Start(args...)
	h.WaitWindow(title)
	// The holder records "shown" once the dialog program has run for a
	// moment (150 ms), which may be just after the window maps.
	var list []lifecycle.Entry
	e2e.Eventually(t, 30*time.Second, "list to show the open request as shown", func() bool {
		list = h.List()
		return len(list) == 1 && list[0].Status == "shown"
	})
	if !list[0].HolderAlive || list[0].Title != title {
		t.Fatalf("list while open: %+v", list)
	}
	o := h.Run("cancel", list[0].Identity[:8])
	if o.Code != 0 || !strings.Contains(o.Stdout, "cancelled") {
		t.Fatalf("cancel: %d %s %s", o.Code, o.Stdout, o.Stderr)
	}
	h.WaitNoWindow(title, 30*time.Second)
	w := waiter.Wait(30 * time.Second)
	h.Expect(w, 1, lifecycle.StatusCancelled)
	if st := h.Status(list[0].Identity); st.Status != lifecycle.StatusCancelled || st.ExitCode != 1 {
		t.Fatalf("status after cancel: %+v", st)
	}
	if got := h.EventsBesideRenderRetries(w.Res.Key); !reflect.DeepEqual(got, []string{"requested", "shown", "cancelled", "collected"}) {
		t.Fatalf("history: %v", got)
	}

	// Not stuck: forget the cancellation and the same command asks again.
	h.Run("forget", list[0].Identity)
	r := h.Start(args...)
	h.Click(title, "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}

func TestRealDialogForgetShowsANewDialog(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-forget")
	args := []string{"--json", "--title", title, "--message", "Remember me?"}
	r := h.Start(args...)
	h.Click(title, "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
	o := h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("second ask not remembered: %+v", o.Res)
	}

	f := h.Run("forget", "--all")
	if f.Code != 0 || !strings.Contains(f.Stdout, "forgot 1") {
		t.Fatalf("forget: %d %q %q", f.Code, f.Stdout, f.Stderr)
	}
	if l := h.List(); len(l) != 0 {
		t.Fatalf("list after forget: %+v", l)
	}
	r = h.Start(args...)
	h.WaitWindow(title) // a new dialog, not the remembered answer
	h.Click(title, "cancel")
	o = r.Wait(30 * time.Second)
	h.Expect(o, 1, lifecycle.StatusDenied)
	if got := h.EventsBesideRenderRetries(o.Res.Key); !reflect.DeepEqual(got, []string{"requested", "shown", "answered", "collected", "reused", "requested", "shown", "answered", "collected"}) {
		t.Fatalf("history: %v", got)
	}
}

// --- helpers for the operator commands ---
