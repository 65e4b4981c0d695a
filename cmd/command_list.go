package cmd

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func newListCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List open requests and remembered answers",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			entries, err := a.engine.Entries()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, entries)
			}
			return a.printEntries(entries)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of requests")
	return c
}

func (a *app) printEntries(entries []lifecycle.Entry) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(a.stdout, msgListEmpty)
		return err
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "IDENTITY\tWAY\tSTATUS\tAGE\tLEFT\tTITLE\tKEY")
	for _, e := range entries {
		// What status would say of it now (its state), in a word or
		// two: "pending", "stale (holder gone)", "approved (uncollected)".
		status := e.Outcome
		if e.Note != "" {
			status += " " + fmt.Sprintf(msgListNote, e.Note)
		}
		if e.ApprovalsNeeded > 0 && e.Approvals != nil {
			status += " " + fmt.Sprintf(msgListApprovals, *e.Approvals, e.ApprovalsNeeded)
		}
		key := e.Key
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dialog.ShortIdentity(e.Identity), e.Channel, status,
			seconds(e.AgeSeconds), seconds(e.LeftSeconds), e.Title, key)
	}
	return w.Flush()
}

func seconds(s float64) string {
	return (time.Duration(s) * time.Second).Round(time.Second).String()
}
