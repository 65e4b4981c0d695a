package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of ask-confirm, and the commit it was built from",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(c.OutOrStdout(), lifecycle.VersionLine("ask-confirm"))
			return err
		},
	}
}
