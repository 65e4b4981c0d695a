//go:build e2e && linux

package cmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Real-dialog tests of ask-confirm hook: the binary run as a host runs it,
// with the tool call on stdin, its GNOME zenity dialog under Xvfb answered
// with xdotool. The hook builds its own window title, "AGENT: TOOL in
// PROJECT", from the payload, so each test makes the project, the last
// element of the payload's cwd, unique to it, and finds the window by the
// title the hook will show.

// hookHost is one host and event that takes a decision from the hook.
type hookHost struct {
	name, host, event, agent string
}

var realHookHosts = []hookHost{
	{"claude-code PermissionRequest", "claude-code", "PermissionRequest", "Claude Code"},
	{"claude-code PreToolUse", "claude-code", "PreToolUse", "Claude Code"},
	{"codex PermissionRequest", "codex", "PermissionRequest", "Codex"},
}

// hookCall is one Bash call of an agent working in project.
type hookCall struct {
	hh      hookHost
	payload []byte
	title   string // the window title the hook shows
}

// newHookCall makes hh's payload for command in a project of its own.
func newHookCall(h *harness, hh hookHost, project, command string) hookCall {
	h.t.Helper()
	project = h.title(project)
	p := map[string]any{
		"session_id":      "e2e-" + h.suffix,
		"cwd":             filepath.Join(h.dir, "src", project),
		"hook_event_name": hh.event,
		"permission_mode": "default",
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": command, "description": "an end-to-end test of ask-confirm hook"},
	}
	switch hh.host {
	case "codex":
		p["turn_id"], p["model"], p["transcript_path"] = "turn-1", "gpt-5-codex", nil
	default:
		p["transcript_path"] = filepath.Join(h.dir, "transcript.jsonl")
		if hh.event == "PreToolUse" {
			p["tool_use_id"] = "toolu_" + h.suffix
		}
	}
	b, err := json.Marshal(p)
	must(h.t, err)
	return hookCall{hh: hh, payload: b, title: hh.agent + ": Bash in " + project}
}

// start runs ask-confirm hook for the call in the background, with its
// payload on stdin, as the host does.
func (c hookCall) start(h *harness, args ...string) *running {
	h.t.Helper()
	r := &running{h: h, cmd: h.command(append([]string{"hook", c.hh.host}, args...)), done: make(chan struct{})}
	r.cmd.Stdin = bytes.NewReader(c.payload)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	r.started = time.Now()
	must(h.t, r.cmd.Start())
	go func() { r.err = r.cmd.Wait(); r.ended = time.Now(); close(r.done) }()
	return r
}

// verdict reads what the hook told its host: allow, deny or back.
func (c hookCall) verdict(t *testing.T, o outcome) (string, string) {
	t.Helper()
	v, reason := hookVerdict(t, cliRun{code: o.code, stdout: o.stdout, stderr: o.stderr})
	t.Logf("%s: %s %q after %s", c.hh.name, v, reason, o.elapsed.Round(time.Millisecond))
	return v, reason
}

func TestRealDialogHookAllow(t *testing.T) {
	for _, hh := range realHookHosts {
		t.Run(hh.name, func(t *testing.T) {
			h := newRealHarness(t)
			c := newHookCall(h, hh, "HK-allow", "make deploy")
			r := c.start(h, "--wait", "60s")
			h.click(c.title, "approve")
			if v, _ := c.verdict(t, r.wait(30*time.Second)); v != "allow" {
				t.Fatalf("Allow clicked, the host was told %s", v)
			}
			h.waitNoWindow(c.title, 30*time.Second)
		})
	}
}

func TestRealDialogHookDeny(t *testing.T) {
	for _, hh := range realHookHosts {
		t.Run(hh.name, func(t *testing.T) {
			h := newRealHarness(t)
			c := newHookCall(h, hh, "HK-deny", "rm -rf ./build")
			r := c.start(h, "--wait", "60s")
			h.click(c.title, "cancel")
			v, reason := c.verdict(t, r.wait(30*time.Second))
			if v != "deny" || reason != "denied in the ask-confirm dialog" {
				t.Fatalf("Deny clicked, the host was told %s %q", v, reason)
			}
		})
	}
}

// Nobody answers within --wait: the hook hands the question back to the
// host's prompt, and its dialog is gone, so only one prompt stands open.
func TestRealDialogHookNobodyAnswers(t *testing.T) {
	for _, hh := range realHookHosts {
		t.Run(hh.name, func(t *testing.T) {
			h := newRealHarness(t)
			c := newHookCall(h, hh, "HK-silent", "terraform apply")
			// --wait leaves room for a loaded machine to map the window
			// before the hook gives up on it.
			r := c.start(h, "--wait", "8s")
			h.waitWindow(c.title)
			o := r.wait(60 * time.Second)
			v, reason := c.verdict(t, o)
			if v != "back" || reason != "ask-confirm: nobody answered the dialog within 8s; it was closed" {
				t.Fatalf("the host was told %s %q, want the question handed back", v, reason)
			}
			// A hook that waited for the dialog's --timeout (5 min) instead.
			if o.elapsed > 45*time.Second {
				t.Fatalf("--wait 2s handed back after %s", o.elapsed)
			}
			h.waitNoWindow(c.title, 30*time.Second)
			if n := h.countEvents("withdrawn"); n != 1 {
				t.Fatalf("history holds %d withdrawn events, want 1", n)
			}
		})
	}
}

// The host stops its hook with SIGTERM (the person answered the host's own
// prompt, which Claude Code shows beside a PermissionRequest hook, or the
// host's timeout ran out): the hook closes its dialog, withdraws the
// request, and hands the question back.
func TestRealDialogHookStoppedClosesItsDialog(t *testing.T) {
	for _, hh := range realHookHosts {
		t.Run(hh.name, func(t *testing.T) {
			h := newRealHarness(t)
			c := newHookCall(h, hh, "HK-stopped", "kubectl delete ns staging")
			r := c.start(h, "--wait", "10m")
			h.waitStable(h.waitWindow(c.title))
			must(t, r.cmd.Process.Signal(syscall.SIGTERM))
			o := r.wait(30 * time.Second)
			if v, reason := c.verdict(t, o); v != "back" || !strings.Contains(reason, "the hook was stopped") {
				t.Fatalf("a stopped hook told the host %s %q", v, reason)
			}
			h.waitNoWindow(c.title, 30*time.Second)
			if n := h.countEvents("withdrawn"); n != 1 {
				t.Fatalf("history holds %d withdrawn events, want 1", n)
			}
		})
	}
}

// The host kills its hook (its timeout is below --wait); the dialog stays,
// the person allows, and the same call proposed again is allowed at once,
// without a second dialog.
func TestRealDialogHookKilledThenCollected(t *testing.T) {
	for _, hh := range realHookHosts {
		t.Run(hh.name, func(t *testing.T) {
			h := newRealHarness(t)
			c := newHookCall(h, hh, "HK-killed", "git push origin main")
			r := c.start(h, "--wait", "10m")
			h.waitWindow(c.title)
			must(t, r.cmd.Process.Kill())
			<-r.done
			time.Sleep(300 * time.Millisecond)
			h.waitWindow(c.title) // the dialog outlived its hook
			h.click(c.title, "approve")
			h.waitNoWindow(c.title, 30*time.Second)

			o := c.start(h, "--wait", "30s").wait(30 * time.Second)
			if v, reason := c.verdict(t, o); v != "allow" {
				t.Fatalf("the same call after the approval: %s %q", v, reason)
			}
			if ws := h.windows(c.title); len(ws) != 0 {
				t.Fatalf("collecting the answer opened a window: %v", ws)
			}
			if n := h.dialogsRequested(); n != 1 {
				t.Fatalf("%d dialogs were requested, want 1", n)
			}
			if !strings.Contains(o.stdout, "allow") {
				t.Fatalf("stdout %s", o.stdout)
			}
		})
	}
}
