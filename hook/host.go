// Package hook is ask-confirm's adapter for the permission hooks of AI
// agent hosts. Claude Code, Codex, Gemini CLI and Cursor run a command
// hook with the tool call as JSON on stdin and read a decision as JSON on
// stdout; ask-confirm hook HOST answers it by asking the person in a
// dialog.
//
// The package translates and nothing more, and does no I/O: Parse reads a
// host's payload, Payload.Call turns it into the engine's lifecycle.Call
// (title, message, identity key, scope, and how long to wait), and
// Payload.Respond turns the engine's lifecycle.Result into the exact stdout
// and exit code the host reads. The request's lifecycle (one dialog per
// call, collection, remembered answers, history) is the engine's.
package hook

import (
	"fmt"
	"slices"
)

// The hook events a host can take a decision from.
const (
	// EventPreToolUse runs before every tool call that matches the hook's
	// matcher (Claude Code only: Codex's can block but not allow).
	EventPreToolUse = "PreToolUse"
	// EventPermissionRequest runs when the host is about to ask the person
	// for permission.
	EventPermissionRequest = "PermissionRequest"
	// EventBeforeTool runs before every tool call (Gemini CLI).
	EventBeforeTool = "BeforeTool"
	// EventBeforeShell and EventBeforeMCP run before a shell command and
	// an MCP tool call (Cursor).
	EventBeforeShell = "beforeShellExecution"
	EventBeforeMCP   = "beforeMCPExecution"
)

// Host is an agent host whose permission hook ask-confirm answers.
type Host struct {
	// Name is the HOST argument of ask-confirm hook, and the first word of
	// every request's key: "claude-code", "codex", "gemini" or "cursor".
	Name string
	// Agent is the name the person knows the agent by: "Claude Code".
	Agent string
	// Events are the hook events whose output the host takes a decision
	// from, in the order help text names them.
	Events []string
	// HandsBack is true for a host with a permission prompt of its own
	// that a question can go back to: a question nobody answered (within
	// the wait, or with no display) is handed back to that prompt, and
	// input that cannot be read exits 1, on which the host asks its own
	// way. A host without one (Gemini CLI, whose ask waits forever in
	// gemini -p and which reads exit 1 as an allow; Cursor, which
	// documents no ask for these events and fails open) is told deny
	// instead, saying why (Respond, Refuse). Help text and the docs say
	// which host gets which from this field.
	HandsBack bool
}

// Hosts returns the hosts ask-confirm answers, in the order help text
// names them.
func Hosts() []Host {
	return []Host{
		{Name: "claude-code", Agent: "Claude Code", Events: []string{EventPermissionRequest, EventPreToolUse}, HandsBack: true},
		// Codex's PreToolUse supports neither allow nor ask (both fail
		// open), so only its PermissionRequest can carry the answer.
		{Name: "codex", Agent: "Codex", Events: []string{EventPermissionRequest}, HandsBack: true},
		{Name: "gemini", Agent: "Gemini CLI", Events: []string{EventBeforeTool}},
		{Name: "cursor", Agent: "Cursor", Events: []string{EventBeforeShell, EventBeforeMCP}},
	}
}

// LookupHost returns the host named name; "claude" names Claude Code too,
// and "gemini-cli" Gemini CLI.
func LookupHost(name string) (Host, bool) {
	switch name {
	case "claude":
		name = "claude-code"
	case "gemini-cli":
		name = "gemini"
	}
	for _, h := range Hosts() {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// decides reports whether h takes a decision from a hook of event.
func (h Host) decides(event string) bool { return slices.Contains(h.Events, event) }

// eventList names h's events for an error message: "A" or "A or B".
func (h Host) eventList() string {
	if len(h.Events) == 2 {
		return fmt.Sprintf(errNoDecisionOr, h.Events[0], h.Events[1])
	}
	return h.Events[0]
}
