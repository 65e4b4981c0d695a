package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newGCCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Remove old records and unused lock files, and compact the store",
		Long: `Remove the records past --remember, or, for an answer no caller has
received yet, past --collect-within; remove the lock files no request
uses; and compact the store.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			records, locks, compacted, err := a.engine.GC()
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, msgGCRemoved, records, locks)
			if compacted {
				fmt.Fprint(a.stdout, msgGCCompacted)
			}
			_, err = fmt.Fprintln(a.stdout)
			return err
		},
	}
}
