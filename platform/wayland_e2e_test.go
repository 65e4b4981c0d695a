//go:build e2e && linux

package platform_test

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// These tests show real GNOME zenity dialogs on a headless sway, with
// DISPLAY unset, and answer them from the keyboard through wtype, as a
// person at a Wayland desktop would (internal/e2e/wayland.go). scripts/test
// starts the compositor for them.

func TestWaylandApprove(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-approve")
	r := w.Start("--json", "--title", title, "--message", "Ship v2 to production?")
	win := w.WaitWindow(title)
	if win.AppID != "zenity" {
		t.Fatalf("the dialog is %v, want zenity's app_id", win)
	}
	w.Approve(title)
	o := r.Wait(30 * time.Second)
	w.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Remembered || !o.Res.Rendered || o.Res.AnsweredAt.IsZero() || len(o.Res.Key) != 64 {
		t.Fatalf("unexpected fields: %+v", o.Res)
	}
	w.WaitNoWindow(title, 30*time.Second)
}

func TestWaylandEscapeDenies(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-esc")
	r := w.Start("--json", "--title", title, "--message", "Rotate the keys?")
	w.Deny(title)
	w.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestWaylandEnterPressesCancelByDefault(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-enter")
	r := w.Start("--json", "--title", title, "--message", "Enter must not approve")
	w.Key(title, "Return")
	w.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

// A slow person: the caller gives up with 3, the dialog stays, and the
// answer is collected by running the same command again, without a second
// window.
func TestWaylandPendingThenCollect(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-pending")
	args := []string{"--json", "--wait", "2s", "--title", title, "--message", "Deploy when ready?"}
	o := w.Run(args...)
	w.Expect(o, 3, lifecycle.StatusPending)
	if !o.Res.ShouldRetry || !o.Res.AnsweredAt.IsZero() {
		t.Fatalf("pending result: %+v", o.Res)
	}
	w.WaitWindow(title) // still on screen
	w.Approve(title)
	w.WaitAnswered()

	o = w.Run(args...)
	w.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("collected answer not marked remembered: %+v", o.Res)
	}
	if ws := w.Windows(title); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := w.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// A holder killed mid-dialog takes its window with it; the waiting caller
// shows the dialog again at once, in a new window of a new process, never
// two at a time, and the approval given there reaches it.
func TestWaylandHolderKilledWhileCallerWaits(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-kill")
	r := w.Start("--json", "--title", title, "--message", "Killed holder")
	old := w.WaitWindow(title)
	rec := w.OnlyRecord()
	e2e.Must(t, syscall.Kill(rec.HolderPID, syscall.SIGKILL))
	killed := time.Now()

	var now e2e.WlWindow
	e2e.Eventually(t, 30*time.Second, "a new window after the holder was killed", func() bool {
		ws := w.Windows(title)
		if len(ws) > 1 {
			t.Fatalf("%d windows at once for one request: %v", len(ws), ws)
		}
		if len(ws) != 1 || ws[0].PID == old.PID {
			return false
		}
		now = ws[0]
		return true
	})
	t.Logf("new window %v %s after the holder was killed", now, time.Since(killed).Round(time.Millisecond))
	if e2e.ProcessAlive(old.PID) {
		t.Fatalf("the killed holder's dialog (pid %d) is still running", old.PID)
	}
	w.Approve(title)
	o := r.Wait(30 * time.Second)
	w.Expect(o, 0, lifecycle.StatusApproved)
	w.ExpectAttempts(o.Res, 2)
}

// doctor reports the Wayland session, its display as the environment names
// it, and GNOME zenity's version, which it asks for over Wayland.
func TestWaylandDoctor(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	o, rep := e2e.DoctorJSON(w.Harness)
	if o.Code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.Code, o.Stdout, o.Stderr)
	}
	want := map[string]any{
		"can_ask": true,
		"session": "wayland",
		"display": "WAYLAND_DISPLAY=" + os.Getenv(e2e.WaylandDisplayEnv),
		"backend": "zenity",
	}
	for k, v := range want {
		if rep[k] != v {
			t.Errorf("%s = %v, want %v", k, rep[k], v)
		}
	}
	if v, _ := rep["backend_version"].(string); !strings.HasPrefix(v, "3.") {
		t.Errorf("backend_version = %q, want GNOME zenity's 3.x", v)
	}
	notes, _ := rep["notes"].([]any)
	found := false
	for _, n := range notes {
		found = found || strings.Contains(n.(string), "Wayland only")
	}
	if !found {
		t.Errorf("no note that this is a Wayland-only session: %v", notes)
	}
	t.Logf("doctor: session %v, display %v, %v %v", rep["session"], rep["display"], rep["backend"], rep["backend_version"])
}

// The window shows the message. Without OCR this is shown three ways: the
// text zenity was given (its command line) is the message; the window's
// pixels on the compositor's output are a drawn dialog, not the background
// left when it closes; and they are a function of the message: the same
// request shown again (under another scope, which the dialog does not
// show) gives the very same pixels, and a different message different ones.
func TestWaylandScreenshotShowsTheMessage(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-shot")
	show := func(scope, message string) (e2e.WlWindow, *image.RGBA) {
		t.Helper()
		r := w.Start("--json", "--no-origin", "--scope", scope, "--title", title, "--message", message)
		win := w.WaitStable(title)
		if text := e2e.DialogText(t, title); text != message {
			t.Fatalf("zenity shows %q, want %q", text, message)
		}
		shot := w.Screenshot(win.Rect)
		w.Deny(title)
		w.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
		w.WaitNoWindow(title, 30*time.Second)
		return win, shot
	}

	winA, shotA := show("first", "Ship v2 to production?")
	background := w.Screenshot(winA.Rect)
	if n := e2e.Colours(background); n != 1 {
		t.Fatalf("the place the window was holds %d colours once it closed, want the plain background", n)
	}
	if n := e2e.Colours(shotA); n < 16 || e2e.SamePixels(shotA, background) {
		t.Fatalf("the window %v shows %d colours: not a drawn dialog", winA, n)
	}
	t.Logf("window %v: %d colours", winA, e2e.Colours(shotA))

	winB, shotB := show("second", "Drop the users table now?")
	winA2, shotA2 := show("third", "Ship v2 to production?")
	if winA2.Rect.Size() != winA.Rect.Size() || !e2e.SamePixels(shotA, shotA2) {
		t.Fatalf("the same message looks different the second time: %v, then %v", winA, winA2)
	}
	if e2e.SamePixels(shotA, shotB) {
		t.Fatalf("two messages drew the same pixels: %v and %v", winA, winB)
	}
}

// The origin line: a script named deploy.sh that runs ask-confirm puts
// "Asked by deploy.sh in <its directory> · closes at HH:MM" under the
// question, which makes the window taller than the same question without it
// (--no-origin, in another scope: the origin is no part of the identity),
// and the answer given is collected by another process.
func TestWaylandShowsWhoAsks(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-origin")
	script := filepath.Join(w.Work, "deploy.sh")
	e2e.Must(t, os.WriteFile(script, []byte("#!/bin/sh\nask-confirm --json --wait 1s --title \"$1\" --message 'Ship v2?'\n"), 0o700))
	deploy := exec.Command(script, title)
	deploy.Env, deploy.Dir = w.Env, w.Work
	var out bytes.Buffer
	deploy.Stdout = &out
	if code := e2e.ExitCode(t, deploy.Run()); code != int(lifecycle.ExitPending) {
		t.Fatalf("deploy.sh: exit %d, want 3 (pending): %s", code, out.String())
	}

	win := w.WaitStable(title)
	e2e.ExpectOriginLine(t, title, "Ship v2?", w.Work)
	w.Approve(title)
	w.WaitAnswered()

	// The same command from this test process, not deploy.sh.
	w.ExpectCollectedByAnother(title, "Ship v2?")

	r := w.Start("--json", "--no-origin", "--scope", "without-origin", "--title", title, "--message", "Ship v2?")
	bare := w.WaitStable(title)
	if text := e2e.DialogText(t, title); text != "Ship v2?" {
		t.Fatalf("with --no-origin the dialog shows %q", text)
	}
	w.Deny(title)
	w.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if win.Rect.Dy() <= bare.Rect.Dy() {
		t.Fatalf("the window with the origin line is %d px high, without it %d", win.Rect.Dy(), bare.Rect.Dy())
	}
	t.Logf("with the origin line %v, without %v", win.Rect.Size(), bare.Rect.Size())
}

// The agent hooks on Wayland: Claude Code's and Codex's permission requests
// are allowed from the keyboard, and Escape denies.
func TestWaylandHook(t *testing.T) {
	cases := []struct {
		hh   e2e.HookHost
		deny bool
	}{
		{e2e.RealHookHosts[0], false}, // claude-code PermissionRequest
		{e2e.RealHookHosts[1], true},  // claude-code PreToolUse
		{e2e.RealHookHosts[2], false}, // codex PermissionRequest
		{e2e.RealHookHosts[2], true},
	}
	for _, c := range cases {
		verb := map[bool]string{false: "allow", true: "deny"}[c.deny]
		t.Run(c.hh.Name+" "+verb, func(t *testing.T) {
			w := e2e.NewWaylandHarness(t)
			call := e2e.NewHookCall(w.Harness, c.hh, "WL-hook", "make deploy")
			r := call.Start(w.Harness, "--wait", "60s")
			if c.deny {
				w.Deny(call.Title)
			} else {
				w.Approve(call.Title)
			}
			v, reason := call.Verdict(t, r.Wait(30*time.Second))
			if v != verb {
				t.Fatalf("the host was told %s %q, want %s", v, reason, verb)
			}
			if c.deny && reason != "denied in the ask-confirm dialog" {
				t.Fatalf("deny reason %q", reason)
			}
			w.WaitNoWindow(call.Title, 30*time.Second)
		})
	}
}

// ssh-agent asks ask-confirm-askpass to confirm each use of a key added
// with ssh-add -c: on Wayland, Approve makes a signature that verifies and
// Escape makes none. Debian 12's OpenSSH (9.2) runs SSH_ASKPASS only when
// DISPLAY is set, whatever WAYLAND_DISPLAY says, so a Wayland-only session
// sets SSH_ASKPASS_REQUIRE=force in the agent's environment, as here.
func TestWaylandAskpass(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	a := e2e.NewSSHAgent(t, w.Harness, "SSH_ASKPASS_REQUIRE=force")

	a.ExpectSigned(t, "approved", true, func() { w.Approve(e2e.AskpassTitle) })
	a.ExpectSigned(t, "escaped", false, func() { w.Deny(e2e.AskpassTitle) })
	if n := w.CountEvents("answered"); n != 2 {
		t.Fatalf("%d answered events for two key uses, want 2", n)
	}
}

// choose on Wayland: typing finds the option, Enter picks it, and the label
// alone reaches stdout.
func TestWaylandChoose(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-choose")
	r := w.Start("choose", "--title", title, "--message", "Deploy to?",
		"--option", "staging=the staging cluster", "--option", "production", "--option", "qa")
	w.TypeText(title, "prod")
	w.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	if o.Code != 0 || o.Stdout != "production\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the label; stderr %s", o.Code, o.Stdout, o.Stderr)
	}
}

// input on Wayland: the typed text reaches stdout, and Escape cancels.
func TestWaylandInput(t *testing.T) {
	w := e2e.NewWaylandHarness(t)
	title := w.Title("WL-input")
	r := w.Start("input", "--title", title, "--message", "Name of the release?")
	w.TypeText(title, "v2.1-rc")
	w.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	if o.Code != 0 || o.Stdout != "v2.1-rc\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the text; stderr %s", o.Code, o.Stdout, o.Stderr)
	}
	r = w.Start("input", "--json", "--title", title, "--message", "Another name?")
	w.Deny(title)
	w.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}
