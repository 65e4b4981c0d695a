package lifecycle

import (
	"context"

	"github.com/ask-confirm/ask-confirm/remote"
)

// CancelOnFleet ends the fleet's open requests asked with --key key, on
// every machine waiting for them and on the phone, for a machine that
// holds none of them (remote.CancelOnFleet): the laptop whose setup the
// runners share, once they are gone. fleet is false where this machine has
// no phone's setup with a fleet's secret, and nothing was tried.
func (e *Engine) CancelOnFleet(ctx context.Context, key string) (found []remote.FleetCancel, fleet bool, err error) {
	s, err := e.loadRemote()
	if err != nil || s.SecretKey() == nil {
		return nil, false, nil
	}
	found, err = remote.CancelOnFleet(ctx, s.Config, key, "")
	return found, true, err
}
