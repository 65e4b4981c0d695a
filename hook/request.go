package hook

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Settings say how long a hook waits for the person and how long the
// answer is kept: the hook command's flags.
type Settings struct {
	// Wait is how long the hook waits before it hands the question back to
	// the host's own prompt. It must stay below the host's hook timeout.
	Wait time.Duration
	// Remember and CollectWithin are lifecycle.Call's.
	Remember      time.Duration
	CollectWithin time.Duration
	// Defer, when set, keeps a Claude Code PreToolUse question that nobody
	// answered within Wait open for this much longer, and answers defer:
	// a headless session (claude -p) stops at the call, and the hook of
	// claude -p --resume collects the answer. Only where Unattended: an
	// interactive session ignores defer and goes on to its own rules,
	// which may allow the call while the dialog is up.
	Defer time.Duration
	// Unattended says the host runs without a person at its own prompt
	// (Claude Code's CLAUDE_CODE_SESSION_ATTENDED=0, or, before that
	// variable, CLAUDE_CODE_ENTRYPOINT=sdk-cli): the command reads it.
	Unattended bool
	// Approvers and Approvals are dialog.Request's, as --approvers and
	// --approvals give them (nil and 0 where not given: the engine
	// resolves them against the people set up): a team gates an agent's
	// calls, each person on their own phone. A question they do not
	// approve within Wait is denied, never handed back to the host's own
	// prompt, which one person answers.
	Approvers []string
	Approvals int
}

// DefaultSettings waits 5 minutes, safely below the 600 s that both
// hosts give a command hook by default, and keeps answers as the command
// line does.
func DefaultSettings() Settings {
	d := lifecycle.DefaultCall()
	return Settings{Wait: 5 * time.Minute, Remember: d.Remember, CollectWithin: d.CollectWithin}
}

// dialogGrace is how long the dialog outlives the wait. The hook closes
// its dialog itself when the wait runs out; this bounds how long the dialog
// of a hook that its host killed first stays on screen.
const dialogGrace = 10 * time.Second

// Validate reports the first setting out of its limits, as a
// *dialog.InvalidError naming its flag (--wait, --remember,
// --collect-within).
func (s Settings) Validate() error {
	if s.Defer < 0 || s.Defer > lifecycle.MaxTimeout {
		return &dialog.InvalidError{Field: "--defer", Reason: fmt.Sprintf("%s is outside 0s to %s", dialog.ShortDuration(s.Defer), dialog.ShortDuration(lifecycle.MaxTimeout))}
	}
	if s.Approvals < 0 {
		return &dialog.InvalidError{Field: "--approvals", Reason: fmt.Sprintf("%d is below 1: at least one of the approvers must approve", s.Approvals)}
	}
	// Who is asked is the engine's to resolve, against the people set up.
	probe := s
	probe.Approvers, probe.Approvals = nil, 0
	return probe.call(dialog.Request{Message: msgRunCommand, OKLabel: labelAllow, CancelLabel: labelDeny, Icon: "question"}).Validate()
}

// call is the lifecycle.Call that asks r with s. Nothing approves without
// a person (IfHeadlessFail), and a question still open when the wait runs
// out is withdrawn, so that the host's prompt is then the only one open.
func (s Settings) call(r dialog.Request) lifecycle.Call {
	c := lifecycle.DefaultCall()
	c.Request = r
	c.Request.Approvers, c.Request.Approvals = s.Approvers, s.Approvals
	c.Wait, c.Remember, c.CollectWithin = s.Wait, s.Remember, s.CollectWithin
	c.Timeout = min(s.Wait+dialogGrace, lifecycle.MaxTimeout)
	c.IfHeadless = lifecycle.IfHeadlessFail
	c.Withdraw = true
	return c
}

// Call is the request that asks the person about p with s. home is the
// person's home directory, shown as ~ (empty shows every path in full).
// Its request always passes dialog.Request.Validate, whatever the payload.
func (p Payload) Call(home string, s Settings) lifecycle.Call {
	c := s.call(p.Request(home))
	if p.defers(s) {
		// Open beyond the wait, for the resumed session to collect: the
		// caller's end does not end it.
		c.Withdraw = false
		c.Timeout = min(s.Wait+s.Defer, lifecycle.MaxTimeout)
	}
	return c
}

// defers reports whether p's question is deferred when nobody answers
// within s.Wait: Claude Code's PreToolUse, with --defer, in an unattended
// session.
func (p Payload) defers(s Settings) bool {
	return s.Defer > 0 && s.Unattended && p.Host.Name == "claude-code" && p.Event == EventPreToolUse
}

// Request is the dialog that asks the person about p: the agent, tool and
// project in the title, what the call will do in the message, Allow and
// Deny (the default button, so Enter denies), the working directory as the
// scope, and a key that names the call. Everything from the payload is
// shown literally, with invisible characters escaped.
func (p Payload) Request(home string) dialog.Request {
	return dialog.Request{
		Title:       p.title(),
		Message:     p.message(home),
		OKLabel:     labelAllow,
		CancelLabel: labelDeny,
		Icon:        "question",
		Scope:       p.scope(),
		Key:         p.key(),
		Origin:      p.origin(home),
	}
}

// Caps on the names in a title, within dialog.MaxTitleBytes.
const (
	maxTitleTool    = 120
	maxTitleProject = 100
)

func (p Payload) title() string {
	project := filepath.Base(p.Cwd)
	return fmt.Sprintf(titleFormat, p.Host.Agent, capLine(p.ToolName, maxTitleTool), capLine(project, maxTitleProject))
}

// key is the request's identity key, readable in ask-confirm list and
// status: "claude-code Bash 1f3a…". The tool's name is cut, visibly, to
// keep the key within dialog.MaxKeyBytes; the hash names the call.
func (p Payload) key() string {
	room := dialog.MaxKeyBytes - len(p.Host.Name) - keyHashLen - len(" ")*2
	return p.Host.Name + " " + capLine(p.ToolName, room) + " " + p.callHash()[:keyHashLen]
}

// scope is the working directory, escaped (dialog.DirScope).
func (p Payload) scope() string { return dialog.DirScope(p.Cwd) }

// message is the dialog's text: the agent's own words about the call
// and what the call will do, last, so that the end of a command is the
// end of the message, which every place it is shown keeps in view
// (dialog.Fit), however long the rest. The line under it (origin) says by
// whom and where it is asked. When it is too long to show whole, each
// place says so, and makes Deny the default.
func (p Payload) message(home string) string {
	pr := p.propose()
	parts := append(append([]string{pr.question}, pr.notes...), shorten(pr.subject))
	return strings.Join(parts, "\n\n")
}

// origin says who asks and where, for the line under the question: the
// agent and its working directory (the title names the directory's last
// part, should the line be cut).
func (p Payload) origin(home string) string { return dialog.Origin(p.Host.Agent, p.Cwd, home) }
