package ntfy

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ask-confirm/ask-confirm/remote"
)

// A person removed from the setup (remote approver remove, which a move to
// another topic begins with) may have lost the phone their buttons are on:
// whoever holds it can tap them, and replay a tap, on every request still
// open. So the removal is written on the reply topic, for every machine of
// the fleet, whatever its own copy of the setup says:
//
//	a revocation: rec=revoke fleet=FLEET voter=V mac=MAC(V)
//
// with fleetTag and revokeTag. A person's taps on a request whose record
// the server took before their latest revocation, or in its second, count
// for nothing (revokedIn), on every machine that reads them: the request's
// record and the revocation are both dated by the server. A request asked
// after it (the person added again, on a new phone) counts their taps.
// What a machine cannot date, a request whose record it has not read,
// counts none of a revoked person's taps.

// revokeTag is the tag of the fleet's revocations.
func revokeTag(key []byte) string {
	return "acr-" + mac(key, "ask-confirm/2 revocations")[:24]
}

// revokeBody is the revocation of the person called name.
func revokeBody(key []byte, name string) string {
	v := voterID(name)
	return replyPrefix + "rec=revoke fleet=" + fleetID(key) + " voter=" + v + " mac=" + mac(key, "ask-confirm/2 revoke", v)
}

// revocations reads the fleet's revocations: for each voter revoked, the
// server's time of the latest.
func revocations(ctx context.Context, cl client, key []byte) (map[string]int64, error) {
	fleet := fleetID(key)
	ms, err := cl.poll(ctx, cl.c.ReplyTopic, "all", func(m message) bool {
		f, ok := fields(m.Message)
		return ok && f["rec"] == "revoke" && macEqual(f["fleet"], fleet) && macEqual(f["mac"], mac(key, "ask-confirm/2 revoke", f["voter"]))
	}, revokeTag(key))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, m := range ms {
		f, _ := fields(m.Message)
		out[f["voter"]] = max(out[f["voter"]], m.Time)
	}
	return out, nil
}

// revokedIn reports whether t, a person's tap, counts for nothing on a
// request whose record the server took at asked (0 for unknown): its
// person was revoked then or later.
func revokedIn(revoked map[string]int64, t tapped, asked int64) bool {
	if t.bt.by == "" {
		return false
	}
	at, ok := revoked[voterID(t.bt.by)]
	return ok && (asked == 0 || at >= asked)
}

// withRevocations reads the fleet's revocations into q, for a vote of a
// fleet: its tally counts no revoked person's taps. Where they cannot be
// read, q keeps those it read before, and reason says why.
func (b *Backend) withRevocations(ctx context.Context, cl client, q *question) {
	if q.key == nil || !q.voting() {
		return
	}
	r, err := revocations(ctx, cl, q.key)
	if err != nil {
		b.ignored(fmt.Sprintf("the fleet's revocations could not be read, so the votes are counted by those read before: %v", err))
		return
	}
	q.mu.Lock()
	q.revoked = r
	q.mu.Unlock()
}

// notRevoked are the taps of taps that count on q's request (revokedIn).
func (q *question) notRevoked(taps []tapped) []tapped {
	q.mu.Lock()
	revoked, asked := q.revoked, q.askedAt
	q.mu.Unlock()
	if len(revoked) == 0 {
		return taps
	}
	var out []tapped
	for _, t := range taps {
		if !revokedIn(revoked, t, asked) {
			out = append(out, t)
		}
	}
	return out
}

// ignoredRevoked is why a revoked person's tap is ignored.
func ignoredRevoked(name string) string {
	return "a vote by " + name + ", removed from the setup after this request was asked (remote approver remove): it does not count"
}

// revoke writes the revocation of the person called name on the fleet's
// reply topic, and reads it back: every machine of the fleet then counts
// none of their taps on a request asked before.
func revoke(ctx context.Context, c remote.Config, httpc *http.Client, name string) error {
	key := c.SecretKey()
	if key == nil {
		return remote.ErrNoFleet
	}
	cl := client{c: c, http: httpc}
	if cl.http == nil {
		cl.http = &http.Client{CheckRedirect: noRedirect}
	}
	body := revokeBody(key, name)
	if _, err := cl.publish(ctx, message{Topic: c.ReplyTopic, Message: body, Tags: []string{fleetTag, revokeTag(key)}}); err != nil {
		return fmt.Errorf("writing the revocation of %s on %s: %w", name, c.Server, err)
	}
	r, err := revocations(ctx, cl, key)
	if err != nil {
		return fmt.Errorf("reading back the revocation of %s on %s: %w", name, c.Server, err)
	}
	if _, ok := r[voterID(name)]; !ok {
		return fmt.Errorf("the revocation of %s was written to %s, but the server does not list it (is its cache off?)", name, c.Server)
	}
	return nil
}
