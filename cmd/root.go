// Package cmd is ask-confirm's command line and the only place that knows
// the request lifecycle: it combines the dialog, the store and the platform.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Main runs ask-confirm with the process's arguments and returns its exit
// code.
func Main() int { return newApp().main(os.Args[1:]) }

// main runs ask-confirm with args. An invocation of the confirm command
// with nothing but its flags (no subcommand, no stray word, no --help)
// runs without the command tree: building it costs about a tenth of a
// remembered answer's whole process. Anything else, a flag error included,
// goes through the command tree, which gives the same outcome for what the
// quick path runs and the one wording for every error.
func (a *app) main(args []string) int {
	if code, ok := a.quickConfirm(args); ok {
		return code
	}
	return a.execute(newRootCommand(a), args)
}

// quickConfirm runs the confirm command and returns its exit code when args
// hold only its flags and parse without error; ok is false, with nothing
// done, otherwise.
func (a *app) quickConfirm(args []string) (code int, ok bool) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// A subcommand or a stray word: not the confirm command's flags
		// alone, so defining them here would be wasted.
		return 0, false
	}
	f := pflag.NewFlagSet("ask-confirm", pflag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.Usage = func() {}
	o := &confirmOptions{}
	o.define(f)
	if f.Parse(args) != nil || f.NArg() > 0 {
		return 0, false
	}
	err := a.runConfirm(context.Background(), f, o)
	if err == nil {
		err = errNoOutcome
	}
	return a.exit(args, err), true
}

// errNoOutcome stands in for a nil error from the confirm command, which
// always reports its outcome as an exitError: a bare nil would be a bug,
// and must not read as approval.
var errNoOutcome = errors.New("the confirm command ended without an outcome")

// execute runs root, the confirm command, and turns the outcome into an
// exit code, printing any error that has not been printed yet.
func (a *app) execute(root *cobra.Command, args []string) int {
	ran, err := a.run(root, args)
	if help := ran.Flags().Lookup("help"); err == nil && ran == root && (help == nil || !help.Changed) {
		err = errNoOutcome
	}
	return a.exit(args, err)
}

// run runs root with args and returns the command that ran.
func (a *app) run(root *cobra.Command, args []string) (*cobra.Command, error) {
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	return root.ExecuteC()
}

// exit turns a command's error into the exit code, printing it unless it is
// an exitError, whose explanation has been printed already.
func (a *app) exit(args []string, err error) int {
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		code := exitCodeFor(err)
		if wantsJSON(args) {
			// Scripts that asked for JSON get their one object even when
			// the command line did not parse.
			errorResult("", code, err).print(a.stdout, a.stderr, true)
		}
		fmt.Fprintf(a.stderr, "ask-confirm: error: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(a.stderr, "ask-confirm: hint: %s\n", hintFlag)
		}
	}
	return int(exitCodeFor(err))
}

// wantsJSON reports whether --json appears among the raw arguments, for
// errors that happen before the flags are parsed.
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true", "--json=1":
			return true
		}
	}
	return false
}

// Limits on the durations, as stated in the help text.
const (
	maxWait     = 24 * time.Hour
	maxTimeout  = 24 * time.Hour
	maxRemember = 7 * 24 * time.Hour
	maxRetries  = 5
)

// defaultCollectWithin is how long an answer nobody has received yet waits
// for the request to be made again. It covers an answer given near the end
// of the default 5-minute --timeout followed by a retry ten minutes later
// (a coffee, an agent busy elsewhere), and is short enough that an approval
// forgotten for longer than that does not surprise anyone.
const defaultCollectWithin = 15 * time.Minute

// confirmOptions are the root command's flags.
type confirmOptions struct {
	req      dialog.Request
	wait     time.Duration
	timeout  time.Duration
	remember time.Duration
	// collectWithin bounds how long an answer nobody has received is kept
	// for the next identical request; below remember it counts as remember.
	collectWithin time.Duration
	retries       int
	ifHeadless    string
	json          bool
	// watch, if set, follows the wait (a countdown, progress notices).
	watch Watcher
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
within --remember.

Exit codes:
  0  approved by a person (now, collected later, or within --remember)
  1  denied: Cancel, Esc, window closed, or ask-confirm cancel
  2  usage error or invalid input
  3  pending: the dialog is still open; run the same command again
  4  nobody can be asked (no display) and no --if-headless default
  5  expired: --timeout passed unanswered (a deny)
  6  the dialog could not be shown
  7  superseded by a newer request with the same --key
  8  internal error (store unusable); never an approval`,
		Example: `  ask-confirm --title Deploy --message "Ship v2 to production?" && ./deploy.sh
  ask-confirm --json --key release-42 --message "Tag v2.0.0?"`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.runConfirm(c.Context(), c.Flags(), o)
		},
	}
	o.define(c.Flags())
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	c.AddCommand(newVersionCommand(), newHoldCommand(a),
		newListCommand(a), newStatusCommand(a), newCancelCommand(a), newForgetCommand(a),
		newGCCommand(a), newHistoryCommand(a), newMCPCommand(a), newDoctorCommand(a))
	return c
}

// reuse is how long the invocation takes an ended request's answer.
func (o *confirmOptions) reuse() reuse {
	return reuse{remember: o.remember, collectWithin: max(o.collectWithin, o.remember)}
}

// define defines the confirm command's flags on f, for the command tree
// and for the quick path alike.
func (o *confirmOptions) define(f *pflag.FlagSet) {
	f.StringVar(&o.req.Title, "title", dialog.DefaultTitle, fmt.Sprintf("window title (at most %d bytes)", dialog.MaxTitleBytes))
	f.StringVar(&o.req.Message, "message", "", fmt.Sprintf("the question to ask (required; at most %d bytes; shown literally, never as markup)", dialog.MaxMessageBytes))
	f.StringVar(&o.req.OKLabel, "ok-label", "Approve", fmt.Sprintf("label of the approve button (at most %d bytes)", dialog.MaxLabelBytes))
	f.StringVar(&o.req.CancelLabel, "cancel-label", "Cancel", fmt.Sprintf("label of the cancel button (at most %d bytes)", dialog.MaxLabelBytes))
	f.StringVar(&o.req.Icon, "icon", "question", "dialog icon: "+strings.Join(dialog.Icons, "|"))
	f.BoolVar(&o.req.DefaultApprove, "default-approve", false, "make Approve the default button, so Enter approves (default: Cancel is the default button)")
	f.DurationVar(&o.wait, "wait", 45*time.Second, "longest time this invocation blocks before exiting 3 (pending); 0 returns at once (0 to 24h)")
	f.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the dialog stays open unanswered before it expires (above 0, at most 24h)")
	f.DurationVar(&o.remember, "remember", 60*time.Second, "how long an answer, once some caller has received it, is returned again to the same request without a new dialog (0 to 168h)")
	f.DurationVar(&o.collectWithin, "collect-within", defaultCollectWithin, "how long an answer that no caller has received yet (its caller stopped waiting) is kept for the next identical request, which receives it once; never less than --remember (0 to 168h)")
	f.StringVar(&o.req.Scope, "scope", "", "what separates identical requests (default: the working directory)")
	f.StringVar(&o.req.Key, "key", "", fmt.Sprintf("explicit identity; a new message under the same key supersedes the open dialog (at most %d bytes)", dialog.MaxKeyBytes))
	f.IntVar(&o.retries, "retries", 2, fmt.Sprintf("how many times to show the dialog again when it fails to render or its holder dies (0 to %d)", maxRetries))
	f.StringVar(&o.ifHeadless, "if-headless", "fail", "what to do when nobody can be asked: fail (exit 4), deny (exit 1) or approve (exit 0, logged)")
	f.BoolVar(&o.json, "json", false, "print exactly one JSON object with the outcome on stdout")
	f.SortFlags = false
}

// validate checks everything about the invocation that does not need the
// store. Errors wrap dialog.ErrInvalid.
func (o *confirmOptions) validate() error {
	if err := o.req.Validate(); err != nil {
		return err
	}
	bad := func(flag, reason string) error { return &dialog.InvalidError{Field: flag, Reason: reason} }
	switch {
	case o.wait < 0 || o.wait > maxWait:
		return bad("--wait", fmt.Sprintf("%s is outside 0 to %s", o.wait, maxWait))
	case o.timeout <= 0 || o.timeout > maxTimeout:
		return bad("--timeout", fmt.Sprintf("%s is outside (0, %s]", o.timeout, maxTimeout))
	case o.remember < 0 || o.remember > maxRemember:
		return bad("--remember", fmt.Sprintf("%s is outside 0 to %s", o.remember, maxRemember))
	case o.collectWithin < 0 || o.collectWithin > maxRemember:
		return bad("--collect-within", fmt.Sprintf("%s is outside 0 to %s", o.collectWithin, maxRemember))
	case o.retries < 0 || o.retries > maxRetries:
		return bad("--retries", fmt.Sprintf("%d is outside 0 to %d", o.retries, maxRetries))
	}
	switch o.ifHeadless {
	case "fail", "deny", "approve":
	default:
		return bad("--if-headless", fmt.Sprintf("%q is not one of fail, deny, approve", o.ifHeadless))
	}
	return nil
}

// runConfirm runs the confirm command once its flags, f, are parsed into o.
func (a *app) runConfirm(ctx context.Context, f *pflag.FlagSet, o *confirmOptions) error {
	if !f.Changed("message") {
		r := errorResult("", ExitUsage, errors.New("--message is required"))
		r.hint = hintFlag
		return a.report(r, o.json)
	}
	if !f.Changed("scope") {
		wd, err := os.Getwd()
		if err != nil {
			return a.report(errorResult("", ExitInternal, fmt.Errorf("finding the working directory for --scope: %w", err)), o.json)
		}
		o.req.Scope = wd
	}
	if err := o.validate(); err != nil {
		r := errorResult("", ExitUsage, err)
		r.hint = hintFlag
		return a.report(r, o.json)
	}
	if a.progress != nil {
		o.watch = countdown{a.progress}
	}
	return a.report(a.confirm(ctx, o), o.json)
}

// report prints r and returns the error that carries its exit code.
func (a *app) report(r Result, asJSON bool) error {
	if err := r.print(a.stdout, a.stderr, asJSON); err != nil && r.ExitCode == ExitApproved {
		// An approval nobody could read is no approval.
		return &exitError{ExitInternal}
	}
	return &exitError{r.ExitCode}
}
