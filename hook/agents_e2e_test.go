//go:build e2e && linux

package hook_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/agenttest"
	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// These tests run the real Claude Code from npm (scripts/agents), in
// claude -p, against a scripted model server on 127.0.0.1 that proposes
// one shell command, with ask-confirm hook claude-code as its PreToolUse
// or PermissionRequest hook, configured as docs/agent-hooks.md says; the dialog is the real zenity under
// Xvfb, answered as a person would. Each checks whether the command ran
// and what the model was told.

// claudeSession is one project of the person's, with Claude Code set up
// to ask ask-confirm with hookArgs, and a model that proposes to create a
// marker file there.
type claudeSession struct {
	h       *e2e.Harness
	model   *agenttest.Model
	home    string
	project string
	marker  string
	title   string
}

func newClaudeSession(t *testing.T, name, event string, hookArgs ...string) *claudeSession {
	s := newSession(t, name, "Claude Code", "Bash", agenttest.NewModel)
	command := strings.Join(append([]string{s.h.Exe, "hook", "claude-code"}, hookArgs...), " ")
	agenttest.Settings(t, s.home, map[string]any{event: []any{map[string]any{
		"matcher": "Bash",
		"hooks":   []any{map[string]any{"type": "command", "command": command, "timeout": 120, "onFailure": "block"}},
	}}})
	return s
}

// newSession makes a project of its own whose agent's model, made by
// model, proposes to create a marker file there with tool; its dialog's
// title names the agent and its tool.
func newSession(t *testing.T, name, agent, tool string, model func(*testing.T, string) *agenttest.Model) *claudeSession {
	h := e2e.NewRealHarness(t)
	s := &claudeSession{h: h, home: filepath.Join(h.Dir, "home")}
	project := h.Title(name)
	s.project = filepath.Join(h.Dir, "src", project)
	e2e.Must(t, os.MkdirAll(s.project, 0o700))
	s.marker = filepath.Join(s.project, "ran")
	s.model = model(t, "touch "+s.marker)
	s.title = agent + ": " + tool + " in " + project
	return s
}

func (s *claudeSession) start(args ...string) *agenttest.Run {
	return agenttest.StartClaude(s.h.T, s.model, s.home, s.project, s.h.Env, args...)
}

func (s *claudeSession) ran() bool {
	_, err := os.Stat(s.marker)
	return err == nil
}

// told returns what the model was told of its command.
func (s *claudeSession) told() string { return strings.Join(s.model.ToolResults(), "\n") }

// log records what a run ended as and what the model was told.
func (s *claudeSession) log(what string, res agenttest.Result) {
	s.h.T.Logf("%s: stop %q, error %v, ran %v; the model was told %q", what, res.StopReason, res.IsError, s.ran(), s.told())
}

// claudeEvents are the hook events Claude Code takes a decision from.
var claudeEvents = []string{"PreToolUse", "PermissionRequest"}

func TestClaudeCodeAllow(t *testing.T) {
	for _, event := range claudeEvents {
		t.Run(event, func(t *testing.T) {
			s := newClaudeSession(t, "CC-allow", event, "--wait", "1m")
			r := s.start("Create the marker.")
			s.h.Click(s.title, "approve")
			res := r.Wait(t)
			s.log("Allow", res)
			if !s.ran() || res.IsError {
				t.Fatalf("after Allow: ran %v, result %+v, model told %q", s.ran(), res, s.told())
			}
		})
	}
}

func TestClaudeCodeDeny(t *testing.T) {
	for _, event := range claudeEvents {
		t.Run(event, func(t *testing.T) {
			s := newClaudeSession(t, "CC-deny", event, "--wait", "1m")
			r := s.start("Create the marker.")
			s.h.Click(s.title, "cancel")
			s.log("Deny", r.Wait(t))
			if s.ran() || !strings.Contains(s.told(), "denied in the ask-confirm dialog") {
				t.Fatalf("after Deny: ran %v, model told %q", s.ran(), s.told())
			}
		})
	}
}

// In claude -p nobody can answer Claude Code's own prompt: a question
// nobody answered within --wait is handed back, and becomes a denial; the
// dialog is gone.
func TestClaudeCodeNobodyAnswers(t *testing.T) {
	for _, event := range claudeEvents {
		t.Run(event, func(t *testing.T) {
			s := newClaudeSession(t, "CC-nobody", event, "--wait", "3s")
			r := s.start("Create the marker.")
			s.h.WaitWindow(s.title)
			s.log("nobody answered", r.Wait(t))
			s.h.WaitNoWindow(s.title, 30*time.Second)
			if s.ran() || s.told() == "" {
				t.Fatalf("nobody answered: ran %v, model told %q", s.ran(), s.told())
			}
		})
	}
}

// With --defer, the headless session stops at the call, deferred, while
// the dialog stays up; the person allows; claude -p --resume runs the
// command without a second dialog.
func TestClaudeCodeDeferThenResume(t *testing.T) {
	s := newClaudeSession(t, "CC-defer", "PreToolUse", "--wait", "3s", "--defer", "1h")
	res := s.start("Create the marker.").Wait(t)
	s.log("deferred", res)
	if s.ran() || res.StopReason != "tool_deferred" || res.SessionID == "" {
		t.Fatalf("an unanswered deferring call: ran %v, result %+v", s.ran(), res)
	}
	s.h.WaitStable(s.h.WaitWindow(s.title)) // still asking
	s.h.Click(s.title, "approve")
	s.h.WaitNoWindow(s.title, 30*time.Second)
	s.h.WaitAnswered()
	res = s.start("--resume", res.SessionID).Wait(t)
	s.log("resumed", res)
	if !s.ran() || res.IsError {
		t.Fatalf("the resumed session: ran %v, result %+v, model told %q", s.ran(), res, s.told())
	}
	if n := s.h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// In Claude Code's interactive screen its own prompt shows beside a
// PermissionRequest hook's dialog. An answer there closes the dialog, and
// the request ends withdrawn: No by stopping the hook, Yes through the
// call's result in the session's transcript. "default" is the permission
// mode that asks (auto mode runs a call it judges safe without asking).
func TestClaudeCodeOwnPrompt(t *testing.T) {
	for _, answer := range []struct {
		name string
		keys []string
		ran  bool
	}{
		{"Yes", []string{"1"}, true},
		{"No", []string{"4"}, false},
	} {
		t.Run(answer.name, func(t *testing.T) {
			s := newClaudeSession(t, "CC-own-"+answer.name, "PermissionRequest", "--wait", "2m")
			screen := agenttest.StartClaudeScreen(t, s.model, s.home, s.project, s.h.Env, "--permission-mode", "default", "Create the marker.")
			s.h.WaitStable(s.h.WaitWindow(s.title))
			screen.WaitFor("Do you want to proceed?", time.Minute)
			answered := time.Now()
			screen.KeysUntilGone("Do you want to proceed?", answer.keys...)
			s.h.WaitNoWindow(s.title, 30*time.Second)
			closed := time.Since(answered)
			t.Logf("%s in Claude Code's prompt: the dialog closed %s later", answer.name, closed.Round(10*time.Millisecond))
			e2e.Eventually(t, 30*time.Second, "the command's fate", func() bool { return s.ran() == answer.ran })
			s.h.WaitAnswered()
			if rec := s.h.OnlyRecord(); rec.Status != "withdrawn" {
				t.Fatalf("the request is %s, want withdrawn", rec.Status)
			}
			// Well under --wait: the host's answer closed it, not the clock.
			if closed > 10*time.Second {
				t.Fatalf("the dialog closed %s after the answer in Claude Code's prompt", closed)
			}
			if answer.ran {
				screen.WaitFor(agenttest.FinalWord, 30*time.Second)
			}
		})
	}
}

// Auto mode, Claude Code's default permission mode, runs a call it judges
// safe without asking: a PermissionRequest hook is never run for it, while
// a PreToolUse hook is run for every call, and its dialog decides.
func TestClaudeCodeAutoMode(t *testing.T) {
	t.Run("PreToolUse", func(t *testing.T) {
		s := newClaudeSession(t, "CC-auto-pre", "PreToolUse", "--wait", "1m")
		screen := agenttest.StartClaudeScreen(t, s.model, s.home, s.project, s.h.Env, "Create the marker.")
		s.h.Click(s.title, "approve")
		e2e.Eventually(t, 30*time.Second, "the command to run", s.ran)
		screen.WaitFor(agenttest.FinalWord, 30*time.Second)
	})
	t.Run("PermissionRequest", func(t *testing.T) {
		s := newClaudeSession(t, "CC-auto-perm", "PermissionRequest", "--wait", "1m")
		screen := agenttest.StartClaudeScreen(t, s.model, s.home, s.project, s.h.Env, "Create the marker.")
		screen.WaitFor(agenttest.FinalWord, time.Minute)
		if !s.ran() || s.h.DialogsRequested() != 0 {
			t.Fatalf("auto mode: ran %v after %d dialogs; want the call run unasked", s.ran(), s.h.DialogsRequested())
		}
	})
}

// geminiSession is claudeSession for Gemini CLI (gemini -p), with
// ask-confirm hook gemini as its BeforeTool hook for run_shell_command.
func newGeminiSession(t *testing.T, name string, timeoutMs int, hookArgs ...string) *claudeSession {
	s := newSession(t, name, "Gemini CLI", "run_shell_command", agenttest.NewGeminiModel)
	command := strings.Join(append([]string{s.h.Exe, "hook", "gemini"}, hookArgs...), " ")
	agenttest.GeminiSettings(t, s.home, map[string]any{"BeforeTool": []any{map[string]any{
		"matcher": "run_shell_command",
		"hooks":   []any{map[string]any{"type": "command", "command": command, "timeout": timeoutMs}},
	}}})
	return s
}

func (s *claudeSession) startGemini() *agenttest.Run {
	return agenttest.StartGemini(s.h.T, s.model, s.home, s.project, s.h.Env, "Create the marker.")
}

func TestGeminiCLI(t *testing.T) {
	t.Run("Allow", func(t *testing.T) {
		s := newGeminiSession(t, "GC-allow", 120000, "--wait", "1m")
		r := s.startGemini()
		s.h.Click(s.title, "approve")
		s.log("Allow", r.Wait(t))
		if !s.ran() {
			t.Fatalf("after Allow the command did not run; the model was told %q", s.told())
		}
	})
	t.Run("Deny", func(t *testing.T) {
		s := newGeminiSession(t, "GC-deny", 120000, "--wait", "1m")
		r := s.startGemini()
		s.h.Click(s.title, "cancel")
		s.log("Deny", r.Wait(t))
		if s.ran() || !strings.Contains(s.told(), "denied in the ask-confirm dialog") {
			t.Fatalf("after Deny: ran %v, the model was told %q", s.ran(), s.told())
		}
	})
	t.Run("nobody answers", func(t *testing.T) {
		s := newGeminiSession(t, "GC-nobody", 120000, "--wait", "3s")
		r := s.startGemini()
		s.h.WaitWindow(s.title)
		s.log("nobody answered", r.Wait(t))
		s.h.WaitNoWindow(s.title, 30*time.Second)
		if s.ran() || !strings.Contains(s.told(), "nobody answered the dialog within 3s") {
			t.Fatalf("nobody answered: ran %v, the model was told %q", s.ran(), s.told())
		}
	})
	// Gemini CLI's timeout below --wait: it stops the hook, whose dialog
	// closes, and then runs the tool anyway, which is why docs/agent-hooks.md
	// says to keep its timeout above --wait.
	t.Run("Gemini's timeout first", func(t *testing.T) {
		s := newGeminiSession(t, "GC-timeout", 3000, "--wait", "1m")
		r := s.startGemini()
		s.log("Gemini's timeout first", r.Wait(t))
		// The dialog is up for less than Gemini CLI's 3 s, too short to be
		// sure of catching it on screen on a busy machine: the history
		// says it was shown, and the screen that it is gone.
		if s.h.CountEvents("shown") != 1 {
			t.Fatalf("the dialog was not shown before Gemini CLI's timeout: %v", s.h.History())
		}
		s.h.WaitNoWindow(s.title, 30*time.Second)
		if !s.ran() {
			t.Fatalf("after its timeout Gemini CLI did not run the tool; the model was told %q", s.told())
		}
	})
}

// newCodexSession is claudeSession for Codex's interactive screen, with
// ask-confirm hook codex as its PermissionRequest hook for Bash, timing
// out after timeout seconds, configured as docs/agent-hooks.md says.
func newCodexSession(t *testing.T, name string, timeout int, hookArgs ...string) *claudeSession {
	s := newSession(t, name, "Codex", "Bash", agenttest.NewCodexModel)
	command := strings.Join(append([]string{s.h.Exe, "hook", "codex"}, hookArgs...), " ")
	agenttest.CodexConfig(t, s.model, s.home, s.project, fmt.Sprintf(`[[hooks.PermissionRequest]]
matcher = "Bash"

[[hooks.PermissionRequest.hooks]]
type = "command"
command = %q
timeout = %d
`, command, timeout))
	return s
}

// startCodex starts Codex's screen with the request to create the
// marker, and trusts the hook there as a person would.
func (s *claudeSession) startCodex() *agenttest.Screen {
	screen := agenttest.StartCodexScreen(s.h.T, s.home, s.project, s.h.Env, "Create the marker.")
	screen.CodexTrustHooks()
	return screen
}

// Codex's interactive screen (its exec mode runs no approval hook) in a
// terminal of tmux's, with the dialog answered as a person would.
func TestCodexCLI(t *testing.T) {
	t.Run("Allow", func(t *testing.T) {
		s := newCodexSession(t, "CX-allow", 120, "--wait", "1m")
		screen := s.startCodex()
		s.h.Click(s.title, "approve")
		screen.WaitFor(agenttest.FinalWord, time.Minute)
		if !s.ran() || !strings.Contains(s.told(), "exited with code 0") {
			t.Fatalf("after Allow: ran %v, the model was told %q", s.ran(), s.told())
		}
	})
	t.Run("Deny", func(t *testing.T) {
		s := newCodexSession(t, "CX-deny", 120, "--wait", "1m")
		screen := s.startCodex()
		s.h.Click(s.title, "cancel")
		screen.WaitFor(agenttest.FinalWord, time.Minute)
		if s.ran() || !strings.Contains(s.told(), "denied in the ask-confirm dialog") {
			t.Fatalf("after Deny: ran %v, the model was told %q", s.ran(), s.told())
		}
	})
	// Nobody answers within --wait: the dialog closes, and the question
	// goes to Codex's own prompt, the only one left.
	t.Run("nobody answers", func(t *testing.T) {
		s := newCodexSession(t, "CX-nobody", 120, "--wait", "3s")
		screen := s.startCodex()
		s.h.WaitWindow(s.title)
		screen.WaitFor(agenttest.CodexOwnPrompt, time.Minute)
		s.h.WaitNoWindow(s.title, 30*time.Second)
		screen.KeysUntil("You canceled the request", "Escape")
		if s.ran() {
			t.Fatal("the command ran")
		}
	})
	// Codex's timeout below --wait: Codex kills the hook (SIGKILL, to its
	// whole process group) and shows its own prompt; the hook's holder sees
	// its caller gone and closes the dialog.
	t.Run("Codex's timeout first", func(t *testing.T) {
		s := newCodexSession(t, "CX-timeout", 3, "--wait", "1m")
		screen := s.startCodex()
		s.h.WaitStable(s.h.WaitWindow(s.title))
		screen.WaitFor(agenttest.CodexOwnPrompt, time.Minute)
		prompted := time.Now()
		s.h.WaitNoWindow(s.title, 30*time.Second)
		t.Logf("the dialog was gone %s after Codex's own prompt was seen", time.Since(prompted).Round(10*time.Millisecond))
		if !strings.Contains(screen.Text(), "hook timed out after 3s") {
			t.Fatalf("Codex does not say the hook timed out:\n%s", screen.Text())
		}
		s.h.WaitAnswered()
		if rec := s.h.OnlyRecord(); rec.Status != "withdrawn" || s.h.CountEvents("callers-gone") != 1 {
			t.Fatalf("the request is %s: %v", rec.Status, s.h.History())
		}
		screen.KeysUntil("You approved codex", "y")
		e2e.Eventually(t, 30*time.Second, "the command Codex's own prompt allowed to run", s.ran)
	})
}
