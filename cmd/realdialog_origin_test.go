//go:build e2e && linux

package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The dialog says who asks: a script named deploy.sh that runs ask-confirm
// puts "Asked by deploy.sh in <its directory> · closes at HH:MM" under the
// question, read here from the real zenity's own arguments (no
// accessibility needed). The origin is no part of the identity: the same
// command run by another process collects the answer given meanwhile.
func TestRealDialogShowsWhoAsks(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-origin")
	script := filepath.Join(h.work, "deploy.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\nask-confirm --json --wait 1s --title \"$1\" --message 'Ship v2?'\n"), 0o700))
	deploy := exec.Command(script, title)
	deploy.Env, deploy.Dir = h.env, h.work
	var out bytes.Buffer
	deploy.Stdout = &out
	err := deploy.Run()
	if code := exitCode(t, err); code != int(lifecycle.ExitPending) {
		t.Fatalf("deploy.sh: exit %d, want 3 (pending): %s", code, out.String())
	}

	h.waitStable(h.waitWindow(title))
	text := dialogText(t, title)
	want := "Ship v2?\n\nAsked by deploy.sh in " + h.work + " · closes at "
	if !strings.HasPrefix(text, want) || len(text) != len(want)+len("15:04") {
		t.Fatalf("the dialog shows %q, want %q and a time", text, want)
	}
	closes, err := time.ParseInLocation("15:04", text[len(want):], time.Local)
	must(t, err)
	if d := (minuteOfDay(closes) - minuteOfDay(time.Now().Add(5*time.Minute)) + 1440) % 1440; d > 1 && d < 1439 {
		t.Fatalf("the dialog says it closes at %s, not about five minutes from now", text[len(want):])
	}

	h.click(title, "approve")
	h.waitNoWindow(title, 30*time.Second)
	h.waitAnswered()
	// The same command from this test process, not deploy.sh.
	o := h.run("--json", "--wait", "1s", "--title", title, "--message", "Ship v2?")
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("the retry from another process asked again: %+v", o.res)
	}
	origins := map[string]bool{}
	for _, e := range h.history() {
		if o, ok := e["origin"].(string); ok {
			origins[o] = true
		}
	}
	if !origins["deploy.sh in "+h.work] {
		t.Fatalf("the history does not record who asked: %v", origins)
	}
}

// --no-origin hides the line.
func TestRealDialogNoOrigin(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-no-origin")
	r := h.start("--json", "--no-origin", "--title", title, "--message", "Rotate the keys?")
	h.waitStable(h.waitWindow(title))
	if text := dialogText(t, title); text != "Rotate the keys?" {
		t.Fatalf("with --no-origin the dialog shows %q", text)
	}
	h.key(title, "Escape")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func minuteOfDay(t time.Time) int { return t.Hour()*60 + t.Minute() }

// dialogText returns the text of the zenity process showing the window
// titled title, from its command line (--text TEXT).
func dialogText(t *testing.T, title string) string {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	must(t, err)
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("\x00--title\x00"+title+"\x00")) {
			continue
		}
		args := strings.Split(string(b), "\x00")
		for i, a := range args[:len(args)-1] {
			if a == "--text" {
				return args[i+1]
			}
		}
	}
	t.Fatalf("no zenity process shows a window titled %s", title)
	return ""
}

// Under the C locale, which MCP hosts and daemons often start programs
// with, a dialog with text outside ASCII (here the message, and always the
// origin line's "·") still shows: GTK would refuse such arguments, so the
// dialog program is started with a UTF-8 locale.
func TestRealDialogUnderTheCLocale(t *testing.T) {
	h := newRealHarness(t)
	var env []string
	for _, kv := range h.env {
		if !strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LC_") {
			env = append(env, kv)
		}
	}
	h.env = append(env, "LC_ALL=C")
	title := h.title("RD-c-locale")
	r := h.start("--json", "--title", title, "--message", "Déployer la v2 ?")
	h.waitStable(h.waitWindow(title))
	if text := dialogText(t, title); !strings.HasPrefix(text, "Déployer la v2 ?\n\nAsked by ") {
		t.Fatalf("the dialog shows %q", text)
	}
	h.click(title, "approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
}
