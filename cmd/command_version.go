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
		Short: "Print the version of ask-confirm",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(c.OutOrStdout(), "ask-confirm %s (%s, %s/%s)\n", lifecycle.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
