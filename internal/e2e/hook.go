//go:build e2e && linux

package e2e

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/hostreply"
)

// HookHost is one host and event that takes a decision from the hook.
type HookHost struct {
	Name, Host, Event, Agent string
}

var RealHookHosts = []HookHost{
	{"claude-code PermissionRequest", "claude-code", "PermissionRequest", "Claude Code"},
	{"claude-code PreToolUse", "claude-code", "PreToolUse", "Claude Code"},
	{"codex PermissionRequest", "codex", "PermissionRequest", "Codex"},
	{"gemini BeforeTool", "gemini", "BeforeTool", "Gemini CLI"},
	{"cursor beforeShellExecution", "cursor", "beforeShellExecution", "Cursor"},
}

// HookCall is one Bash call of an agent working in project.
type HookCall struct {
	Hh      HookHost
	Payload []byte
	Title   string // the window title the hook shows
}

// NewHookCall makes hh's payload for command in a project of its own.
func NewHookCall(h *Harness, hh HookHost, project, command string) HookCall {
	h.T.Helper()
	project = h.Title(project)
	p := map[string]any{
		"session_id":      "e2e-" + h.Suffix,
		"cwd":             filepath.Join(h.Dir, "src", project),
		"hook_event_name": hh.Event,
		"permission_mode": "default",
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": command, "description": "an end-to-end test of ask-confirm hook"},
	}
	tool := "Bash"
	switch hh.Host {
	case "codex":
		p["turn_id"], p["model"], p["transcript_path"] = "turn-1", "gpt-5-codex", nil
	case "gemini":
		tool = "run_shell_command"
		p["tool_name"], p["timestamp"] = tool, "2026-11-26T02:00:00.000Z"
		delete(p, "permission_mode")
	case "cursor":
		// Cursor names no tool: the command and directory are the call.
		tool = "Shell"
		p = map[string]any{"conversation_id": "e2e-" + h.Suffix, "generation_id": "g-1", "model": "default",
			"hook_event_name": hh.Event, "cursor_version": "2.1.0", "workspace_roots": []string{p["cwd"].(string)},
			"user_email": nil, "transcript_path": nil, "command": command, "cwd": p["cwd"], "sandbox": false}
	default:
		p["transcript_path"] = filepath.Join(h.Dir, "transcript.jsonl")
		if hh.Event == "PreToolUse" {
			p["tool_use_id"] = "toolu_" + h.Suffix
		}
	}
	b, err := json.Marshal(p)
	Must(h.T, err)
	return HookCall{Hh: hh, Payload: b, Title: hh.Agent + ": " + tool + " in " + project}
}

// Start runs ask-confirm hook for the call in the background, with its
// payload on stdin, as the host does.
func (c HookCall) Start(h *Harness, args ...string) *Running {
	h.T.Helper()
	r := &Running{H: h, Cmd: h.Command(append([]string{"hook", c.Hh.Host}, args...)), Done: make(chan struct{})}
	r.Cmd.Stdin = bytes.NewReader(c.Payload)
	r.Cmd.Stdout, r.Cmd.Stderr = &r.Stdout, &r.Stderr
	r.Started = time.Now()
	Must(h.T, r.Cmd.Start())
	go func() { r.Err = r.Cmd.Wait(); r.Ended = time.Now(); close(r.Done) }()
	return r
}

// Verdict reads what the hook told its host: allow, deny or back.
func (c HookCall) Verdict(t *testing.T, o Outcome) (string, string) {
	t.Helper()
	v, reason := hostreply.Verdict(t, o.Code, o.Stdout, o.Stderr)
	t.Logf("%s: %s %q after %s", c.Hh.Name, v, reason, o.Elapsed.Round(time.Millisecond))
	return v, reason
}
