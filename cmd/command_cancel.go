package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

func newCancelCommand(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "cancel KEY | --all",
		Short: "Close open dialogs; their requests end cancelled and their callers exit 1",
		Long: `Close open dialogs; their requests end cancelled and their callers exit 1.

KEY names a request of this machine: its --key, or a prefix of its identity. Where
none matches and the phone's setup has a fleet's secret, KEY is taken for a --key
that other machines of the fleet asked: its requests still open on the fleet's
record are cancelled on every machine waiting for them and on the phone, and a
re-run of one ends cancelled. --all cancels this machine's requests.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			recs, err := a.selectRecords(args, all, a.engine.FindOpen)
			if err != nil && !all && errors.Is(err, lifecycle.ErrUnknownKey) {
				// No request of the key on this machine: the fleet's, on
				// the server, if this machine shares a fleet's setup.
				return a.cancelOnFleet(c.Context(), args[0], err)
			}
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
				if _, err := remote.Load(a.remoteFile); err == nil {
					a.out.hint(msgCancelAllHere)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "cancel every open request of this machine")
	return c
}

// cancelOnFleet cancels the fleet's open requests of key, where this
// machine holds none of them (lifecycle.Engine.CancelOnFleet), and says
// what it found of each; local is the error of the key on this machine,
// which stands where no fleet is set up, or its record holds no request of
// the key.
func (a *app) cancelOnFleet(ctx context.Context, key string, local error) error {
	found, fleet, err := a.engine.CancelOnFleet(ctx, key)
	switch {
	case !fleet:
		return local
	case err != nil && len(found) == 0:
		a.out.error(fmt.Sprintf(msgFleetCancelFailed, err))
		return &exitError{lifecycle.ExitFailed}
	case len(found) == 0:
		a.out.error(local.Error())
		a.out.hint(fmt.Sprintf(msgFleetNoneOfKey, key))
		return &exitError{lifecycle.ExitUsage}
	}
	for _, f := range found {
		at := dialog.Clock(time.Unix(f.Asked, 0).Local(), time.Now())
		fmt.Fprintf(a.stdout, msgFleetRequestLine+"\n", shortFleetID(f.ID), key, at, fleetCancelSays[f.Outcome])
	}
	if err != nil {
		a.out.error(fmt.Sprintf(msgFleetCancelFailed, err))
		return &exitError{lifecycle.ExitFailed}
	}
	return nil
}

// shortFleetID is the first 8 characters of a fleet request's id.
func shortFleetID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// fleetCancelSays is what a fleet's cancel says of each request it found.
var fleetCancelSays = map[string]string{
	remote.FleetCancelledNow:  msgFleetCancelledNow,
	remote.FleetWasCancelled:  fmt.Sprintf(msgAlready, "cancelled"),
	remote.FleetWasSuperseded: fmt.Sprintf(msgAlready, "superseded"),
	remote.FleetWasAnswered:   msgFleetWasAnswered,
	remote.FleetWasClosed:     msgFleetWasClosed,
}

// reportError prints a failed result's message and hint, and returns its
// exit code.
func (a *app) reportError(r lifecycle.Result) lifecycle.ExitCode {
	a.out.error(r.Message)
	a.out.hint(r.Hint)
	return r.ExitCode
}
