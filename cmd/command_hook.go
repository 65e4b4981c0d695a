package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/hook"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// newHookCommand is ask-confirm hook HOST: an agent host's permission hook,
// answered by the person in a dialog. It reads the host's JSON on stdin
// and writes the host's JSON on stdout; the translation both ways is the
// hook package's, the request's lifecycle the engine's.
func newHookCommand(a *app) *cobra.Command {
	s := hook.DefaultSettings()
	var approvals int
	c := &cobra.Command{
		Use:   "hook HOST",
		Short: "Answer an AI agent's permission hook (claude-code, codex, gemini, cursor) with a dialog",
		Long: fmt.Sprintf(`ask-confirm hook is a command hook for Claude Code (HOST claude-code, or claude),
Codex (HOST codex), Gemini CLI (HOST gemini) and Cursor (HOST cursor). The host
runs it with the tool call as JSON on stdin;
it shows the person what the agent wants to do, with Allow and Deny, and
prints the host's decision as JSON on stdout.

Allow allows the call and Deny denies it, with a reason the model reads. If
nobody answers within --wait, or the host stops the hook (SIGTERM, SIGINT,
SIGHUP), the dialog is closed: %[1]s then ask the person
in their own permission prompt, which is then the only one open;
%[2]s, which have no prompt to hand it back to, are told
deny, saying so. The same goes where no dialog can be shown. Give the hook
a host timeout above --wait. An identical call proposed again (same host,
directory, tool and input) collects an answer given meanwhile, or within
--remember the last one, instead of asking twice.

Claude Code takes decisions from PermissionRequest and PreToolUse hooks,
Codex from PermissionRequest hooks, Gemini CLI from BeforeTool hooks and
Cursor from beforeShellExecution and beforeMCPExecution hooks. Input that
cannot be read, or another event, is an error on stderr: %[1]s
get exit 1 and ask their own way; %[2]s, which would let
the call through on exit 1, get exit 0 and a deny saying why.

A team gates an agent's calls with --approvers and --approvals (or with
several people set up, everyone): each is asked on their own phone, and the
call is allowed once --approvals of them approved, denied as soon as one
denies, and denied too when too few approved within --wait: never handed
back to the host's own prompt, which one person answers.`, agentsWhere(true), agentsWhere(false)),
		Example: `  Claude Code (.claude/settings.json):
    {"hooks": {"PermissionRequest": [{"matcher": "Bash",
      "hooks": [{"type": "command", "command": "ask-confirm hook claude-code", "timeout": 360}]}]}}
  Codex (~/.codex/config.toml):
    [[hooks.PermissionRequest]]
    matcher = "Bash"
    [[hooks.PermissionRequest.hooks]]
    type = "command"
    command = "ask-confirm hook codex"
    timeout = 360
  Gemini CLI (~/.gemini/settings.json; timeout in milliseconds):
    {"hooks": {"BeforeTool": [{"matcher": "run_shell_command",
      "hooks": [{"type": "command", "command": "ask-confirm hook gemini", "timeout": 360000}]}]}}
  Cursor (~/.cursor/hooks.json):
    {"version": 1, "hooks": {"beforeShellExecution": [{"command": "ask-confirm hook cursor",
      "timeout": 360, "failClosed": true}]}}`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("approvers") {
				if err := dialog.CheckApproversGiven(s.Approvers); err != nil {
					return a.hookUsage(err.Error(), hintHookFlags)
				}
			}
			if c.Flags().Changed("approvals") {
				if approvals < 1 {
					// 0 would read as not given.
					return a.hookUsage("--approvals: "+fmt.Sprintf(msgApprovalsBelowOne, approvals), hintHookFlags)
				}
				s.Approvals = approvals
			}
			return a.runHook(c.Context(), c.InOrStdin(), args[0], s)
		},
	}
	f := c.Flags()
	f.DurationVar(&s.Wait, "wait", s.Wait, "how long to wait, below the host's hook timeout (0 to 24h)")
	f.DurationVar(&s.Remember, "remember", s.Remember, "how long a received answer is reused for the same call (0 to 168h)")
	f.DurationVar(&s.CollectWithin, "collect-within", s.CollectWithin, "keep a late answer for the call (0 to 168h), on ntfy while cached")
	f.DurationVar(&s.Defer, "defer", 0, "in claude -p, defer an unanswered call and keep asking this long")
	f.StringSliceVar(&s.Approvers, "approvers", nil, "ask these people (`NAME,...`), each on their own phone (default: everyone set up)")
	f.IntVar(&approvals, "approvals", 1, "`N` of the approvers must approve within --wait, or the call is denied")
	f.SortFlags = false
	return c
}

// runHook answers one hook call of the host named name with settings s,
// reading the host's input from stdin.
func (a *app) runHook(ctx context.Context, stdin io.Reader, name string, s hook.Settings) error {
	h, ok := hook.LookupHost(name)
	if !ok {
		return a.hookUsage(fmt.Sprintf(msgHookUnknownHost, name), fmt.Sprintf(hintHookHosts, hostNames()))
	}
	if err := s.Validate(); err != nil {
		return a.hookUsage(err.Error(), hintHookFlags)
	}
	s.Unattended = claudeUnattended(a.getenv)
	p, err := readHookInput(h, stdin)
	if err != nil {
		return a.refuseHookInput(h, err)
	}
	ctx, stop := stoppedByHost(ctx)
	defer stop()
	var hostAnswered atomic.Bool
	if w, ok := p.WatchTranscript(); ok {
		// Claude Code takes the answer of its own prompt without a word
		// to the hook: its transcript tells.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go followTranscript(ctx, w, func() { hostAnswered.Store(true); cancel() })
	}
	home, _ := os.UserHomeDir()
	r, err := a.engine.Ask(ctx, p.Call(home, s))
	var invalid *dialog.InvalidError
	switch {
	case errors.As(err, &invalid) && (invalid.Field == "--approvers" || invalid.Field == "--approvals"):
		// Checked only once they are resolved against the people set
		// up: a broken set-up, which must block.
		return a.hookUsage(err.Error(), hintHookFlags)
	case err != nil:
		// The hook package promises a valid call; if it ever is not, the
		// host asks instead.
		r = lifecycle.ErrorResult("", lifecycle.ExitInternal, err)
	case r.ExitCode == lifecycle.ExitUsage:
		// --approvers or --approvals that cannot be asked (a name nobody
		// is set up under): the hook's set-up is broken, and must block.
		return a.hookUsage(r.Message, r.Hint)
	}
	if r.Warning != "" {
		// The host's JSON has no place for it; its log has stderr.
		a.out.line("warning: ", r.Warning)
	}
	stopped := hook.NotStopped
	switch {
	case hostAnswered.Load():
		stopped = hook.StoppedByHostAnswer
	case ctx.Err() != nil:
		stopped = hook.StoppedBySignal
	}
	return a.answerHost(h, p.Respond(r, s, stopped, a.engine.Now()))
}

// refuseHookInput reports the host's input that could not be read or
// parsed (err), in the host's own words where it has them.
func (a *app) refuseHookInput(h hook.Host, err error) error {
	a.out.error(fmt.Sprintf(msgHookInput, h.Name, err))
	if resp, ok := hook.Refuse(h, err); ok {
		// A host that would let the call through on exit 1 is told
		// no, in its own words.
		a.stdout.Write(resp.Stdout)
		return &exitError{resp.Code}
	}
	// No decision: Claude Code and Codex show the error and ask
	// their own way.
	return &exitError{hook.ExitNoDecision}
}

// stoppedByHost is ctx, ended when the host stops its hook (the person
// answered the host's own prompt, or its timeout ran out): the wait ends,
// and the dialog is closed and the request withdrawn before the hook
// exits. stop is called once the hook's answer is written.
func stoppedByHost(ctx context.Context) (_ context.Context, stop func()) {
	stopSignals := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	ctx, cancel := signal.NotifyContext(ctx, stopSignals...)
	return ctx, func() {
		// The hook's answer is written: a stop now (Claude Code stops the
		// whole tree as its holder ends the request) has nothing left to
		// stop, and must not make the hook die by the signal, which its
		// host would read as a failed hook, instead of exiting with it.
		signal.Ignore(stopSignals...)
		cancel()
	}
}

// answerHost writes resp, the hook's answer, for host h, and exits with
// its code.
func (a *app) answerHost(h hook.Host, resp hook.Response) error {
	if _, err := a.stdout.Write(resp.Stdout); err != nil {
		a.out.error(fmt.Sprintf(msgHookWrite, h.Name, err))
		return &exitError{hook.ExitNoDecision}
	}
	return &exitError{resp.Code}
}

// claudeUnattended reports whether Claude Code runs its hook with nobody
// at its own prompt (claude -p): CLAUDE_CODE_SESSION_ATTENDED=0 (2.1.328),
// or, where a version does not set it, CLAUDE_CODE_ENTRYPOINT=sdk-cli.
func claudeUnattended(getenv func(string) string) bool {
	if v := getenv("CLAUDE_CODE_SESSION_ATTENDED"); v != "" {
		return v == "0"
	}
	return getenv("CLAUDE_CODE_ENTRYPOINT") == "sdk-cli"
}

// transcriptPoll is how often the hook reads what its host's transcript
// grew by, and transcriptTail the most it reads at once: at first, the
// end of the file.
const (
	transcriptPoll = 250 * time.Millisecond
	transcriptTail = 8 << 20
)

// followTranscript reads w's transcript as it grows until the call ends
// there (answered is called) or ctx ends. A transcript that cannot be read
// is read again at the next poll.
func followTranscript(ctx context.Context, w *hook.TranscriptWatch, answered func()) {
	off := int64(-1)
	tick := time.NewTicker(transcriptPoll)
	defer tick.Stop()
	for {
		if f, err := os.Open(w.Path); err == nil {
			if fi, err := f.Stat(); err == nil && off < 0 {
				// The call was proposed lately: its tool_use is near the
				// end of a long session's transcript.
				off = max(0, fi.Size()-transcriptTail)
				if off > 0 {
					w.StartMidway()
				}
			}
			b, _ := io.ReadAll(io.LimitReader(io.NewSectionReader(f, max(off, 0), 1<<62), transcriptTail))
			f.Close()
			off = max(off, 0) + int64(len(b))
			if w.Feed(b) {
				answered()
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// readHookInput reads and parses the host's input, at most
// hook.MaxInputBytes of it: more is malformed.
func readHookInput(h hook.Host, stdin io.Reader) (hook.Payload, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, hook.MaxInputBytes+1))
	if err != nil {
		return hook.Payload{}, fmt.Errorf(msgHookReadInput, err)
	}
	return hook.Parse(h, data)
}

// hookUsage reports a mistake in the hook's own command line: exit 2,
// which both hosts take as a block, so a broken hook set-up never allows.
func (a *app) hookUsage(msg, hint string) error {
	a.out.error(msg)
	a.out.hint(hint)
	return &exitError{lifecycle.ExitUsage}
}

// hostNames lists the hosts' names for a hint: "claude-code, codex".
// agentsWhere names the agents whose hosts hand a question back to their
// own prompt (hook.Host.HandsBack), or, for false, those told deny: "Claude
// Code and Codex".
func agentsWhere(handsBack bool) string {
	var names []string
	for _, h := range hook.Hosts() {
		if h.HandsBack == handsBack {
			names = append(names, h.Agent)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func hostNames() string {
	var names []string
	for _, h := range hook.Hosts() {
		names = append(names, h.Name)
	}
	return strings.Join(names, ", ")
}
