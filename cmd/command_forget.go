package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
)

func newForgetCommand(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "forget KEY | --all",
		Short: "Drop remembered answers, so the next request shows a dialog",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			recs, err := a.selectRecords(args, all, a.engine.Find)
			if err != nil {
				return err
			}
			var ids []string
			for _, r := range recs {
				if !r.Final {
					fmt.Fprintf(a.stdout, msgRequestLine+"\n", dialog.ShortIdentity(r.Identity), r.Title, msgForgetOpen)
					continue
				}
				ids = append(ids, r.Identity)
			}
			n, err := a.engine.Forget(ids)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, msgForgot+"\n", n)
			return err
		},
	}
	c.Flags().BoolVar(&all, "all", false, "forget every remembered answer")
	return c
}
