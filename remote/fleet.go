package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNoFleet is the error of a fleet's command on a setup without a
// fleet's secret (made before fleets): no machine can find or verify the
// fleet's record with it.
var ErrNoFleet = errors.New("the phone's setup has no fleet's secret (it was made before fleets): run ask-confirm remote setup again on the machine that made it, then remote export for the others")

// What a fleet's cancel found of each request of the key (FleetCancel.Outcome).
const (
	// FleetCancelledNow: it was open, and is now cancelled on every
	// machine and on the phone.
	FleetCancelledNow = "cancelled"
	// It had ended before: cancelled, superseded, answered (a machine
	// took its answer, or the phone was told how it ended), or closed
	// (its time was over, or its asker ended it).
	FleetWasCancelled  = "was-cancelled"
	FleetWasSuperseded = "was-superseded"
	FleetWasAnswered   = "was-answered"
	FleetWasClosed     = "was-closed"
)

type (
	// CancelArgs is what Program's cancel reads: the setup, and the
	// --key whose requests the fleet ends.
	CancelArgs struct {
		Config Config `json:"config"`
		Key    string `json:"key"`
	}
	// FleetCancel is one request of the key on the fleet's record: its
	// id, the server's time of its record (Unix seconds), when it
	// closes (0 for never), and what the cancel found (FleetCancelledNow
	// and the others).
	FleetCancel struct {
		ID      string `json:"id"`
		Asked   int64  `json:"asked"`
		Closes  int64  `json:"closes"`
		Outcome string `json:"outcome"`
	}
	// fleetCancelOut is what Program's cancel writes.
	fleetCancelOut struct {
		Found []FleetCancel `json:"found"`
		Error string        `json:"error,omitempty"`
	}
)

// CancelOnFleet ends the fleet's open requests asked with --key key,
// through Program (program is its path; empty finds it), on every machine
// waiting for them and on the phone, for a machine that holds none of them
// itself. It returns what it found of each request of the key on the
// fleet's record; none where the record holds none. Its error says what
// could not be read or written; what was found until then is returned.
func CancelOnFleet(ctx context.Context, c Config, key, program string) ([]FleetCancel, error) {
	if c.SecretKey() == nil {
		return nil, ErrNoFleet
	}
	out, err := runFleet(ctx, program, "cancel", CancelArgs{Config: c, Key: key})
	return out.Found, err
}

// runFleet runs Program's command cmd, told args, and reads what it
// found, with its error.
func runFleet(ctx context.Context, program, cmd string, args any) (fleetCancelOut, error) {
	c, stdin, stdout, err := run(program, cmd, args)
	if err != nil {
		return fleetCancelOut{}, err
	}
	stdin.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Process.Kill() })
	defer stop()
	var out fleetCancelOut
	err = json.NewDecoder(stdout).Decode(&out)
	if werr := c.Wait(); err == nil && werr != nil {
		err = werr
	}
	switch {
	case err != nil:
		return fleetCancelOut{}, fmt.Errorf("%s: %w", Program, err)
	case out.Error != "":
		return out, errors.New(out.Error)
	}
	return out, nil
}

// WriteFleetResult writes what Program's cancel found, for CancelOnFleet.
func WriteFleetResult(enc *json.Encoder, found []FleetCancel, err error) error {
	out := fleetCancelOut{Found: found}
	if err != nil {
		out.Error = err.Error()
	}
	return enc.Encode(out)
}

// RevokeArgs is what Program's revoke reads: the setup, and the name of
// the person removed from it.
type RevokeArgs struct {
	Config Config `json:"config"`
	Name   string `json:"name"`
}

// RevokeOnFleet writes, through Program (program is its path; empty finds
// it), that the person called name is removed from the fleet's setup:
// every machine of the fleet then counts none of their taps on a request
// put on the phones before it, whatever its own copy of the setup says.
func RevokeOnFleet(ctx context.Context, c Config, name, program string) error {
	if c.SecretKey() == nil {
		return ErrNoFleet
	}
	_, err := runFleet(ctx, program, "revoke", RevokeArgs{Config: c, Name: name})
	return err
}
