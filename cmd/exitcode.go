package cmd

import (
	"errors"
	"strconv"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// exitError carries an exit code whose explanation has already been printed.
type exitError struct{ code lifecycle.ExitCode }

func (e *exitError) Error() string { return "exit status " + strconv.Itoa(int(e.code)) }

// exitCodeFor maps the error a command returned to the process's exit code.
// Anything it does not recognise is internal: never 0. An exitError counts
// only as the error itself: an approval wrapped together with a failure is
// a failure.
func exitCodeFor(err error) lifecycle.ExitCode {
	var ee *exitError
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	switch {
	case err == nil:
		return lifecycle.ExitApproved
	case errors.As(err, &ee) && ee.code != lifecycle.ExitApproved:
		return ee.code
	case lifecycle.IsUsage(err):
		return lifecycle.ExitUsage
	default:
		return lifecycle.ExitInternal
	}
}
