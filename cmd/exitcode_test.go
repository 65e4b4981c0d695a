package cmd

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	"github.com/ask-confirm/ask-confirm/dialog"
)

func TestExitCodeFor(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want lifecycle.ExitCode
	}{
		{"success", nil, lifecycle.ExitApproved},
		{"an unparsable flag", lifecycle.Usage(errors.New("unknown flag: --bogus")), lifecycle.ExitUsage},
		{"a wrapped unparsable flag", fmt.Errorf("parsing: %w", lifecycle.Usage(errors.New("bad"))), lifecycle.ExitUsage},
		{"an invalid request", &dialog.InvalidError{Field: "--message", Reason: "must not be empty"}, lifecycle.ExitUsage},
		{"a wrapped invalid request", fmt.Errorf("checking: %w", &dialog.InvalidError{Field: "--title", Reason: "too long"}), lifecycle.ExitUsage},
		{"the bare invalid-request sentinel", dialog.ErrInvalid, lifecycle.ExitUsage},
		{"an unknown error", errors.New("disk on fire"), lifecycle.ExitInternal},
		{"an I/O error", io.ErrUnexpectedEOF, lifecycle.ExitInternal},
		{"a wrapped unknown error", fmt.Errorf("opening answer store: %w", errors.New("EIO")), lifecycle.ExitInternal},
	}
	for code := lifecycle.ExitApproved; code <= lifecycle.ExitInternal; code++ {
		// An approval only counts as the error itself; wrapped in another
		// error it is a failure somewhere on the way, and never exits 0.
		wrapped := code
		if code == lifecycle.ExitApproved {
			wrapped = lifecycle.ExitInternal
		}
		cases = append(cases,
			struct {
				name string
				err  error
				want lifecycle.ExitCode
			}{fmt.Sprintf("an outcome already reported as %d", code), &exitError{code}, code},
			struct {
				name string
				err  error
				want lifecycle.ExitCode
			}{fmt.Sprintf("a wrapped outcome %d", code), fmt.Errorf("running: %w", &exitError{code}), wrapped},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := exitCodeFor(c.err)
			if got != c.want {
				t.Errorf("exitCodeFor(%v) = %d, want %d", c.err, got, c.want)
			}
			var ee *exitError
			if c.err != nil && got == lifecycle.ExitApproved && !(errors.As(c.err, &ee) && ee.code == lifecycle.ExitApproved) {
				t.Errorf("exitCodeFor(%v) = 0: an error other than a reported approval exits 0", c.err)
			}
		})
	}
}
