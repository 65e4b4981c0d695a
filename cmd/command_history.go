package cmd

import (
	"fmt"
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
				outcome := e.Outcome
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
