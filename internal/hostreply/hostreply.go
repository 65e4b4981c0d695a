// Package hostreply reads an agent-hook reply as the agent hosts do, for
// the tests of the hook command in process and of the real binary.
package hostreply

import (
	"encoding/json"
	"strings"
	"testing"
)

// output is every field a host reads, to decode stdout strictly: Claude
// Code's and Codex's hookSpecificOutput and systemMessage, Gemini CLI's
// decision and reason, Cursor's permission and messages.
type output struct {
	Decision     string `json:"decision"`
	Reason       string `json:"reason"`
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message"`
	AgentMessage string `json:"agent_message"`

	HookSpecificOutput *struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		Decision                 *struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage"`
}

// notRunAskAgain ends what ask-confirm tells Gemini CLI and Cursor of a
// question nobody answered.
const notRunAskAgain = "; it was not run, and proposing it again asks again"

// Verdict reads a hook's exit code and stdout as its host does: allow,
// deny or back (the host asks its own way), and the reason given. It fails
// the test unless the hook exited 0 with exactly one JSON object of a known
// shape.
func Verdict(t testing.TB, code int, stdout, stderr string) (verdict, reason string) {
	t.Helper()
	if code != 0 || strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "}\n") {
		t.Fatalf("exit %d, stdout %q; want exit 0 and one JSON line\nstderr: %s", code, stdout, stderr)
	}
	var o output
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatal(err)
	}
	s := o.HookSpecificOutput
	switch {
	case o.Decision == "deny" && o.SystemMessage != "" && o.SystemMessage == o.Reason:
		// ask-confirm denies to Gemini CLI a question nobody answered,
		// saying so (ask waits forever in gemini -p).
		if back, ok := strings.CutSuffix(o.Reason, notRunAskAgain); ok {
			return "back", back
		}
		return "deny", o.Reason
	case o.Decision == "allow" || o.Decision == "deny":
		return o.Decision, o.Reason
	case o.Permission == "allow":
		return "allow", ""
	case o.Permission == "deny" && o.UserMessage == o.AgentMessage:
		// ask-confirm denies to Cursor a question nobody answered, saying
		// so (Cursor leaves ask undefined for its shell and MCP hooks).
		if back, ok := strings.CutSuffix(o.AgentMessage, notRunAskAgain); ok {
			return "back", back
		}
		return "deny", o.AgentMessage
	case s == nil && o.SystemMessage != "":
		return "back", o.SystemMessage
	case s != nil && s.HookEventName == "PreToolUse" && s.PermissionDecision == "ask":
		return "back", s.PermissionDecisionReason
	case s != nil && s.HookEventName == "PreToolUse":
		return s.PermissionDecision, s.PermissionDecisionReason
	case s != nil && s.HookEventName == "PermissionRequest" && s.Decision != nil:
		return s.Decision.Behavior, s.Decision.Message
	}
	t.Fatalf("stdout %s is neither a decision nor a hand-back", stdout)
	return "", ""
}
