package cmd

import (
	"errors"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// ExitCode is ask-confirm's public API: the process exit status. The numbers
// never change meaning; see the table in README.md.
type ExitCode int

// The exit codes, as in the design's table.
const (
	ExitApproved   ExitCode = 0 // a person approved this request
	ExitDenied     ExitCode = 1 // denied, cancelled, Esc or window closed
	ExitUsage      ExitCode = 2 // usage error or invalid input
	ExitPending    ExitCode = 3 // the dialog is still open; ask again to collect
	ExitHeadless   ExitCode = 4 // no one can be asked and no --if-headless default
	ExitExpired    ExitCode = 5 // the dialog timed out unanswered; a deny
	ExitFailed     ExitCode = 6 // the dialog could not be shown
	ExitSuperseded ExitCode = 7 // a newer request under the same --key replaced this one
	ExitInternal   ExitCode = 8 // the store is unusable or similar; never an approval
)

// exitError carries an exit code whose explanation has already been printed.
type exitError struct{ code ExitCode }

func (e *exitError) Error() string { return "exit status " + strconv.Itoa(int(e.code)) }

// usageError marks an error in the command line itself.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageArgs makes cobra's argument checks report usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// exitCodeFor maps the error a command returned to the process's exit code.
// Anything it does not recognise is internal: never 0. An exitError counts
// only as the error itself: an approval wrapped together with a failure is
// a failure.
func exitCodeFor(err error) ExitCode {
	var ee *exitError
	var ue *usageError
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	switch {
	case err == nil:
		return ExitApproved
	case errors.As(err, &ee) && ee.code != ExitApproved:
		return ee.code
	case errors.As(err, &ue), errors.Is(err, dialog.ErrInvalid):
		return ExitUsage
	default:
		return ExitInternal
	}
}
