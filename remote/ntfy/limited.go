package ntfy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ntfy bounds what one visitor (the client's address, /32 or /64, unless
// its account has a tier) may hold open: visitor-subscription-limit
// subscriptions, 30 by default, and a poll takes one too for as long as
// it is answered (server.go, handleSubscribeHTTP, checks the limit before
// it tells a poll from a stream). It counts every request besides
// (visitor-request-limit-burst and -replenish). Past either it answers
// 429, and only when a request opens: a stream once open is never cut for
// the limit. A machine's hub (hub.go) holds one stream for all its pending
// requests, but a fleet behind one NAT address shares the limit, and a
// request without a hub holds a stream of its own, so a stream refused for
// it reads its replies by polling (follow) rather than fail.

// limited is a request the server refused for its limits (429). at is the
// server's time when it refused (its Date), or 0 where it gave none.
type limited struct {
	error
	at int64
}

func (l limited) Unwrap() error { return l.error }

// limitedBy is the error for resp, a 429, met while doing what doing
// says.
func limitedBy(resp *http.Response, doing string) error {
	return limited{fmt.Errorf("%s: %s", doing, serverSaid(resp)), serverDate(resp)}
}

// serverDate is the server's time when it answered resp, in Unix seconds
// (its Date header, which Go's HTTP server, and so ntfy, always sends), or
// 0 where it gave none.
func serverDate(resp *http.Response) int64 {
	t, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return 0
	}
	return t.Unix()
}

// How often a request that reads its replies by polling polls: pollFirst
// after a poll that brought a message, then twice as long after each that
// brought none or was refused, up to pollAtMost. A tap so reaches it
// within pollAtMost, at about 12 requests a minute: ntfy's default
// request limit replenishes one every 5 s. After streamAgainAfter of
// polling, it tries a stream again, which the end of another request may
// have freed.
const (
	pollFirst        = time.Second
	pollAtMost       = 5 * time.Second
	streamAgainAfter = 30 * time.Second
)

// limitedWithin bounds the tries of a single poll (client.poll) refused
// for the server's limits: the fleet's look-up, claim and settling read
// the record once, and go on without it.
const limitedWithin = 5 * time.Second

// nextDelay is the delay after d between two polls that found nothing.
func nextDelay(d time.Duration) time.Duration {
	return min(2*d, pollAtMost)
}

// errStreamAgain ends a spell of polling (follow) so that a stream is
// tried again.
var errStreamAgain = errors.New("read the replies by polling for a while; trying a stream again")

// maxSeen bounds the IDs a spell of polling remembers to pass over a
// message read before.
const maxSeen = 4096

// follow reads topic as subscribe does: from since on, calling got for
// each message, opened once the server answered, and tooLong for a line
// too long to read. Where the server refuses the stream for its limits
// (limited), it reads topic by polling instead, filtered by tags on the
// server, from since or else from the server's time when it refused:
// opened is called with that time, the server being up, and got with
// each message in the order of the server's polls (by time, then as it
// stored them), each once. It returns as subscribe does, and with
// errStreamAgain after streamAgainAfter of polling that the server
// answered, with the ID of the last message read, for the stream to
// resume from.
func (cl client) follow(ctx context.Context, topic, since string, tags []string, opened func(serverTime int64), got func(message) bool, tooLong func(size int)) (string, error) {
	last, err := cl.subscribe(ctx, topic, since, opened, got, tooLong)
	var l limited
	if !errors.As(err, &l) {
		return last, err
	}
	at := l.at
	if at == 0 {
		at = time.Now().Unix()
	}
	if opened != nil {
		opened(at)
	}
	from := since
	if from == "" {
		from = strconv.FormatInt(at, 10)
	}
	seen := map[string]bool{}
	delay, streamAt := time.Duration(0), time.Now().Add(cmp.Or(cl.streamAgain, streamAgainAfter))
	for {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-time.After(delay):
		}
		ms, err := cl.pollOnce(ctx, topic, from, keepAll, tags)
		switch {
		case ctx.Err() != nil:
			return last, ctx.Err()
		case errors.As(err, new(limited)):
			delay = nextDelay(max(delay, pollFirst/2))
			continue
		case errors.As(err, new(forbidden)):
			return last, forbidden{fmt.Errorf("%w: %v", ErrRefused, err)}
		case err != nil:
			return last, err
		}
		if len(seen) > maxSeen {
			clear(seen)
		}
		for _, m := range ms {
			if seen[m.ID] {
				// A poll since a message returns what the server
				// stored after it, in its order by time: one stored
				// later with an earlier time comes again.
				continue
			}
			seen[m.ID] = true
			if !got(m) {
				return m.ID, nil
			}
		}
		if len(ms) > 0 {
			from, last = ms[len(ms)-1].ID, ms[len(ms)-1].ID
			delay = pollFirst
		} else {
			delay = nextDelay(max(delay, pollFirst/2))
		}
		if time.Now().After(streamAt) {
			return last, errStreamAgain
		}
	}
}

// pollTags are the tags a poll of q's replies is filtered by, on the
// server: for a fleet, its question's, which every tap, claim and record
// of the question carries; none without a fleet, whose buttons send no
// tag.
func (q *question) pollTags() []string {
	if q.key == nil {
		return nil
	}
	return []string{keyTag(q.key, q.identity)}
}
