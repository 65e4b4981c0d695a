package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ask-confirm/ask-confirm/store"
)

// Result is the outcome of one confirm invocation: what --json prints, and
// what the one-line message and exit code are made from.
type Result struct {
	Status      string    `json:"status"`
	ExitCode    ExitCode  `json:"exit_code"`
	Key         string    `json:"key"`
	Remembered  bool      `json:"remembered"`
	Rendered    bool      `json:"rendered"`
	Attempt     int       `json:"attempt"`
	ShouldRetry bool      `json:"should_retry"`
	RetryReason string    `json:"retry_reason,omitempty"`
	RequestedAt time.Time `json:"requested_at,omitzero"`
	AnsweredAt  time.Time `json:"answered_at,omitzero"`
	Message     string    `json:"message"`
	// hint says what to do next; it follows the message on stderr.
	hint string
}

// The status words of --json.
const (
	StatusApproved   = "approved"
	StatusDenied     = "denied"
	StatusCancelled  = "cancelled"
	StatusPending    = "pending"
	StatusExpired    = "expired"
	StatusHeadless   = "headless"
	StatusFailed     = "failed"
	StatusSuperseded = "superseded"
	StatusError      = "error"
)

// fromRecord turns the record of this invocation's own request into a
// result. Only a record whose status is Approved gives exit 0.
func fromRecord(rec store.Record, remembered bool) Result {
	r := Result{
		Key:         rec.Identity,
		Remembered:  remembered,
		Rendered:    !rec.ShownAt.IsZero(),
		Attempt:     rec.Attempt,
		RequestedAt: rec.RequestedAt,
		AnsweredAt:  rec.EndedAt,
	}
	switch rec.Status {
	case store.Approved:
		r.Status, r.ExitCode = StatusApproved, ExitApproved
		r.Message = msgApproved
	case store.Denied:
		r.Status, r.ExitCode = StatusDenied, ExitDenied
		r.Message = msgDenied
	case store.Cancelled:
		r.Status, r.ExitCode = StatusCancelled, ExitDenied
		r.Message = msgCancelled
	case store.Expired:
		r.Status, r.ExitCode = StatusExpired, ExitExpired
		r.Message = msgExpired
	case store.Superseded:
		r.Status, r.ExitCode = StatusSuperseded, ExitSuperseded
		r.Message = msgSuperseded
	case store.Failed:
		r.Status, r.ExitCode = StatusFailed, ExitFailed
		r.Message = fmt.Sprintf(msgFailed, rec.Reason)
	case store.Requested, store.Shown:
		r.Status, r.ExitCode = StatusPending, ExitPending
		r.Message, r.ShouldRetry, r.RetryReason = msgPending, true, msgRetryReason
		r.AnsweredAt = time.Time{}
	default:
		r.Status, r.ExitCode = StatusError, ExitInternal
		r.Message = fmt.Sprintf(msgUnknownStatus, rec.Status)
	}
	if remembered && r.ExitCode != ExitInternal {
		r.Message = fmt.Sprintf(msgRemembered, r.Message, rec.EndedAt.Local().Format(time.TimeOnly))
	}
	return r
}

func errorResult(key string, code ExitCode, err error) Result {
	return Result{Status: StatusError, ExitCode: code, Key: key, Message: err.Error()}
}

// print writes the result: the JSON object on stdout with --json, and a one
// line summary on stderr otherwise. Stdout carries nothing but the JSON. A
// hint goes to stderr either way: it is for the person reading the log.
func (r Result) print(stdout, stderr io.Writer, asJSON bool) error {
	var err error
	if asJSON {
		err = json.NewEncoder(stdout).Encode(r)
	} else {
		prefix := "ask-confirm: "
		if r.Status == StatusError {
			prefix += "error: "
		} else if r.ExitCode != ExitApproved && r.ExitCode != ExitDenied && r.ExitCode != ExitPending {
			prefix += r.Status + ": "
		}
		_, err = fmt.Fprintln(stderr, prefix+r.Message)
	}
	if r.hint != "" && err == nil {
		_, err = fmt.Fprintln(stderr, "ask-confirm: hint: "+r.hint)
	}
	return err
}

// Hint says what to do next, if anything; the command line prints it after
// the message.
func (r Result) Hint() string { return r.hint }
