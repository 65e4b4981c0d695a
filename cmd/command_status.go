package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func newStatusCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status KEY",
		Short: "Show one request; exits with the code collecting it would give",
		Long: `Show one request. KEY is the identity (or a unique prefix of at least 4
characters, as ask-confirm list shows it) or the --key it was asked with (list
shows it too); a KEY that is both one request's --key and the start of another's
identity names neither (exit 2).
The exit code is the one running the request again would give now: 0 only
for an approval that is still remembered, or that no caller has collected
yet within its --collect-within; 3 while the dialog is open (pending) or
when asking again would ask anew (stale: its holder is gone without an
answer, or it is past the window that kept it, or it is a failure or a
withdrawal, which are never reused). It judges by the --remember and
--collect-within the request was asked with, and names the window that
keeps the answer, or the one that lapsed: a run with a longer --remember
may still return an older answer. --json carries the request's state (see
docs/scripting.md, Request states). Looking does not collect the answer.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			rec, err := a.engine.Find(args[0])
			if err != nil {
				return err
			}
			r := a.engine.StatusOf(rec)
			uncollected := a.engine.EntryOf(rec).Uncollected
			if asJSON {
				err = writeJSON(a.stdout, struct {
					lifecycle.Result
					Title       string `json:"title"`
					Uncollected bool   `json:"uncollected"`
				}{r, rec.Title, uncollected})
			} else {
				msg := r.Message
				if uncollected && r.State == lifecycle.StateKept {
					msg += "; " + lifecycle.MsgUncollected
				}
				_, err = fmt.Fprintf(a.stdout, msgRequestLine+"\n", dialog.ShortIdentity(rec.Identity), rec.Title, msg)
			}
			if err != nil {
				return err
			}
			return &exitError{r.ExitCode}
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the request as one JSON object")
	return c
}
