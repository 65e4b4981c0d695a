package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// choose and input ask questions beyond yes or no with the same lifecycle
// as a confirmation: the same flags for it, the same exit codes, and the
// answer on stdout.

func newChooseCommand(a *app) *cobra.Command {
	o := &confirmOptions{}
	var options, defaults []string
	c := &cobra.Command{
		Use:   "choose --message TEXT --option LABEL --option LABEL... [flags]",
		Short: "Ask a person to pick one option, or several, and print the labels picked",
		Long: `ask-confirm choose shows a list of options and prints the label of the one
the person picks (with --multiple, of each, one per line) on stdout, with
exit code 0. Cancel, Esc, or OK with nothing picked exit 1; with --default,
OK without a pick takes the default, which the list marks "(default)".
--other adds a last option, "Other…", with which the person types an answer
of their own, printed in place of a label ("other": true with --json).

An option is "LABEL" or "LABEL=DESCRIPTION"; the description is shown beside
the label, and only the label is printed. Write "==" for an "=" inside a
label. Labels are one line each, distinct, at most ` + fmt.Sprint(dialog.MaxOptionBytes) + ` bytes, and do not
start with '-'; a choice has 2 to ` + fmt.Sprint(dialog.MaxOptions) + ` options. The options, their order,
--multiple and --default are part of the question: an answer is returned
only to the same question again.

Everything else works as for ask-confirm itself: the dialog outlives the
caller, the same command again collects the answer, and the exit codes are
the same. --json prints the outcome with "answer": the label, or with
--multiple the list of labels.

Exit codes:
` + exitCodeTable(),
		Example: `  env=$(ask-confirm choose --message "Deploy to?" --option staging --option production) && ./deploy.sh "$env"
  ask-confirm choose --multiple --message "Run which checks?" --option lint --option unit --option e2e --default lint`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			r := &o.call.Request
			r.Kind, r.Options, r.Selected = dialog.Choose, nil, defaults
			for _, s := range options {
				r.Options = append(r.Options, dialog.ParseOption(s))
			}
			return a.runConfirm(c.Context(), c.CommandPath(), c.Flags(), o)
		},
	}
	f := c.Flags()
	o.defineQuestion(f, "OK", "OK")
	f.StringArrayVar(&options, "option", nil, `an option, LABEL or LABEL=DESCRIPTION; repeat it, in order`)
	f.BoolVar(&o.call.Request.Multiple, "multiple", false, "let the person pick several options, one per output line")
	f.BoolVar(&o.call.Request.Other, "other", false, `add "`+dialog.OtherLabel+`", for an answer the person types`)
	f.StringArrayVar(&defaults, "default", nil, "an option picked in advance; repeat it with --multiple")
	o.defineLifecycle(f, false)
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return lifecycle.Usage(err) })
	return c
}

func newInputCommand(a *app) *cobra.Command {
	o := &confirmOptions{}
	var text []string
	c := &cobra.Command{
		Use:   "input --message TEXT [--default TEXT] [flags]",
		Short: "Ask a person for one line of text, and print it",
		Long: `ask-confirm input shows a text field and prints what the person typed on
stdout, with exit code 0; an empty answer prints an empty line. Cancel or Esc
exit 1.

There is no password mode, by design: ask-confirm is for questions whose
answers may be kept. A remembered answer is kept in the answer store, which
only its owner can read (mode 0600), for --remember and --collect-within
like any other; the history keeps only its SHA-256. Never ask for secrets
with it.

Everything else works as for ask-confirm itself, and --default is part of
the question. --json prints the outcome with "answer": the text.

Exit codes:
` + exitCodeTable(),
		Example:       `  name=$(ask-confirm input --message "Name of the release?" --default v2.0.0) && git tag "$name"`,
		Args:          usageArgs(cobra.NoArgs),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if len(text) > 1 {
				// A string flag would keep the last silently.
				return lifecycle.Usage(fmt.Errorf(msgDefaultTwice, len(text)))
			}
			o.call.Request.Kind = dialog.Input
			if len(text) == 1 {
				o.call.Request.Text = text[0]
			}
			return a.runConfirm(c.Context(), c.CommandPath(), c.Flags(), o)
		},
	}
	f := c.Flags()
	o.defineQuestion(f, "OK", "OK")
	f.StringArrayVar(&text, "default", nil, fmt.Sprintf("the text the field starts with (one line, at most %d bytes)", dialog.MaxTextBytes))
	o.defineLifecycle(f, false)
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return lifecycle.Usage(err) })
	return c
}

// theAnswer is what choose and input print on stdout for r: each label on
// a line, or the text and a newline; nothing for a confirmation.
func theAnswer(r lifecycle.Result) (string, bool) {
	switch a := r.Answer.(type) {
	case string:
		return a + "\n", true
	case []string:
		s := ""
		for _, l := range a {
			s += l + "\n"
		}
		return s, true
	}
	return "", false
}
