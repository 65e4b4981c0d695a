package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The exit codes of ask-confirm hook, as both hosts read them: stdout is
// read only after exit 0; exit 2 blocks the tool call (never used for an
// outcome: a usage error of the hook's own command line); any other code
// is a failed hook, and the host asks the person its own way.
const (
	// ExitAnswered: stdout holds the decision, or the hand-back.
	ExitAnswered = lifecycle.ExitApproved
	// ExitNoDecision: the input was refused; stderr says why.
	ExitNoDecision = lifecycle.ExitDenied
)

// Response is what ask-confirm hook gives its host: stdout, one JSON
// object and a newline, and the exit code.
type Response struct {
	Stdout []byte
	Code   lifecycle.ExitCode
}

// verdict is what a result means for the host.
type verdict int

const (
	// handBack leaves the decision to the host's own prompt.
	handBack verdict = iota
	allow
	deny
	// deferred stops a headless Claude Code session at the call, for
	// claude -p --resume to ask the hook again.
	deferred
)

// Stopped stands for the wait of a hook that its host stopped (a signal)
// before the wait ran out.
const Stopped time.Duration = -1

// Stop says whether, and how, the host stopped the hook before its wait
// ran out.
type Stop int

const (
	NotStopped Stop = iota
	// StoppedBySignal: the host sent SIGTERM, SIGINT or SIGHUP.
	StoppedBySignal
	// StoppedByHostAnswer: the host's transcript says it took the answer
	// of its own prompt (TranscriptWatch).
	StoppedByHostAnswer
)

// Respond turns the engine's result for p, asked with s, into the host's
// response; stopped says whether and how the host stopped the hook first,
// and now is when the reason is read, for the day of a remembered answer. Only a result
// approved by a person (status approved, exit 0) allows; a denial or
// cancellation denies, with a reason for the model; a deferring call
// (Settings.Defer) still open is deferred; anything else hands the
// question back to the host's own prompt, saying why.
func (p Payload) Respond(r lifecycle.Result, s Settings, stopped Stop, now time.Time) Response {
	wait := s.Wait
	if stopped != NotStopped {
		wait = Stopped
	}
	v, reason := judge(r, wait, now)
	if v == handBack && stopped == StoppedByHostAnswer {
		reason = handBackPrefix + fmt.Sprintf(handBackHostAnswered, p.Host.Agent)
	}
	if v == handBack && r.Status == lifecycle.StatusPending && p.defers(s) {
		v, reason = deferred, fmt.Sprintf(reasonDeferred, dialog.ShortDuration(s.Wait))
	}
	if r.ApprovalsNeeded > 0 {
		v, reason = approversVerdict(v, reason, r, wait)
	}
	var out any
	switch p.Host.Name {
	case "gemini":
		out = geminiOutput(v, reason)
	case "cursor":
		out = cursorOutput(v, reason)
	default:
		out = p.output(v, reason)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Only our own strings and the engine's are encoded: this cannot fail.
	_ = enc.Encode(out)
	return Response{Stdout: b.Bytes(), Code: ExitAnswered}
}

// approversVerdict is v, with reason, for r, a question of several
// approvers: what they decided, in their names; and where they decided
// nothing, a deny rather than a hand-back, since the host's own prompt is
// one person's, and the gate is several people's.
func approversVerdict(v verdict, reason string, r lifecycle.Result, wait time.Duration) (verdict, string) {
	switch {
	case v == allow || v == deny:
		return v, r.Message
	case v != handBack:
		return v, reason
	case (r.Status == lifecycle.StatusWithdrawn || r.Status == lifecycle.StatusPending) && wait != Stopped && r.Approvals != nil:
		return deny, handBackPrefix + fmt.Sprintf(reasonApprovalsShort, *r.Approvals, r.ApprovalsNeeded, dialog.ShortDuration(wait)) + notRunAskAgain
	}
	return deny, reason + notRunAskAgain
}

// Refuse is the response to input that could not be read (Parse's
// error), for the hosts that let a call through when their hook exits
// other than 0 or 2 with nothing on stdout: Gemini CLI (which reads
// stderr as an allow) and Cursor (which fails open). It denies, saying
// why. ok is false for Claude Code and Codex, which ask the person their
// own way on exit 1.
func Refuse(h Host, err error) (r Response, ok bool) {
	reason := handBackPrefix + capLine(err.Error(), maxShownBytes) + notRunAskAgain
	if h.HandsBack {
		return Response{}, false
	}
	var out any
	switch h.Name {
	case "gemini":
		out = geminiAnswer{Decision: "deny", Reason: reason, SystemMessage: reason}
	case "cursor":
		out = cursorAnswer{Permission: "deny", UserMessage: reason, AgentMessage: reason}
	default:
		return Response{}, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
	return Response{Stdout: b.Bytes(), Code: ExitAnswered}, true
}

// output is the answer as Claude Code and Codex read it.
func (p Payload) output(v verdict, reason string) output {
	var out output
	switch {
	case p.Event == EventPreToolUse:
		out.Specific = &specificOutput{HookEventName: p.Event, PermissionDecision: preToolUseDecision(v), PermissionDecisionReason: reason}
	case v == allow:
		out.Specific = &specificOutput{HookEventName: p.Event, Decision: &decision{Behavior: "allow"}}
	case v == deny:
		out.Specific = &specificOutput{HookEventName: p.Event, Decision: &decision{Behavior: "deny", Message: reason}}
	default:
		out.SystemMessage = reason
	}
	return out
}

// geminiAnswer is Gemini CLI's BeforeTool output: decision allow, deny, or
// ask (Gemini CLI's own confirmation), reason for the model, and
// systemMessage for the person.
type geminiAnswer struct {
	Decision      string `json:"decision"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// geminiOutput never answers ask: in gemini -p, which cannot show Gemini
// CLI's own confirmation, ask waits for it forever (measured with 0.61.0),
// so a question nobody answered is denied, saying so.
func geminiOutput(v verdict, reason string) geminiAnswer {
	switch v {
	case allow:
		return geminiAnswer{Decision: "allow", Reason: reason}
	case deny:
		return geminiAnswer{Decision: "deny", Reason: reason}
	}
	reason += notRunAskAgain
	return geminiAnswer{Decision: "deny", Reason: reason, SystemMessage: reason}
}

// cursorAnswer is Cursor's beforeShellExecution and beforeMCPExecution
// output.
type cursorAnswer struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

// cursorOutput never answers ask: Cursor documents it for these events
// without saying what it does (and for another event that it is not
// enforced), so a question nobody answered is denied, saying why.
func cursorOutput(v verdict, reason string) cursorAnswer {
	switch v {
	case allow:
		return cursorAnswer{Permission: "allow"}
	case deny:
		return cursorAnswer{Permission: "deny", UserMessage: reason, AgentMessage: reason}
	}
	reason += notRunAskAgain
	return cursorAnswer{Permission: "deny", UserMessage: reason, AgentMessage: reason}
}

// output is a hook's stdout: the fields both hosts document, and no other
// (Codex refuses unknown ones, and treats updatedInput, interrupt,
// continue, stopReason and suppressOutput as a failed hook).
type output struct {
	Specific      *specificOutput `json:"hookSpecificOutput,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
}

// specificOutput is hookSpecificOutput: permissionDecision and its reason
// for PreToolUse, decision for PermissionRequest.
type specificOutput struct {
	HookEventName            string    `json:"hookEventName"`
	PermissionDecision       string    `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string    `json:"permissionDecisionReason,omitempty"`
	Decision                 *decision `json:"decision,omitempty"`
}

// decision is a PermissionRequest's decision; Message goes with deny.
type decision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

// preToolUseDecision is v as Claude Code's PreToolUse permissionDecision:
// "ask" shows Claude Code's own permission prompt.
func preToolUseDecision(v verdict) string {
	switch v {
	case allow:
		return "allow"
	case deny:
		return "deny"
	case deferred:
		return "defer"
	default:
		return "ask"
	}
}

// judge reads the engine's result: the verdict, and the reason the host
// passes on.
func judge(r lifecycle.Result, wait time.Duration, now time.Time) (verdict, string) {
	switch r.Status {
	case lifecycle.StatusApproved:
		if r.ExitCode == lifecycle.ExitApproved && !r.Headless {
			return allow, answeredAt(reasonApproved, r, now)
		}
	case lifecycle.StatusDenied:
		return deny, answeredAt(reasonDenied, r, now)
	case lifecycle.StatusCancelled:
		return deny, reasonCancelled
	}
	return handBack, handBackPrefix + handBackReason(r, wait)
}

// answeredAt adds when a remembered answer was given.
func answeredAt(reason string, r lifecycle.Result, now time.Time) string {
	if !r.Remembered || r.AnsweredAt.IsZero() {
		return reason
	}
	return fmt.Sprintf(reasonAnsweredAt, reason, dialog.Clock(r.AnsweredAt.Local(), now))
}

// handBackReason says why the host must ask the person itself.
func handBackReason(r lifecycle.Result, wait time.Duration) string {
	switch r.Status {
	case lifecycle.StatusWithdrawn:
		if wait == Stopped {
			return handBackStopped
		}
		return fmt.Sprintf(handBackWithdraw, dialog.ShortDuration(wait))
	case lifecycle.StatusPending:
		return fmt.Sprintf(handBackPending, dialog.ShortDuration(wait))
	case lifecycle.StatusExpired:
		return handBackExpired
	case lifecycle.StatusSuperseded:
		return handBackReplaced
	}
	if r.Message == "" {
		return handBackUnknown
	}
	// headless, failed, error: the engine's own words say why.
	return capLine(r.Message, maxShownBytes)
}
