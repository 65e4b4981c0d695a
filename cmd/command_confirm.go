package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/terminal"
)

// confirmOptions are the root command's flags: one lifecycle.Call, and how
// to print its outcome.
type confirmOptions struct {
	call       lifecycle.Call
	json       bool
	noOrigin   bool
	noTerminal bool
	// approvals is --approvals, which the request takes only where it
	// was given: without it, the engine decides who is asked.
	approvals int
}

func newRootCommand(a *app) *cobra.Command {
	o := &confirmOptions{}
	c := &cobra.Command{
		Use:   "ask-confirm --message TEXT [flags]",
		Short: "Ask a person to approve or cancel, and report the answer as an exit code",
		Long: `ask-confirm shows a native approve/cancel dialog and exits with the answer.

The dialog outlives the caller: if nobody answers within --wait, ask-confirm
exits 3 (pending) and the dialog stays up until --timeout. Running the same
command again collects the answer, or joins the dialog still open; there is
never a second dialog for the same request. An answer no caller has received
yet is kept for the next identical request for --collect-within after it was
given, whatever --remember says; once received, it is returned again only
within --remember. An answer given on the phone is collected from its ntfy
server only while the server keeps it (its cache-duration, 12h by default,
which doctor shows).

Where no dialog can be shown and a person is typing at this terminal (over
SSH, on a console), ask-confirm asks there instead, y to approve, and waits
for the answer up to --timeout; --no-terminal turns that off, and
--if-headless decides when neither can ask.

With a phone set up (ask-confirm remote setup), the request is also sent
to it, through an ntfy server, as --remote or the recorded mode says: also
beside the dialog, fallback where nobody can be asked here, or only there.

With several people set up (ask-confirm remote approver add), each is asked
on their own phone: --approvers names who (default: everyone set up), and
--approvals how many must approve (default 1); any one of them denies. The
approvers and --approvals are part of the request. A click in the dialog
counts as the vote of the person set up under your user name; where that
is none of the approvers, no dialog is shown, only their phones are asked.

Exit codes:
` + exitCodeTable(),
		Example: `  ask-confirm --title Deploy --message "Ship v2 to production?" && ./deploy.sh
  ask-confirm --json --key release-42 --message "Tag v2.0.0?"`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.runConfirm(c.Context(), c.CommandPath(), c.Flags(), o)
		},
	}
	o.define(c.Flags())
	// --version, as ask-confirm version says it, and as the other
	// programs take it.
	c.Version = lifecycle.VersionLine("ask-confirm")
	c.SetVersionTemplate("{{.Version}}\n")
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return lifecycle.Usage(err) })
	c.SetHelpCommand(newHelpCommand())
	c.AddCommand(newVersionCommand(),
		newListCommand(a), newStatusCommand(a), newCancelCommand(a), newForgetCommand(a),
		newGCCommand(a), newHistoryCommand(a), newMCPCommand(), newDoctorCommand(a), newHookCommand(a),
		newChooseCommand(a), newInputCommand(a), newRemoteCommand(a))
	// cobra's completion command writes to the output the root has when
	// it is made.
	c.SetOut(a.stdout)
	c.SetErr(a.stderr)
	c.InitDefaultCompletionCmd()
	refuseUnknownSubcommands(c)
	a.addCompletions(c)
	return c
}

// refuseUnknownSubcommands gives each command of c's tree that only groups
// others (remote, remote approver, completion) a run of its own: bare, it
// prints its help (exit 0); with an argument that names none of its
// commands, it is a usage error (exit 2). cobra prints the help and exits 0
// for both, so a script's typo ("remote aprover add") would read as done.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Args != nil {
		// cobra's own commands (completion bash) check their arguments
		// with its validators, whose errors are usage errors too.
		c.Args = usageArgs(c.Args)
	}
	if !c.HasParent() || c.Runnable() || !c.HasSubCommands() {
		return
	}
	// Its arguments are this run's to judge (cobra's completion command
	// takes none, and says so as no usage error), and its usage line has
	// no flags: bare, it is its help.
	c.Args = cobra.ArbitraryArgs
	c.DisableFlagsInUseLine = true
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return lifecycle.Usage(fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath()))
		}
		return c.Help()
	}
}

// exitCodeTable is lifecycle.ExitCodes as a command's --help shows it:
// each meaning's first sentence, one short clause a line.
func exitCodeTable() string { return exitCodeLines(true) }

// exitCodeLines is lifecycle.ExitCodes as the help prints it: with brief,
// each meaning's first sentence on its line; else each meaning whole (help
// exit-codes), wrapped under itself past 80 columns.
func exitCodeLines(brief bool) string {
	var b strings.Builder
	for _, ec := range lifecycle.ExitCodes {
		meaning := strings.ReplaceAll(ec.Meaning, "`", "")
		if brief {
			meaning, _, _ = strings.Cut(meaning, ". ")
		}
		width := 80
		if brief {
			width = 0
		}
		b.WriteString(hangingLines(fmt.Sprintf("  %d  ", ec.Code), "     ", meaning, width))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// define defines the confirm command's flags on f, with the engine's
// defaults.
func (o *confirmOptions) define(f *pflag.FlagSet) {
	d := lifecycle.DefaultCall()
	r := &o.call.Request
	o.defineQuestion(f, d.Request.OKLabel, "approve")
	f.StringVar(&r.Icon, "icon", d.Request.Icon, "dialog icon: "+strings.Join(dialog.Icons, "|"))
	f.BoolVar(&r.DefaultApprove, "default-approve", false, "make Approve the default button (Enter approves)")
	f.DurationVar(&r.ApproveFor, "approve-for", 0, `add a button that approves for DURATION (1s to 168h)`)
	f.StringSliceVar(&r.Approvers, "approvers", nil, "ask these people (`NAME,...`), each on their own phone (default: everyone set up)")
	f.IntVar(&o.approvals, "approvals", 1, "`N` of the approvers must approve; any one of them denies")
	o.defineLifecycle(f, true)
}

// defineQuestion defines the flags of what every kind of question shows:
// its title, message and buttons.
func (o *confirmOptions) defineQuestion(f *pflag.FlagSet, okLabel, ok string) {
	d := lifecycle.DefaultCall()
	r := &o.call.Request
	f.StringVar(&r.Title, "title", d.Request.Title, fmt.Sprintf("window title (at most %d bytes)", dialog.MaxTitleBytes))
	f.StringVar(&r.Message, "message", "", fmt.Sprintf("the question, shown literally (required; at most %d bytes)", dialog.MaxMessageBytes))
	f.StringVar(&r.OKLabel, "ok-label", okLabel, fmt.Sprintf("label of the %s button, never a refusal (at most %d bytes)", ok, dialog.MaxLabelBytes))
	f.StringVar(&r.CancelLabel, "cancel-label", d.Request.CancelLabel, fmt.Sprintf("label of the cancel button, never an approval (at most %d bytes)", dialog.MaxLabelBytes))
}

// defineLifecycle defines the flags of the request's lifecycle, which every
// kind of question shares, and --json. headlessApprove offers
// --if-headless approve, which only a confirmation can give.
func (o *confirmOptions) defineLifecycle(f *pflag.FlagSet, headlessApprove bool) {
	d := lifecycle.DefaultCall()
	r := &o.call.Request
	f.DurationVar(&o.call.Wait, "wait", d.Wait, "how long to wait before exiting 3, pending (0 to 24h)")
	f.DurationVar(&o.call.Timeout, "timeout", d.Timeout, "how long the dialog stays open (above 0, at most 24h)")
	f.DurationVar(&o.call.Remember, "remember", d.Remember, "how long a received answer is reused (0 to 168h)")
	f.DurationVar(&o.call.CollectWithin, "collect-within", d.CollectWithin, "keep a late answer for a retry (0 to 168h), on ntfy while cached")
	f.StringVar(&r.Scope, "scope", "", "what tells identical requests apart (default: the working directory)")
	f.StringVar(&r.Key, "key", "", fmt.Sprintf("the request's name; a new question under it supersedes (at most %d bytes)", dialog.MaxKeyBytes))
	f.IntVar(&o.call.Retries, "retries", d.Retries, fmt.Sprintf("how often to show a dialog again that failed (0 to %d)", lifecycle.MaxRetries))
	if headlessApprove {
		f.StringVar(&o.call.IfHeadless, "if-headless", d.IfHeadless, "where nobody can be asked: fail (4), deny (1) or approve (0, logged)")
	} else {
		f.StringVar(&o.call.IfHeadless, "if-headless", d.IfHeadless, "where nobody can be asked: fail (4) or deny (1)")
	}
	f.StringVar(&o.call.Remote, "remote", "", "ask on the phone too: off, also, fallback or only (default: as remote setup recorded)")
	f.BoolVar(&o.noTerminal, "no-terminal", false, "never ask on the terminal; without a dialog, --if-headless decides")
	f.BoolVar(&o.noOrigin, "no-origin", false, `hide the line that says who asks and until when`)
	f.BoolVar(&o.json, "json", false, "print the outcome as one JSON object")
	f.SortFlags = false
}

// runConfirm runs the confirm command (or choose, or input: path is the
// command's, for the hints) once its flags, f, are parsed into o.
func (a *app) runConfirm(ctx context.Context, path string, f *pflag.FlagSet, o *confirmOptions) error {
	if !f.Changed("message") {
		r := lifecycle.ErrorResult("", lifecycle.ExitUsage, errors.New(msgNoMessage))
		r.Hint = fmt.Sprintf(hintFlagFor, path)
		return a.report(r, o.json)
	}
	wd, err := os.Getwd()
	if err != nil {
		return a.report(lifecycle.ErrorResult("", lifecycle.ExitInternal, fmt.Errorf(msgNoWorkDir, err)), o.json)
	}
	if !f.Changed("scope") {
		// Shown literally: a directory whose name holds a control
		// character is still a scope, not a --scope error.
		o.call.Request.Scope = dialog.DirScope(wd)
	}
	if f.Changed("approvers") {
		if err := dialog.CheckApproversGiven(o.call.Request.Approvers); err != nil {
			r := lifecycle.ErrorResult("", lifecycle.ExitUsage, err)
			r.Hint = fmt.Sprintf(hintFlagFor, path)
			return a.report(r, o.json)
		}
	}
	if f.Changed("approvals") {
		if o.approvals < 1 {
			r := lifecycle.ErrorResult("", lifecycle.ExitUsage, &dialog.InvalidError{Field: "--approvals", Reason: fmt.Sprintf(msgApprovalsBelowOne, o.approvals)})
			r.Hint = fmt.Sprintf(hintFlagFor, path)
			return a.report(r, o.json)
		}
		o.call.Request.Approvals = o.approvals
	}
	if o.call.Request.Title == "" {
		// The window shows the default title for an empty one: so do list,
		// history and the request's identity.
		o.call.Request.Title = dialog.DefaultTitle
	}
	if !o.noOrigin {
		// Who asks: the program that ran ask-confirm, and where.
		home, _ := os.UserHomeDir()
		o.call.Request.Origin = dialog.Origin(platform.ProcessName(os.Getppid()), wd, home)
	}
	call, promptDone, closeTerminal, notAsked, promptHere := a.onTerminal(ctx, o)
	// The terminal stays ours until the outcome is printed: the next
	// prompt on it waits for that, and does not share its line.
	defer closeTerminal()
	if a.progress != nil {
		// A prompt of this invocation counts down itself, and one of
		// another on the same terminal has the line: then it is quiet.
		call.Watch = &countdown{w: a.progress, now: a.engine.Now, quiet: promptHere}
	}
	r, err := a.engine.Ask(ctx, call)
	promptDone()
	if err != nil {
		r = lifecycle.ErrorResult("", lifecycle.ExitUsage, err)
		r.Hint = fmt.Sprintf(hintFlagFor, path)
	}
	if r.Headless && notAsked != "" {
		// Nobody could be asked, yet a terminal may be right there: say
		// why it was not asked.
		r.Message += fmt.Sprintf(msgTerminalNotAsked, notAsked)
	}
	if r.Headless && r.ExitCode == lifecycle.ExitApproved && o.json {
		// Without --json the outcome line itself says so on stderr.
		a.out.warn(errors.New(r.Message))
	}
	return a.report(r, o.json)
}

// onTerminal gives o's call the terminal as its Channel, where a person is
// typing at this invocation's terminal and o allows it: the engine then
// asks there when no dialog can be shown.
// The prompt lives in this process (Attached), so this invocation waits
// for it up to --timeout whatever --wait says. done ends a prompt still
// shown and waits until its answer is recorded; call it before printing the
// outcome, so the terminal is itself again. closeTerminal lets the next
// prompt on the terminal have it; call it once the outcome is printed.
// notAsked says why the terminal is not asked, when it is not: for the
// outcome's line should nobody be asked at all. promptHere reports
// whether another invocation's prompt is on this terminal now.
func (a *app) onTerminal(ctx context.Context, o *confirmOptions) (call lifecycle.Call, done, closeTerminal func(), notAsked string, promptHere func() bool) {
	call = o.call
	none, no := func() {}, func() bool { return false }
	switch {
	case a.terminal == nil:
		return call, none, none, "", no
	case o.noTerminal:
		return call, none, none, msgNoTerminalFlag, no
	}
	if why := terminalOffBy(a.lookupEnv); why != "" {
		return call, none, none, why, no
	}
	t, err := a.terminal()
	if err != nil {
		return call, none, none, err.Error(), no
	}
	locks := a.engine.Paths().Locks
	prompting, stop := context.WithCancel(context.WithoutCancel(ctx))
	call.Channel = &lifecycle.Channel{
		Name:     terminal.ChannelName,
		Backend:  t.Backend(locks),
		Context:  prompting,
		Attached: true,
	}
	// Not prepared here: the engine decides whether the terminal asks
	// only once it needs to ask at all, after a remembered answer.
	return call, func() {
		stop()
		a.engine.Drain()
	}, func() { t.Close() }, "", func() bool { return t.PromptShown(locks) }
}

// countdown is the Watcher for a person watching a terminal. It
// rewrites one line and clears it when the wait ends, so the final one-line
// outcome stands alone. It says where the question is open: a caller
// that joined a question asked on another terminal, or on the phone
// alone, would otherwise wait with nothing on its screen.
type countdown struct {
	w   io.Writer
	now func() time.Time
	// quiet reports that another invocation's prompt has the terminal's
	// lines: the countdown leaves them alone.
	quiet func() bool
	// channel and phone are how the request is asked (AskedOn).
	channel, phone string
	shown          bool
}

func (c *countdown) AskedOn(channel, phone string) { c.channel, c.phone = channel, phone }

// countdownColumns bounds the countdown's line: a line that wraps on an
// 80-column terminal leaves a row behind at each tick, since \r returns
// only to the start of its last row.
const countdownColumns = 79

// Waiting rewrites the line: how long is left, and where and until when
// the question is open. The time left is the question's, at most: a
// caller that waits until the request ends waits a moment past it, which
// is not the person's time.
func (c *countdown) Waiting(left time.Duration, until time.Time) {
	if c.quiet != nil && c.quiet() {
		return
	}
	c.shown = true
	now := time.Now()
	if c.now != nil {
		now = c.now()
	}
	if open := until.Sub(now); !until.IsZero() && open < left {
		left = max(open, 0)
	}
	left, at := left.Round(time.Second), dialog.ClockSeconds(until.Local(), now)
	var lines []string
	switch {
	case c.channel == "" && c.phone == "":
		lines = []string{fmt.Sprintf(msgCountdown, left, at), fmt.Sprintf(msgCountdownShort, left, at)}
	default:
		where := askedOn(c.channel, c.phone)
		lines = []string{fmt.Sprintf(msgCountdownOn, left, where, at), fmt.Sprintf(msgCountdownOnShort, left, where)}
	}
	line := lines[len(lines)-1]
	for _, l := range lines {
		if utf8.RuneCountInString(l) <= countdownColumns {
			line = l
			break
		}
	}
	fmt.Fprint(c.w, "\r\033[K"+line)
}

func (c *countdown) Done() {
	if c.shown {
		fmt.Fprint(c.w, "\r\033[K")
	}
}

// askedOn says where a request asked through channel, and on the phone as
// phone says, is open.
func askedOn(channel, phone string) string {
	var where string
	switch {
	case channel == terminal.ChannelName:
		where = msgOnAnotherTerminal
	case channel != "":
		where = fmt.Sprintf(msgThrough, channel)
	case phone == "only":
		return msgOnThePhone
	default:
		where = msgInTheDialog
	}
	if phone != "" {
		return fmt.Sprintf(msgAndOnThePhone, where)
	}
	return where
}

// terminalOffBy says which variable of lookupEnv's environment turns the
// terminal prompt off, or "" for none: ASK_CONFIRM_NO_TERMINAL (set, to
// any value, an empty one included: a person who wrote
// ASK_CONFIRM_NO_TERMINAL= meant it off), as --no-terminal does for every
// command run with it; CI (any value but empty, false in any case, and
// 0), which CI systems set for their jobs, some of which run commands
// under a pseudo-terminal; and CLAUDECODE (any value but empty), which
// Claude Code sets for the commands its agent runs. An empty CI or
// CLAUDECODE counts as unset, as other programs read them. Such a terminal belongs to a
// program, which would have to answer, or leave the prompt standing until
// --timeout.
func terminalOffBy(lookupEnv func(string) (string, bool)) string {
	for _, v := range []string{"ASK_CONFIRM_NO_TERMINAL", "CI", "CLAUDECODE"} {
		switch val, set := lookupEnv(v); {
		case !set, v != "ASK_CONFIRM_NO_TERMINAL" && val == "", v == "CI" && (strings.EqualFold(val, "false") || val == "0"):
		default:
			return fmt.Sprintf(msgTerminalOffBy, v, val)
		}
	}
	return ""
}
