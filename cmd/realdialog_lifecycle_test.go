//go:build e2e && unix

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	"github.com/ask-confirm/ask-confirm/store"
)

// Real-dialog tests of the request lifecycle: render failure, holder death,
// supersede, cancel, forget, list, status and history.

func TestRealDialogBrokenBackendExits6ThenRecovers(t *testing.T) {
	h := newRealHarness(t)
	broken := filepath.Join(h.dir, "broken")
	must(t, os.Mkdir(broken, 0o700))
	must(t, os.WriteFile(filepath.Join(broken, "zenity"), []byte("#!/bin/sh\necho 'zenity: cannot load GTK' >&2\nexit 255\n"), 0o700))
	realEnv := h.env
	// However slowly a loaded machine runs the script, its exit is a
	// dialog that never rendered: no "shown" event, no Rendered.
	h.nothingRenders()
	h.env = prependPath(h.env, broken)
	args := []string{"--json", "--title", h.title("RD-broken"), "--message", "Backend is broken"}
	o := h.run(args...)
	h.expect(o, 6, lifecycle.StatusFailed)
	if o.res.Attempt != 3 || o.res.Rendered || !strings.Contains(o.res.Message, "cannot load GTK") {
		t.Fatalf("want 3 attempts and the backend's reason: %+v", o.res)
	}
	if got := h.events(o.res.Key); !reflect.DeepEqual(got, []string{"requested", "failed", "requested", "failed", "requested", "failed"}) {
		t.Fatalf("history: %v", got)
	}

	// Not stuck: with the backend repaired, the same command asks again.
	h.env = realEnv
	r := h.start(args...)
	h.click(h.title("RD-broken"), "approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
}

func TestRealDialogHolderKilledWhileCallerWaits(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-kill")
	r := h.start("--json", "--title", title, "--message", "Killed holder")
	w := h.waitWindow(title)
	oldDialog := xdotool(t, "getwindowpid", w)
	rec := h.onlyRecord()
	must(t, syscall.Kill(rec.HolderPID, syscall.SIGKILL))
	killed := time.Now()

	// Never two windows; within about a second a new dialog process owns it.
	eventually(t, 30*time.Second, "a new dialog after the holder was killed", func() bool {
		ws := h.windows(title)
		if len(ws) > 1 {
			t.Fatalf("%d windows at once for one request", len(ws))
		}
		if len(ws) != 1 {
			return false
		}
		pid := xdotoolMaybe("getwindowpid", ws[0])
		return pid != "" && pid != oldDialog
	})
	t.Logf("new window %s after the holder was killed", time.Since(killed))
	if pid, _ := strconv.Atoi(oldDialog); processAlive(pid) {
		t.Fatalf("the killed holder's dialog (pid %d) is still running", pid)
	}
	h.click(title, "approve")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	h.expectAttempts(o.res, 2)
}

func TestRealDialogSupersedeByKey(t *testing.T) {
	h := newRealHarness(t)
	oldTitle, newTitle := h.title("RD-old"), h.title("RD-new")
	old := h.start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?")
	h.waitWindow(oldTitle)
	st := h.status("release")
	if st.Status != lifecycle.StatusPending {
		t.Fatalf("status before supersede: %+v", st)
	}

	// Same key, same content: joins, no second window.
	joined := h.start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?")
	time.Sleep(700 * time.Millisecond)
	if n := len(h.windows(oldTitle)); n != 1 {
		t.Fatalf("%d windows after joining", n)
	}

	newer := h.start("--json", "--key", "release", "--title", newTitle, "--message", "Tag v2 instead?")
	h.expect(old.wait(30*time.Second), 7, lifecycle.StatusSuperseded)
	h.expect(joined.wait(30*time.Second), 7, lifecycle.StatusSuperseded)
	h.waitNoWindow(oldTitle, 30*time.Second)
	h.click(newTitle, "approve")
	o := newer.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if got := dropSupersededCollection(h.eventsBesideRenderRetries(o.res.Key)); !reflect.DeepEqual(got, []string{"requested", "shown", "superseded", "requested", "shown", "answered", "collected"}) {
		t.Fatalf("history: %v", got)
	}
	if st := h.status("release"); st.Status != lifecycle.StatusApproved || st.ExitCode != 0 {
		t.Fatalf("status after approval: %+v", st)
	}
}

func TestRealDialogCancelCommand(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-cancelcmd")
	args := []string{"--json", "--title", title, "--message", "Cancel me from outside"}
	waiter := h.start(args...)
	h.waitWindow(title)
	// The holder records "shown" once the dialog program has run for a
	// moment (150 ms), which may be just after the window maps.
	var list []lifecycle.Entry
	eventually(t, 30*time.Second, "list to show the open request as shown", func() bool {
		list = h.list()
		return len(list) == 1 && list[0].Status == "shown"
	})
	if !list[0].HolderAlive || list[0].Title != title {
		t.Fatalf("list while open: %+v", list)
	}
	o := h.run("cancel", list[0].Identity[:8])
	if o.code != 0 || !strings.Contains(o.stdout, "cancelled") {
		t.Fatalf("cancel: %d %s %s", o.code, o.stdout, o.stderr)
	}
	h.waitNoWindow(title, 30*time.Second)
	w := waiter.wait(30 * time.Second)
	h.expect(w, 1, lifecycle.StatusCancelled)
	if st := h.status(list[0].Identity); st.Status != lifecycle.StatusCancelled || st.ExitCode != 1 {
		t.Fatalf("status after cancel: %+v", st)
	}
	if got := h.eventsBesideRenderRetries(w.res.Key); !reflect.DeepEqual(got, []string{"requested", "shown", "cancelled", "collected"}) {
		t.Fatalf("history: %v", got)
	}

	// Not stuck: forget the cancellation and the same command asks again.
	h.run("forget", list[0].Identity)
	r := h.start(args...)
	h.click(title, "approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
}

func TestRealDialogForgetShowsANewDialog(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-forget")
	args := []string{"--json", "--title", title, "--message", "Remember me?"}
	r := h.start(args...)
	h.click(title, "approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
	o := h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("second ask not remembered: %+v", o.res)
	}

	f := h.run("forget", "--all")
	if f.code != 0 || !strings.Contains(f.stdout, "forgot 1") {
		t.Fatalf("forget: %d %q %q", f.code, f.stdout, f.stderr)
	}
	if l := h.list(); len(l) != 0 {
		t.Fatalf("list after forget: %+v", l)
	}
	r = h.start(args...)
	h.waitWindow(title) // a new dialog, not the remembered answer
	h.click(title, "cancel")
	o = r.wait(30 * time.Second)
	h.expect(o, 1, lifecycle.StatusDenied)
	if got := h.eventsBesideRenderRetries(o.res.Key); !reflect.DeepEqual(got, []string{"requested", "shown", "answered", "collected", "reused", "requested", "shown", "answered", "collected"}) {
		t.Fatalf("history: %v", got)
	}
}

// --- helpers for the operator commands ---

func prependPath(env []string, dir string) []string {
	out := withoutEnv(env, "PATH")
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			out = append(out, "PATH="+dir+string(filepath.ListSeparator)+strings.TrimPrefix(kv, "PATH="))
		}
	}
	return out
}

// onlyRecord returns the single record in the store.
func (h *harness) onlyRecord() store.Record {
	h.t.Helper()
	recs, err := store.New(filepath.Join(h.dir, "cache", "ask-confirm", "answers.db")).List()
	must(h.t, err)
	if len(recs) != 1 {
		h.t.Fatalf("%d records in the store, want 1", len(recs))
	}
	return recs[0]
}

// expectAttempts checks that the request of r took want attempts, plus one
// for each time GNOME zenity died by itself before its window appeared and
// the holder showed the dialog again, as the history records it. Real zenity
// does that now and then (DESIGN.md), more often on a busy machine; any
// other extra attempt fails the test.
func (h *harness) expectAttempts(r lifecycle.Result, want int) {
	h.t.Helper()
	retried := 0
	for _, e := range h.history() {
		if e["identity"] == r.Key && e["event"] == "failed" && e["reason"] == "the dialog program exited before its window could appear" {
			retried++
		}
	}
	if r.Attempt != want+retried {
		h.t.Fatalf("attempt %d, want %d and %d render retries", r.Attempt, want, retried)
	}
	if retried > 0 {
		h.t.Logf("zenity died before its window appeared %d times; the holder showed the dialog again", retried)
	}
}

// events returns the kinds of the history events of one identity, in order.
// A waiter can read the answer in the store, and record that it collected
// it, before the holder has appended the "answered" line of that answer:
// such a "collected" is put after the end it collected.
func (h *harness) events(identity string) []string {
	var kinds []string
	for _, e := range h.history() {
		if e["identity"] != identity {
			continue
		}
		k := e["event"].(string)
		if n := len(kinds); n > 0 && kinds[n-1] == "collected" && endEvent(k) {
			kinds[n-1], k = k, "collected"
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// dropSupersededCollection leaves out the "collected" that follows a
// "superseded": the older request's waiter records it when it reads its
// request ended as superseded, and not when it reads the newer request
// already in its place. Both are right; which one happens is timing.
func dropSupersededCollection(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if n := len(out); k == "collected" && n > 0 && out[n-1] == "superseded" {
			continue
		}
		out = append(out, k)
	}
	return out
}

// endEvent reports whether a history event ends a request with an answer.
func endEvent(kind string) bool {
	switch kind {
	case "answered", "expired", "cancelled", "superseded":
		return true
	}
	return false
}

// eventsBesideRenderRetries is events without the render failures the
// product retried by itself. GNOME zenity now and then exits on its own
// within 0.4 s of starting, before or after the holder marked it shown; the
// holder records that as "failed" and the waiter asks again ("requested").
// That retry is ask-confirm working as designed, and the tests using this
// are about everything else.
func (h *harness) eventsBesideRenderRetries(identity string) []string {
	var kinds []string
	for _, k := range h.events(identity) {
		if n := len(kinds); k == "requested" && n >= 2 && kinds[n-1] == "failed" {
			// Drop the failed attempt's "shown", if any, and "failed";
			// the retry's "requested" stands in for the first one.
			kinds = kinds[:n-1]
			if kinds[n-2] == "shown" {
				kinds = kinds[:n-2]
			}
			continue
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// status runs ask-confirm status KEY --json and checks that its exit code
// matches the exit_code it printed.
func (h *harness) status(key string) lifecycle.Result {
	h.t.Helper()
	o := h.run("status", key, "--json")
	if int(o.res.ExitCode) != o.code {
		h.t.Fatalf("status exit code %d but exit_code %d: %s %s", o.code, o.res.ExitCode, o.stdout, o.stderr)
	}
	return o.res
}

func (h *harness) list() []lifecycle.Entry {
	h.t.Helper()
	o := h.run("list", "--json")
	if o.code != 0 {
		h.t.Fatalf("list: %d %s", o.code, o.stderr)
	}
	var entries []lifecycle.Entry
	must(h.t, json.Unmarshal([]byte(o.stdout), &entries))
	return entries
}
