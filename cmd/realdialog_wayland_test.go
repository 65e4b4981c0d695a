//go:build e2e && linux

package cmd

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

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// These tests show real GNOME zenity dialogs on a headless sway, with
// DISPLAY unset, and answer them from the keyboard through wtype, as a
// person at a Wayland desktop would (wayland_harness_test.go). scripts/test
// starts the compositor for them.

func TestWaylandApprove(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-approve")
	r := w.start("--json", "--title", title, "--message", "Ship v2 to production?")
	win := w.waitWindow(title)
	if win.AppID != "zenity" {
		t.Fatalf("the dialog is %v, want zenity's app_id", win)
	}
	w.approve(title)
	o := r.wait(30 * time.Second)
	w.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Remembered || !o.res.Rendered || o.res.AnsweredAt.IsZero() || len(o.res.Key) != 64 {
		t.Fatalf("unexpected fields: %+v", o.res)
	}
	w.waitNoWindow(title, 30*time.Second)
}

func TestWaylandEscapeDenies(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-esc")
	r := w.start("--json", "--title", title, "--message", "Rotate the keys?")
	w.deny(title)
	w.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestWaylandEnterPressesCancelByDefault(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-enter")
	r := w.start("--json", "--title", title, "--message", "Enter must not approve")
	w.key(title, "Return")
	w.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

// A slow person: the caller gives up with 3, the dialog stays, and the
// answer is collected by running the same command again, without a second
// window.
func TestWaylandPendingThenCollect(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-pending")
	args := []string{"--json", "--wait", "2s", "--title", title, "--message", "Deploy when ready?"}
	o := w.run(args...)
	w.expect(o, 3, lifecycle.StatusPending)
	if !o.res.ShouldRetry || !o.res.AnsweredAt.IsZero() {
		t.Fatalf("pending result: %+v", o.res)
	}
	w.waitWindow(title) // still on screen
	w.approve(title)
	w.waitAnswered()

	o = w.run(args...)
	w.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("collected answer not marked remembered: %+v", o.res)
	}
	if ws := w.windows(title); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := w.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// A holder killed mid-dialog takes its window with it; the waiting caller
// shows the dialog again at once, in a new window of a new process, never
// two at a time, and the approval given there reaches it.
func TestWaylandHolderKilledWhileCallerWaits(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-kill")
	r := w.start("--json", "--title", title, "--message", "Killed holder")
	old := w.waitWindow(title)
	rec := w.onlyRecord()
	must(t, syscall.Kill(rec.HolderPID, syscall.SIGKILL))
	killed := time.Now()

	var now wlWindow
	eventually(t, 30*time.Second, "a new window after the holder was killed", func() bool {
		ws := w.windows(title)
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
	if processAlive(old.PID) {
		t.Fatalf("the killed holder's dialog (pid %d) is still running", old.PID)
	}
	w.approve(title)
	o := r.wait(30 * time.Second)
	w.expect(o, 0, lifecycle.StatusApproved)
	w.expectAttempts(o.res, 2)
}

// doctor reports the Wayland session, its display as the environment names
// it, and GNOME zenity's version, which it asks for over Wayland.
func TestWaylandDoctor(t *testing.T) {
	w := newWaylandHarness(t)
	o, rep := doctorJSON(w.harness)
	if o.code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
	want := map[string]any{
		"can_ask": true,
		"session": "wayland",
		"display": "WAYLAND_DISPLAY=" + os.Getenv(waylandDisplayEnv),
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
	w := newWaylandHarness(t)
	title := w.title("WL-shot")
	show := func(scope, message string) (wlWindow, *image.RGBA) {
		t.Helper()
		r := w.start("--json", "--no-origin", "--scope", scope, "--title", title, "--message", message)
		win := w.waitStable(title)
		if text := dialogText(t, title); text != message {
			t.Fatalf("zenity shows %q, want %q", text, message)
		}
		shot := w.screenshot(win.Rect)
		w.deny(title)
		w.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
		w.waitNoWindow(title, 30*time.Second)
		return win, shot
	}

	winA, shotA := show("first", "Ship v2 to production?")
	background := w.screenshot(winA.Rect)
	if n := colours(background); n != 1 {
		t.Fatalf("the place the window was holds %d colours once it closed, want the plain background", n)
	}
	if n := colours(shotA); n < 16 || samePixels(shotA, background) {
		t.Fatalf("the window %v shows %d colours: not a drawn dialog", winA, n)
	}
	t.Logf("window %v: %d colours", winA, colours(shotA))

	winB, shotB := show("second", "Drop the users table now?")
	winA2, shotA2 := show("third", "Ship v2 to production?")
	if winA2.Rect.Size() != winA.Rect.Size() || !samePixels(shotA, shotA2) {
		t.Fatalf("the same message looks different the second time: %v, then %v", winA, winA2)
	}
	if samePixels(shotA, shotB) {
		t.Fatalf("two messages drew the same pixels: %v and %v", winA, winB)
	}
}

// The origin line: a script named deploy.sh that runs ask-confirm puts
// "Asked by deploy.sh in <its directory> · closes at HH:MM" under the
// question, which makes the window taller than the same question without it
// (--no-origin, in another scope: the origin is no part of the identity),
// and the answer given is collected by another process.
func TestWaylandShowsWhoAsks(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-origin")
	script := filepath.Join(w.work, "deploy.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\nask-confirm --json --wait 1s --title \"$1\" --message 'Ship v2?'\n"), 0o700))
	deploy := exec.Command(script, title)
	deploy.Env, deploy.Dir = w.env, w.work
	var out bytes.Buffer
	deploy.Stdout = &out
	if code := exitCode(t, deploy.Run()); code != int(lifecycle.ExitPending) {
		t.Fatalf("deploy.sh: exit %d, want 3 (pending): %s", code, out.String())
	}

	win := w.waitStable(title)
	text := dialogText(t, title)
	want := "Ship v2?\n\nAsked by deploy.sh in " + w.work + " · closes at "
	if !strings.HasPrefix(text, want) || len(text) != len(want)+len("15:04") {
		t.Fatalf("the dialog shows %q, want %q and a time", text, want)
	}
	closes, err := time.ParseInLocation("15:04", text[len(want):], time.Local)
	must(t, err)
	if d := (minuteOfDay(closes) - minuteOfDay(time.Now().Add(5*time.Minute)) + 1440) % 1440; d > 1 && d < 1439 {
		t.Fatalf("the dialog says it closes at %s, not about five minutes from now", text[len(want):])
	}
	w.approve(title)
	w.waitAnswered()

	// The same command from this test process, not deploy.sh.
	o := w.run("--json", "--wait", "1s", "--title", title, "--message", "Ship v2?")
	w.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("the retry from another process asked again: %+v", o.res)
	}
	origins := map[string]bool{}
	for _, e := range w.history() {
		if o, ok := e["origin"].(string); ok {
			origins[o] = true
		}
	}
	if !origins["deploy.sh in "+w.work] {
		t.Fatalf("the history does not record who asked: %v", origins)
	}

	r := w.start("--json", "--no-origin", "--scope", "without-origin", "--title", title, "--message", "Ship v2?")
	bare := w.waitStable(title)
	if text := dialogText(t, title); text != "Ship v2?" {
		t.Fatalf("with --no-origin the dialog shows %q", text)
	}
	w.deny(title)
	w.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
	if win.Rect.Dy() <= bare.Rect.Dy() {
		t.Fatalf("the window with the origin line is %d px high, without it %d", win.Rect.Dy(), bare.Rect.Dy())
	}
	t.Logf("with the origin line %v, without %v", win.Rect.Size(), bare.Rect.Size())
}

// The agent hooks on Wayland: Claude Code's and Codex's permission requests
// are allowed from the keyboard, and Escape denies.
func TestWaylandHook(t *testing.T) {
	cases := []struct {
		hh   hookHost
		deny bool
	}{
		{realHookHosts[0], false}, // claude-code PermissionRequest
		{realHookHosts[1], true},  // claude-code PreToolUse
		{realHookHosts[2], false}, // codex PermissionRequest
		{realHookHosts[2], true},
	}
	for _, c := range cases {
		verb := map[bool]string{false: "allow", true: "deny"}[c.deny]
		t.Run(c.hh.name+" "+verb, func(t *testing.T) {
			w := newWaylandHarness(t)
			call := newHookCall(w.harness, c.hh, "WL-hook", "make deploy")
			r := call.start(w.harness, "--wait", "60s")
			if c.deny {
				w.deny(call.title)
			} else {
				w.approve(call.title)
			}
			v, reason := call.verdict(t, r.wait(30*time.Second))
			if v != verb {
				t.Fatalf("the host was told %s %q, want %s", v, reason, verb)
			}
			if c.deny && reason != "denied in the ask-confirm dialog" {
				t.Fatalf("deny reason %q", reason)
			}
			w.waitNoWindow(call.title, 30*time.Second)
		})
	}
}

// ssh-agent asks ask-confirm-askpass to confirm each use of a key added
// with ssh-add -c: on Wayland, Approve makes a signature that verifies and
// Escape makes none. Debian 12's OpenSSH (9.2) runs SSH_ASKPASS only when
// DISPLAY is set, whatever WAYLAND_DISPLAY says, so a Wayland-only session
// sets SSH_ASKPASS_REQUIRE=force in the agent's environment, as here.
func TestWaylandAskpass(t *testing.T) {
	w := newWaylandHarness(t)
	a := newSSHAgent(t, w.harness, "SSH_ASKPASS_REQUIRE=force")

	s := a.sign(t, "approved")
	w.approve(askpassTitle)
	if !s.wait(t, a) {
		t.Fatalf("Allow made no signature:\n%s", s.out.String())
	}
	s = a.sign(t, "escaped")
	w.deny(askpassTitle)
	if s.wait(t, a) {
		t.Fatal("Esc made a signature")
	}
	if n := w.countEvents("answered"); n != 2 {
		t.Fatalf("%d answered events for two key uses, want 2", n)
	}
}

// choose on Wayland: typing finds the option, Enter picks it, and the label
// alone reaches stdout.
func TestWaylandChoose(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-choose")
	r := w.start("choose", "--title", title, "--message", "Deploy to?",
		"--option", "staging=the staging cluster", "--option", "production", "--option", "qa")
	w.typeText(title, "prod")
	w.key(title, "Return")
	o := r.wait(30 * time.Second)
	if o.code != 0 || o.stdout != "production\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the label; stderr %s", o.code, o.stdout, o.stderr)
	}
}

// input on Wayland: the typed text reaches stdout, and Escape cancels.
func TestWaylandInput(t *testing.T) {
	w := newWaylandHarness(t)
	title := w.title("WL-input")
	r := w.start("input", "--title", title, "--message", "Name of the release?")
	w.typeText(title, "v2.1-rc")
	w.key(title, "Return")
	o := r.wait(30 * time.Second)
	if o.code != 0 || o.stdout != "v2.1-rc\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the text; stderr %s", o.code, o.stdout, o.stderr)
	}
	r = w.start("input", "--json", "--title", title, "--message", "Another name?")
	w.deny(title)
	w.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}
