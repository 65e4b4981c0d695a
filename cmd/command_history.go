package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
)

func newHistoryCommand(a *app) *cobra.Command {
	var (
		since  time.Duration
		key    string
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "history",
		Short: "Show the audit history: who was asked what, and what came of it",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			events, bad, err := a.engine.Events(since, key)
			if err != nil {
				return err
			}
			if bad > 0 {
				a.out.warn(fmt.Errorf(msgHistoryUnreadable, bad, a.engine.Paths().History))
			}
			if asJSON {
				return writeJSON(a.stdout, events)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, e := range events {
				outcome := historyOutcome(e.Outcome, e.By, e.ApprovedBy, e.DeniedBy)
				if e.Reason != "" {
					outcome += " (" + e.Reason + ")"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format("2006-01-02 15:04:05"), e.Event, dialog.ShortIdentity(e.Identity), e.Title, outcome)
			}
			return w.Flush()
		},
	}
	c.Flags().DurationVar(&since, "since", 0, "only events newer than this (e.g. 1h)")
	c.Flags().StringVar(&key, "key", "", "only events of this request: identity, prefix or --key")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of events")
	return c
}

// historyOutcome is what the history's table says came of an event: its
// outcome, with who voted on a vote event, by ("alice approved"), and who
// decided on the events of a request of several approvers that ended.
func historyOutcome(outcome, by string, approvedBy, deniedBy []string) string {
	if by != "" {
		return fmt.Sprintf(msgHistoryVote, by, outcome)
	}
	var who []string
	if len(approvedBy) > 0 {
		who = append(who, fmt.Sprintf(msgHistoryApprovedBy, dialog.Names(approvedBy)))
	}
	if len(deniedBy) > 0 {
		who = append(who, fmt.Sprintf(msgHistoryDeniedBy, dialog.Names(deniedBy)))
	}
	if len(who) == 0 {
		return outcome
	}
	return fmt.Sprintf(msgHistoryDecided, outcome, strings.Join(who, ", "))
}
