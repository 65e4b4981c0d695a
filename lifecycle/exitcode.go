package lifecycle

import (
	"errors"
	"strconv"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// ExitCode is ask-confirm's public API: the process exit status that every
// front end reports a request's outcome with. The numbers never change
// meaning.
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

// ExitCodes is the table of exit codes with what each means, in order: the
// one definition that the help prints and that README.md's table must
// match. A command's --help shows each meaning's first sentence, one short
// clause; help exit-codes shows it whole.
var ExitCodes = []struct {
	Code    ExitCode
	Meaning string
}{
	{ExitApproved, "approved by a person, now, collected by a later run, or within the remember window"},
	{ExitDenied, "denied: Cancel, Esc, window closed, or cancelled by `ask-confirm cancel`. Also a request withdrawn by an agent hook that handed the question back to its host"},
	{ExitUsage, "usage error or invalid input"},
	{ExitPending, "pending: the dialog is still open when `--wait` runs out. Run the same command again to collect the answer. Also `status` of a request whose answer is stale (its holder gone, or its window lapsed): asking again asks anew"},
	{ExitHeadless, "nobody can be asked: no display or interactive session, and no `--if-headless` default"},
	{ExitExpired, "expired: the dialog's `--timeout` passed with no answer. Counts as a deny"},
	{ExitFailed, "the dialog could not be shown: backend missing, or it crashed or failed to render after retries. Also a request to be asked on the phone alone whose server could not be reached or refused the setup, and a `cancel KEY` or `remote approver remove` that must reach the fleet's server and could not"},
	{ExitSuperseded, "superseded: a newer request with the same `--key` replaced this one"},
	{ExitInternal, "internal error: the store is unusable or similar. Never an approval"},
}

func (c ExitCode) String() string { return strconv.Itoa(int(c)) }

// UsageError marks a mistake in a front end's command line: a flag that
// does not parse, or a combination that means nothing. Front ends exit
// ExitUsage for it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// IsUsage reports whether err is the caller's mistake, which every front
// end reports as ExitUsage: a UsageError, a request that is not valid
// (dialog.ErrInvalid), or a key that names no stored request.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue) || errors.Is(err, dialog.ErrInvalid) || errors.Is(err, ErrUnknownKey)
}

// Usage marks err as a mistake in a front end's command line (UsageError).
func Usage(err error) error { return &UsageError{Err: err} }
