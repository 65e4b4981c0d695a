package ntfy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// cancelKey ends, on every machine of the fleet and on the phone, the
// fleet's open requests asked with --key rkey, for a machine that holds
// none of them (ask-confirm cancel KEY on the laptop whose setup the
// runners share, once the runners are gone or never were its own). It
// reads the key's records (keyOnlyTag), unmasks each request's identity
// (whoField) and verifies its claim; a request still open (its closing
// time to come, and no end, cancel, supersede, take or follow-up on
// record) gets the fleet's cancel, which every machine waiting for it
// reads as a cancel of its own (endOf), and which makes a re-run's
// look-up ask anew rather than collect. Its follow-up is sent once
// fleet-wide (tellAfter): a machine still waiting for the request tells
// the phone at once; this one waits for it first.
func cancelKey(ctx context.Context, c remote.Config, httpc *http.Client, rkey string, now time.Time) ([]remote.FleetCancel, error) {
	key := c.SecretKey()
	if key == nil {
		return nil, remote.ErrNoFleet
	}
	cl := client{c: c, http: httpc}
	if cl.http == nil {
		cl.http = &http.Client{CheckRedirect: noRedirect}
	}
	fleet := fleetID(key)
	ms, err := cl.poll(ctx, c.ReplyTopic, "all", func(m message) bool {
		f, ok := fields(m.Message)
		return ok && macEqual(f["fleet"], fleet)
	}, keyOnlyTag(key, rkey))
	if err != nil {
		// The poll's error says what it was reading.
		return nil, err
	}
	var out []remote.FleetCancel
	var qs []*question
	for _, m := range ms {
		f, _ := fields(m.Message)
		if f["rec"] != "open" {
			continue
		}
		identity, ok := unmaskWho(key, rkey, f["req"], f["who"])
		if !ok {
			continue
		}
		rec, ok := readClaim(key, identity, m)
		if !ok {
			continue
		}
		q := &question{key: key, identity: identity, rkey: rkey, id: rec.id, closes: rec.closes, ownID: rec.id}
		fc := remote.FleetCancel{ID: rec.id, Asked: rec.at, Closes: rec.closes}
		switch ended := endingIn(q, rec.id, ms); {
		case ended == recCancel:
			fc.Outcome = remote.FleetWasCancelled
		case ended == recSupersede:
			fc.Outcome = remote.FleetWasSuperseded
		case ended == recEnd, rec.closes != 0 && rec.closes <= now.Unix():
			fc.Outcome = remote.FleetWasClosed
		case recordedIn(q, rec.id, "taken", ms), toldBy(q, rec.id, ms) != "":
			// A machine took its answer, or the phone was told how it
			// ended.
			fc.Outcome = remote.FleetWasAnswered
		default:
			fc.Outcome = remote.FleetCancelledNow
			qs = append(qs, q)
		}
		out = append(out, fc)
	}
	b := &Backend{Config: c}
	var wg sync.WaitGroup
	failed := make([]bool, len(qs))
	for i, q := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !b.publishRecord(cl, q, recordBody(key, q.identity, q.id, recCancel), recCancel) {
				failed[i] = true
				return
			}
			// The request's own title is not on record: the follow-up
			// names the key.
			r := dialog.Request{Title: dialog.DefaultTitle}
			time.Sleep(toldWait)
			b.tellAfter(cl, q, r, "The request of key "+rkey+" was cancelled on another machine at "+dialog.Clock(now.Local(), now)+".", q.id)
		}()
	}
	wg.Wait()
	for i, q := range qs {
		if failed[i] {
			return out, fmt.Errorf("the fleet's cancel of request %s could not be written to %s", q.id, c.Server)
		}
	}
	slices.SortStableFunc(out, func(a, b remote.FleetCancel) int { return int(a.Asked - b.Asked) })
	return out, nil
}
