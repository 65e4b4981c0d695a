package cmd

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// printer writes the lines meant for a person to stderr, in ask-confirm's
// one style: "ask-confirm: error: ...", "ask-confirm: warning: ...",
// "ask-confirm: hint: ...". Every command prints through it.
type printer struct{ w io.Writer }

func (p printer) line(kind, msg string) error {
	_, err := fmt.Fprintln(p.w, "ask-confirm: "+kind+msg)
	return err
}

func (p printer) error(msg string) error { return p.line("error: ", msg) }

func (p printer) warn(err error) { p.line("warning: ", err.Error()) }

// hint prints msg, unless it is empty.
func (p printer) hint(msg string) error {
	if msg == "" {
		return nil
	}
	return p.line("hint: ", msg)
}

// result writes r: the JSON object on stdout with asJSON, and a one-line
// summary on stderr otherwise, after the answer to a choice or an input on
// stdout. Stdout carries nothing but the JSON. A hint and a warning go to
// stderr either way: they are for the person reading the log.
func (p printer) result(stdout io.Writer, r lifecycle.Result, asJSON bool) error {
	var err error
	if answer, ok := theAnswer(r); ok && !asJSON && r.ExitCode == lifecycle.ExitApproved {
		// What choose and input print: the answer on stdout, and the
		// one-line summary on stderr as ever.
		if _, err := io.WriteString(stdout, answer); err != nil {
			return err
		}
	}
	switch {
	case asJSON:
		err = writeJSON(stdout, r)
	case r.Status == lifecycle.StatusError:
		err = p.error(r.Message)
	case r.ExitCode != lifecycle.ExitApproved && r.ExitCode != lifecycle.ExitDenied && r.ExitCode != lifecycle.ExitPending:
		err = p.line(r.Status+": ", r.Message)
	default:
		err = p.line("", r.Message)
	}
	if err == nil {
		err = p.hint(r.Hint)
	}
	if err == nil && r.Warning != "" {
		err = p.line("warning: ", r.Warning)
	}
	return err
}

func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
