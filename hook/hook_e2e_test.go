//go:build e2e && linux

package hook_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// Real-dialog tests of ask-confirm hook: the binary run as a host runs it,
// with the tool call on stdin, its GNOME zenity dialog under Xvfb answered
// with xdotool. The hook builds its own window title, "AGENT: TOOL in
// PROJECT", from the payload, so each test makes the project, the last
// element of the payload's cwd, unique to it, and finds the window by the
// title the hook will show.

func TestRealDialogHookAllow(t *testing.T) {
	for _, hh := range e2e.RealHookHosts {
		t.Run(hh.Name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			c := e2e.NewHookCall(h, hh, "HK-allow", "make deploy")
			r := c.Start(h, "--wait", "60s")
			h.Click(c.Title, "approve")
			if v, _ := c.Verdict(t, r.Wait(30*time.Second)); v != "allow" {
				t.Fatalf("Allow clicked, the host was told %s", v)
			}
			h.WaitNoWindow(c.Title, 30*time.Second)
		})
	}
}

func TestRealDialogHookDeny(t *testing.T) {
	for _, hh := range e2e.RealHookHosts {
		t.Run(hh.Name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			c := e2e.NewHookCall(h, hh, "HK-deny", "rm -rf ./build")
			r := c.Start(h, "--wait", "60s")
			h.Click(c.Title, "cancel")
			v, reason := c.Verdict(t, r.Wait(30*time.Second))
			if v != "deny" || reason != "denied in the ask-confirm dialog" {
				t.Fatalf("Deny clicked, the host was told %s %q", v, reason)
			}
		})
	}
}

// Nobody answers within --wait: the hook hands the question back to the
// host's prompt, and its dialog is gone, so only one prompt stands open.
func TestRealDialogHookNobodyAnswers(t *testing.T) {
	for _, hh := range e2e.RealHookHosts {
		t.Run(hh.Name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			c := e2e.NewHookCall(h, hh, "HK-silent", "terraform apply")
			// --wait leaves room for a loaded machine to map the window
			// before the hook gives up on it.
			r := c.Start(h, "--wait", "8s")
			h.WaitWindow(c.Title)
			o := r.Wait(60 * time.Second)
			v, reason := c.Verdict(t, o)
			if v != "back" || reason != "ask-confirm: nobody answered the dialog within 8s; it was closed" {
				t.Fatalf("the host was told %s %q, want the question handed back", v, reason)
			}
			// A hook that waited for the dialog's --timeout (5 min) instead.
			if o.Elapsed > 45*time.Second {
				t.Fatalf("--wait 2s handed back after %s", o.Elapsed)
			}
			h.WaitNoWindow(c.Title, 30*time.Second)
			if n := h.CountEvents("withdrawn"); n != 1 {
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
	for _, hh := range e2e.RealHookHosts {
		t.Run(hh.Name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			c := e2e.NewHookCall(h, hh, "HK-stopped", "kubectl delete ns staging")
			r := c.Start(h, "--wait", "10m")
			h.WaitStable(h.WaitWindow(c.Title))
			e2e.Must(t, r.Cmd.Process.Signal(syscall.SIGTERM))
			o := r.Wait(30 * time.Second)
			if v, reason := c.Verdict(t, o); v != "back" || !strings.Contains(reason, "the hook was stopped") {
				t.Fatalf("a stopped hook told the host %s %q", v, reason)
			}
			h.WaitNoWindow(c.Title, 30*time.Second)
			if n := h.CountEvents("withdrawn"); n != 1 {
				t.Fatalf("history holds %d withdrawn events, want 1", n)
			}
		})
	}
}

// Claude Code stops a hook's whole process tree when the person answers No
// in its own prompt, so the holder may have the signal before the hook
// withdraws: the request ends withdrawn all the same (never failed), and
// the host is told the hook was stopped.
func TestRealDialogHookStoppedWithItsHolder(t *testing.T) {
	hh := e2e.RealHookHosts[0]
	h := e2e.NewRealHarness(t)
	c := e2e.NewHookCall(h, hh, "HK-tree", "kubectl delete ns qa")
	r := c.Start(h, "--wait", "10m")
	h.WaitStable(h.WaitWindow(c.Title))
	holder := h.OnlyRecord().HolderPID
	if holder <= 0 {
		t.Fatalf("no holder on record")
	}
	e2e.Must(t, syscall.Kill(holder, syscall.SIGTERM))
	e2e.Must(t, r.Cmd.Process.Signal(syscall.SIGTERM))
	o := r.Wait(30 * time.Second)
	if v, reason := c.Verdict(t, o); v != "back" {
		t.Fatalf("a hook stopped with its holder told the host %s %q", v, reason)
	}
	h.WaitNoWindow(c.Title, 30*time.Second)
	h.WaitAnswered()
	if rec := h.OnlyRecord(); rec.Status != "withdrawn" {
		t.Fatalf("the request is %s, want withdrawn: %v", rec.Status, h.History())
	}
}

// The host kills its hook with SIGKILL, which no process can handle
// (Codex at its timeout, which may be below --wait): the holder sees that
// no caller waits any more and closes the dialog within seconds, so that
// the host's own prompt is the only one; the request ends withdrawn, and
// the same call proposed again asks anew.
func TestRealDialogHookKilledClosesItsDialog(t *testing.T) {
	for _, hh := range e2e.RealHookHosts {
		t.Run(hh.Name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			c := e2e.NewHookCall(h, hh, "HK-killed", "git push origin main")
			r := c.Start(h, "--wait", "10m")
			h.WaitStable(h.WaitWindow(c.Title))
			e2e.Must(t, r.Cmd.Process.Kill())
			<-r.Done
			h.WaitNoWindow(c.Title, 30*time.Second)
			h.WaitAnswered() // the window goes first, then the record
			if rec := h.OnlyRecord(); rec.Status != "withdrawn" {
				t.Fatalf("the killed hook's request is %s", rec.Status)
			}
			if h.CountEvents("callers-gone") != 1 || h.CountEvents("withdrawn") != 1 {
				t.Fatalf("the history does not say the callers went: %v", h.History())
			}

			r = c.Start(h, "--wait", "1m")
			h.Click(c.Title, "approve")
			if v, reason := c.Verdict(t, r.Wait(30*time.Second)); v != "allow" {
				t.Fatalf("the same call proposed again: %s %q", v, reason)
			}
		})
	}
}

// A headless Claude Code session (claude -p) cannot wait: with --defer,
// a PreToolUse question nobody answered within --wait is deferred, and its
// dialog stays up; the person allows; the same call, asked again by
// claude -p --resume, is allowed at once, without a second dialog.
func TestRealDialogHookDeferThenResume(t *testing.T) {
	h := e2e.NewRealHarness(t)
	hh := e2e.RealHookHosts[1]
	if hh.Event != "PreToolUse" {
		t.Fatalf("RealHookHosts[1] is %s, not Claude Code's PreToolUse", hh.Name)
	}
	// As Claude Code runs its hooks in claude -p.
	h.Env = append(h.Env, "CLAUDE_CODE_SESSION_ATTENDED=0")
	c := e2e.NewHookCall(h, hh, "HK-defer", "terraform apply -auto-approve")
	o := c.Start(h, "--wait", "2s", "--defer", "1h").Wait(60 * time.Second)
	if v, reason := c.Verdict(t, o); v != "defer" || !strings.Contains(reason, "claude -p --resume") {
		t.Fatalf("an unanswered deferring call told the host %s %q", v, reason)
	}
	h.WaitStable(h.WaitWindow(c.Title)) // still asking
	h.Click(c.Title, "approve")
	h.WaitNoWindow(c.Title, 30*time.Second)
	h.WaitAnswered()

	o = c.Start(h, "--wait", "30s", "--defer", "1h").Wait(30 * time.Second)
	if v, _ := c.Verdict(t, o); v != "allow" {
		t.Fatalf("the resumed call: %s", v)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// Claude Code shows its own prompt beside a PermissionRequest hook and
// sends the hook nothing when the person answers there. The call's result
// in the session's transcript (its output after Yes, the refusal after
// No) closes the dialog, and the request ends withdrawn.
func TestRealDialogHookHostAnsweredInTranscript(t *testing.T) {
	hh := e2e.RealHookHosts[0]
	if hh.Host != "claude-code" || hh.Event != "PermissionRequest" {
		t.Fatalf("RealHookHosts[0] is %s, not Claude Code's PermissionRequest", hh.Name)
	}
	for _, answer := range []struct{ name, result string }{
		{"yes", `"Everything up-to-date"`},
		{"no", `"The user doesn't want to proceed with this tool use. The tool use was rejected.","is_error":true`},
	} {
		t.Run(answer.name, func(t *testing.T) {
			h := e2e.NewRealHarness(t)
			command := "git push origin release/" + answer.name
			c := e2e.NewHookCall(h, hh, "HK-host", command)
			transcript := filepath.Join(h.Dir, "transcript.jsonl")
			use := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_e2e","name":"Bash","input":{"command":` +
				strconv.Quote(command) + `,"description":"an end-to-end test of ask-confirm hook"}}]}}` + "\n"
			e2e.Must(t, os.WriteFile(transcript, []byte(use), 0o600))
			r := c.Start(h, "--wait", "10m")
			h.WaitStable(h.WaitWindow(c.Title))
			f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
			e2e.Must(t, err)
			_, err = f.WriteString(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_e2e","content":` + answer.result + `}]}}` + "\n")
			e2e.Must(t, errors.Join(err, f.Close()))
			o := r.Wait(30 * time.Second)
			if v, reason := c.Verdict(t, o); v != "back" || !strings.Contains(reason, "answered in Claude Code's own prompt") {
				t.Fatalf("after the host's own answer the hook told it %s %q", v, reason)
			}
			h.WaitNoWindow(c.Title, 30*time.Second)
			h.WaitAnswered()
			if rec := h.OnlyRecord(); rec.Status != "withdrawn" {
				t.Fatalf("the request is %s", rec.Status)
			}
		})
	}
}
