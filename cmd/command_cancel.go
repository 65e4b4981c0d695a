package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func newCancelCommand(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "cancel KEY | --all",
		Short: "Close open dialogs; their requests end cancelled and their callers exit 1",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			recs, err := a.selectRecords(args, all, a.engine.FindOpen)
			if err != nil {
				return err
			}
			n := 0
			for _, r := range recs {
				short := dialog.ShortIdentity(r.Identity)
				if r.Final {
					if !all {
						fmt.Fprintf(a.stdout, msgRequestLine+"\n", short, r.Title, fmt.Sprintf(msgAlready, r.Status))
					}
					continue
				}
				res, outcome := a.engine.Cancel(r)
				if res.ExitCode == lifecycle.ExitInternal {
					return &exitError{a.reportError(res)}
				}
				if outcome == lifecycle.EndedOtherwise {
					fmt.Fprintf(a.stdout, msgRequestLine+"\n", short, r.Title, fmt.Sprintf(msgAlready, res.Status))
					continue
				}
				fmt.Fprintf(a.stdout, msgRequestLine+"\n", short, r.Title, msgCancelledNow)
				n++
			}
			if all && n == 0 {
				fmt.Fprintln(a.stdout, msgNothingOpen)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "cancel every open request")
	return c
}

// reportError prints a failed result's message and hint, and returns its
// exit code.
func (a *app) reportError(r lifecycle.Result) lifecycle.ExitCode {
	a.out.error(r.Message)
	a.out.hint(r.Hint)
	return r.ExitCode
}
