// Package cmd is ask-confirm's command line: one front end of the request
// engine (package lifecycle), with one file per command. It turns flags into
// a lifecycle.Call, asks the engine, and prints what came of it; the
// lifecycle itself lives in the engine.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/terminal"
)

// Main runs the command line in os.Args and returns its exit code, the
// answer. A process the engine started from ask-confirm to hold a dialog
// (lifecycle.HolderMain) holds it instead.
func Main() int {
	if code, ok := lifecycle.HolderMain(os.Args[1:], lifecycle.Config{}); ok {
		return code
	}
	a := newApp(lifecycle.Config{}, os.Stdout, os.Stderr)
	a.terminal = func() (terminalPrompt, error) { return terminal.Open() }
	return a.execute(os.Args[1:])
}

// Command is ask-confirm's command tree as Main runs it, with cobra's help
// and completion commands, for the generated manual and shell completions
// (internal/docgen). Running it is Main's job.
func Command() *cobra.Command {
	root := newRootCommand(newApp(lifecycle.Config{}, io.Discard, io.Discard))
	root.InitDefaultCompletionCmd()
	return root
}

// app is everything a command touches outside its own arguments. Main builds
// the real one; tests build theirs with a fake holder start or clock.
type app struct {
	engine *lifecycle.Engine
	stdout io.Writer
	stderr io.Writer
	out    printer
	// progress receives the waiting countdown; nil unless stderr is a
	// terminal, so scripts and log files never see it.
	progress io.Writer
	// terminal opens the terminal a person runs this invocation from, to
	// ask there where no dialog can be shown (terminal.Open). Nil never
	// asks on a terminal: the tests' apps, whose terminal, if any, is the
	// developer's.
	terminal func() (terminalPrompt, error)
	// remoteFile is where the phone's settings are (remote.DefaultPath).
	remoteFile string
	// lookupEnv reads this invocation's environment for the variables
	// that turn the terminal prompt off (terminalOffBy): os.LookupEnv, or
	// a test's own environment, so that a CI system's CI=true does not
	// decide it.
	lookupEnv func(string) (string, bool)
	// localName is the name remote setup gives the first phone's person
	// where --name gives none (remote.LocalName), or a test's.
	localName func() string
	// verifyRemote checks a setup against its server through the phone's
	// program (remote.VerifySetup), or a test's stand-in.
	verifyRemote func(context.Context, remote.VerifyArgs) []remote.Finding
	// revokeRemote tells the fleet that a person is removed from the
	// setup (remote.RevokeOnFleet), or is a test's stand-in.
	revokeRemote func(ctx context.Context, c remote.Config, name string) error
}

// getenv is the value of the variable name in the invocation's
// environment (lookupEnv), empty where it is not set.
func (a *app) getenv(name string) string {
	v, _ := a.lookupEnv(name)
	return v
}

// terminalPrompt is an open terminal as the command line uses it: a
// *terminal.Terminal, or a test's stand-in.
type terminalPrompt interface {
	Backend(lockDir string) dialog.Backend
	Name() string
	Close() error
	// PromptShown reports whether another invocation's prompt is on
	// the terminal now.
	PromptShown(lockDir string) bool
}

func newApp(c lifecycle.Config, stdout, stderr io.Writer) *app {
	if c.RemoteFile == "" {
		c.RemoteFile = remote.DefaultPath()
	}
	a := &app{stdout: stdout, stderr: stderr, out: printer{stderr}, lookupEnv: os.LookupEnv, remoteFile: c.RemoteFile,
		localName: remote.LocalName, verifyRemote: func(ctx context.Context, args remote.VerifyArgs) []remote.Finding {
			return remote.VerifySetup(ctx, args, "")
		}, revokeRemote: func(ctx context.Context, c remote.Config, name string) error {
			return remote.RevokeOnFleet(ctx, c, name, "")
		}}
	c.Warn = a.out.warn
	a.engine = lifecycle.New(c)
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		a.progress = stderr
	}
	return a
}

// execute runs the command tree with args and turns the outcome into an
// exit code, printing any error that has not been printed yet.
func (a *app) execute(args []string) int {
	root := newRootCommand(a)
	if args == nil {
		// cobra reads os.Args for nil arguments; these are the whole input.
		args = []string{}
	}
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetContext(context.Background())
	ran, err := root.ExecuteC()
	if err == nil && ran == root && !changed(ran, "help") && !changed(ran, "version") {
		// The confirm command always reports its outcome as an exitError:
		// a bare nil would be a bug, and must not read as approval.
		err = errNoOutcome
	}
	return a.exit(ran.CommandPath(), args, err)
}

// changed reports whether c's flag name was given.
func changed(c *cobra.Command, name string) bool {
	f := c.Flags().Lookup(name)
	return f != nil && f.Changed
}

// errNoOutcome stands in for a nil error from the confirm command.
var errNoOutcome = errors.New(msgNoOutcome)

// exit turns the error of the command at path ("ask-confirm forget") into
// the exit code, printing it unless it is an exitError, whose explanation
// has been printed already, with a hint of what to type next.
func (a *app) exit(path string, args []string, err error) int {
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		code := exitCodeFor(err)
		if wantsJSON(args) {
			// Scripts that asked for JSON get their one object even when
			// the command line did not parse.
			writeJSON(a.stdout, lifecycle.ErrorResult("", code, err))
		}
		a.out.error(err.Error())
		var ue *lifecycle.UsageError
		var hinted interface{ Hint() string }
		switch {
		case errors.As(err, &hinted):
			// A refused directory, or a key that names several requests:
			// the error says what to give instead.
			a.out.hint(hinted.Hint())
		case errors.Is(err, lifecycle.ErrUnknownKey):
			a.out.hint(hintList)
		case errors.As(err, &ue) && strings.HasSuffix(path, " help"):
			a.out.hint(hintHelp)
		case errors.As(err, &ue):
			a.out.hint(fmt.Sprintf(hintFlagFor, path))
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

// report prints r and returns the error that carries its exit code.
func (a *app) report(r lifecycle.Result, asJSON bool) error {
	if err := a.out.result(a.stdout, r, asJSON); err != nil && r.ExitCode == lifecycle.ExitApproved {
		// An approval nobody could read is no approval.
		return &exitError{lifecycle.ExitInternal}
	}
	return &exitError{r.ExitCode}
}

// usageArgs makes cobra's argument checks report usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return lifecycle.Usage(err)
		}
		return nil
	}
}
