package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of ask-confirm, and the commit it was built from",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			built := ""
			if rev, at := lifecycle.Build(); rev != "" {
				built = "commit " + rev
				if at != "" {
					built += ", " + at
				}
				built += "; "
			}
			_, err := fmt.Fprintf(c.OutOrStdout(), "ask-confirm %s (%s%s, %s/%s)\n", lifecycle.Version(), built, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
