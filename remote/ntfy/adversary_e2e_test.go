//go:build e2e && unix

package ntfy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// These tests hold the fleet's record against an adversary who saw one
// notification: a shoulder, a shared phone, a synced notification log.
// That person holds the answer token, the question's tag and the
// notification's buttons, each as its action says (URL, headers, body),
// and writes the reply topic at will, against the real ntfy. On every
// machine the outcome is the person's answer, or a deny: never an
// approval the person did not give; and an answer given is collected.

// adversary writes the reply topic as whoever saw notification seen can.
type adversary struct {
	t    *testing.T
	seen ntfytest.Message
	hc   *http.Client
}

func newAdversary(t *testing.T, seen ntfytest.Message) *adversary {
	return &adversary{t: t, seen: seen, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}}
}

// button is seen's button labelled label.
func (a *adversary) button(label string) ntfytest.Action {
	a.t.Helper()
	for _, act := range a.seen.Actions {
		if act.Label == label {
			return act
		}
	}
	a.t.Fatalf("no button %q in %+v", label, a.seen.Actions)
	return ntfytest.Action{}
}

// post sends body as seen's buttons do (their URL, their answer token,
// their question's tag), with extra headers; it returns the server's
// status.
func (a *adversary) post(body string, extra map[string]string) int {
	act := a.seen.Actions[0]
	req, err := http.NewRequest(http.MethodPost, act.URL, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	for k, v := range act.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Logf("posting to the reply topic: %v", err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// replay re-sends the button labelled label, scheduled by X-Delay delay.
func (a *adversary) replay(label, delay string) {
	a.t.Helper()
	if code := a.post(a.button(label).Body, map[string]string{"X-Delay": delay}); code != http.StatusOK {
		a.t.Fatalf("the server refused a replay scheduled in %s: %d", delay, code)
	}
}

// flood posts n bodies, body(i), from 8 writers at once.
func (a *adversary) flood(n int, body func(i int) string) {
	a.t.Helper()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				// ntfy answers 500 ("database is locked") now and then
				// under a burst on a busy machine: the adversary tries
				// again, as anyone flooding would.
				ok := false
				for try := 0; try < 10 && !ok; try++ {
					if ok = a.post(body(i), nil) == http.StatusOK; !ok {
						time.Sleep(time.Duration(try+1) * 50 * time.Millisecond)
					}
				}
				if !ok {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		a.t.Fatalf("the server refused %d of the flood's %d messages", f, n)
	}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// delayedTick is a moment at which the server publishes what is due
// among its scheduled messages: ntfy does so every 10 s, from its start,
// and a message sent with X-Delay is published at the first of those
// moments after its time, stamped with its time. A probe is scheduled,
// and its arrival watched for.
func delayedTick(t *testing.T, s *ntfytest.Server) time.Time {
	t.Helper()
	const topic = "probe"
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/"+s.ReplyTopic, strings.NewReader("probe"))
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	req.Header.Set("X-Delay", "10s")
	req.Header.Set("X-Tags", topic)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scheduling a probe: %v %v", resp, err)
	}
	resp.Body.Close()
	cl := client{c: configOf(s), http: http.DefaultClient}
	cl.c.Token = s.AskerToken
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ms, err := cl.poll(context.Background(), s.ReplyTopic, "all", keepAll, topic)
		if err == nil && len(ms) > 0 {
			return time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the scheduled probe was not published within 30 s")
	return time.Time{}
}

// published waits until the reply topic shows a message whose body is
// body, as the server published it, and returns its server time.
func published(t *testing.T, s *ntfytest.Server, body string) int64 {
	t.Helper()
	cl := client{c: configOf(s), http: http.DefaultClient}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ms, err := cl.poll(context.Background(), s.ReplyTopic, "all", keepAll)
		for _, m := range ms {
			if err == nil && m.Message == body {
				return m.Time
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%q was not published within 30 s", body)
	return 0
}

// A button replayed with X-Delay is stamped with its scheduled time S and
// published up to 10 s later: a poll after S does not show it, the person
// answers, and then it appears, dated before that answer. The machine that
// asked reads the person's answer; a machine that asks later reads both
// and denies: the replay changes no outcome to an approval. A replay
// scheduled days ahead is never read while the request is open. On
// 3481494, a later machine took the replayed Approve (the earliest tap by
// its time), and, in a vote, Bob's replayed Approve as his first vote.
func TestAdversaryScheduledReplay(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		vote                    bool
		replayed, tapped, delay string
		// laterDenies says a later machine must read a deny; otherwise
		// the person's answer or a deny.
		laterDenies bool
	}{
		{name: "an Approve dated before the person's Cancel", replayed: "Approve", tapped: "Cancel", delay: "10s", laterDenies: true},
		{name: "an Approve for 1h dated before the person's Approve", replayed: "Approve for 1h", tapped: "Approve", delay: "10s"},
		{name: "an Approve scheduled three days ahead", replayed: "Approve", tapped: "Cancel", delay: "72h", laterDenies: true},
		{name: "Bob's Approve dated before his Cancel, in a vote", vote: true, replayed: "Approve", tapped: "Cancel", delay: "10s", laterDenies: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, people := ntfytest.NewWithPeople(t, "Alice", "Bob", "Carol")
			c := fleetConfig(t, s)
			c.Name = people[0].Name
			for _, p := range people[1:] {
				c.Approvers = append(c.Approvers, remote.Approver{Name: p.Name, Topic: p.Topic})
			}
			phones := map[string]*ntfytest.Phone{}
			for _, p := range people {
				phones[p.Name] = ntfytest.NewPhoneOf(t, s, p)
			}
			r := confirmRequest("Rotate the signing key?")
			r.ApproveFor = time.Hour
			r.Key = "xd-1"
			who := "Alice"
			if tc.vote {
				r.Approvers, r.Approvals, who = []string{"Alice", "Bob", "Carol"}, 2, "Bob"
			}
			asker := newMachine(c, 15*time.Minute)
			a := askFor(asker, r)
			seen := phones[who].Await(1)
			asker.awaitSent(t)
			adv := newAdversary(t, seen)

			// S, the replay's time, falls just after a tick of the
			// server's sender, and the replay is published at the next,
			// some 9 s after S: the person answers in between.
			tick := delayedTick(t, s).Add(10 * time.Second)
			time.Sleep(time.Until(tick.Add(-10*time.Second + 1200*time.Millisecond)))
			adv.replay(tc.replayed, tc.delay)
			time.Sleep(time.Until(tick.Add(2500 * time.Millisecond)))
			if tc.vote {
				phones["Alice"].Tap(phones["Alice"].Await(1), "Approve")
			}
			phones[who].Tap(seen, tc.tapped)
			<-a.done
			if time.Now().After(tick.Add(9 * time.Second)) {
				t.Fatalf("the asker returned %s after the tick, when the replay may be published: the case did not run as designed", time.Since(tick))
			}
			ans, err := asker.wait(t)
			personApproved := tc.tapped == "Approve"
			if err != nil || ans.Approved != personApproved || ans.For != 0 {
				t.Fatalf("the asker: %+v %v, want the person's %s", ans, err, tc.tapped)
			}
			if tc.delay == "10s" {
				replayAt := published(t, s, adv.button(tc.replayed).Body)
				if replayAt > tick.Unix()+2 || replayAt < tick.Unix() {
					t.Fatalf("the replay is stamped %d, want S, just after the tick at %d", replayAt, tick.Unix())
				}
			}
			later := newMachine(c, 15*time.Minute)
			later.Remember = time.Hour
			ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
			defer stop()
			got, err := ask(ctx, later.Backend, r).wait(t)
			switch {
			case err != nil:
				t.Fatalf("a machine that asks later: %v", err)
			case got.Approved && (tc.laterDenies || !personApproved || got.For != 0):
				t.Fatalf("a machine that asks later approves (%+v) after the person's %s: the replay changed the outcome", got, tc.tapped)
			}
			t.Logf("the asker read approved=%v; a machine that asked later read approved=%v", ans.Approved, got.Approved)
		})
	}
}

// Ten thousand messages under the question's tag, written with the answer
// token the notification carries (made-up taps naming the request, taps
// of another question's request, records under a made-up fleet's name),
// hide nothing: the person's tap after them is collected by a machine
// that never asked, with no second message on the phone. On 3481494, the
// look-up read the first 1,000 and the re-run waited for a tap it could
// not see.
func TestAdversaryFloodHidesNoRecord(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)

	// Another question, asked and approved: its buttons are replayed
	// under this one's tag.
	other := confirmRequest("Restart the cache?")
	other.Key = "other-" + randomHex(4)
	om := newMachine(c, 15*time.Minute)
	askFor(om, other)
	otherSeen := phone.Await(1)
	phone.Tap(otherSeen, "Approve")
	if ans, err := om.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the other question: %+v %v", ans, err)
	}
	phone.Await(2)

	r := confirmRequest("Deploy v3 to production?")
	r.Key = "flood-" + randomHex(4)
	asker := newMachine(c, 15*time.Minute)
	a := askFor(asker, r)
	seen := phone.Await(3)
	asker.gone(t, a)

	id := requestIDOf(t, seen)
	adv := newAdversary(t, seen)
	const junk = 10000
	began := time.Now()
	adv.flood(junk, func(i int) string {
		switch i % 3 {
		case 0:
			return replyPrefix + "req=" + id + " cap=" + randomHex(capabilityBytes) + " mac=" + randomHex(32)
		case 1:
			return otherSeen.Actions[i%len(otherSeen.Actions)].Body
		default:
			return replyPrefix + "rec=answer fleet=" + randomHex(16) + " req=" + id + " choice=approve mac=" + randomHex(32)
		}
	})
	t.Logf("the flood of %d messages took %s", junk, time.Since(began).Round(time.Millisecond))
	if code := phone.Tap(seen, "Approve"); code != http.StatusOK {
		t.Fatalf("the tap got %d", code)
	}
	rerun := newMachine(c, 15*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The reference: one bare poll of the question's tag, which now
	// holds the flood, as the look-up makes it.
	tag := seen.Actions[0].Headers["X-Tags"]
	cl := client{c: c, http: http.DefaultClient}
	start := time.Now()
	if _, err := cl.poll(ctx, c.ReplyTopic, "all", keepAll, tag); err != nil {
		t.Fatal(err)
	}
	bare := time.Since(start)
	start = time.Now()
	x := ask(ctx, rerun.Backend, r)
	<-x.done
	took := time.Since(start)
	ans, err := x.wait(t)
	if err != nil || !ans.Approved {
		t.Fatalf("the re-run after %d junk messages: %+v %v after %s, want the approval given on the phone", junk, ans, err, took)
	}
	t.Logf("the re-run collected the approval in %s, past %d junk messages under its tag; a bare poll of the tag took %s", took.Round(time.Millisecond), junk, bare.Round(time.Millisecond))
	if f := phone.Await(4); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("follow-up %q", f.Message)
	}
	time.Sleep(time.Second)
	if n := phone.Count(); n != 4 {
		t.Fatalf("the phone received %d messages, want two requests and their follow-ups", n)
	}
}

// Lines in the fleet's name that name the request and fail their MAC (a
// cancel, an answer given on a machine) end nothing and answer nothing, and
// each is recorded as a forgery; so is a tap whose MAC is wrong, apart from
// one without any. The person's tap after them decides. On 3481494 the
// records were dropped without a word, and a wrong MAC was recorded as
// none.
func TestAdversaryForgedRecordsAreRecorded(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Publish the release?")
	r.Key = "publish-1"
	asker := newMachine(c, 15*time.Minute)
	a := askFor(asker, r)
	seen := phone.Await(1)
	asker.awaitSent(t)
	id := requestIDOf(t, seen)
	fleet := fleetID(c.SecretKey())
	approve := seen.Actions[len(seen.Actions)-1]
	if approve.Label != "Approve" {
		t.Fatalf("the last button is %q", approve.Label)
	}
	adv := newAdversary(t, seen)
	wrongMAC := strings.Replace(approve.Body, " mac=", " mac=0", 1)
	wrongMAC = wrongMAC[:len(wrongMAC)-1]
	noMAC, _, _ := strings.Cut(approve.Body, " mac=")
	for _, body := range []string{
		replyPrefix + "rec=cancel fleet=" + fleet + " req=" + id + " mac=" + randomHex(32),
		replyPrefix + "rec=answer fleet=" + fleet + " req=" + id + " choice=approve mac=" + randomHex(32),
		wrongMAC,
		noMAC,
	} {
		if code := adv.post(body, nil); code != http.StatusOK {
			t.Fatalf("posting %q: %d", body, code)
		}
	}
	waitFor(t, func() bool {
		n := 0
		for _, r := range asker.ignoredList() {
			if r == ignoredForgedRecord {
				n++
			}
		}
		return n == 2 && asker.ignoredAs(ignoredForeign) && asker.ignoredAs(ignoredNoMAC)
	}, func() string { return fmt.Sprintf("ignored %q", asker.ignoredList()) })
	select {
	case <-a.done:
		t.Fatalf("a forged record ended the request: %+v %v", a.ans, a.err)
	default:
	}
	phone.Tap(seen, "Cancel")
	if ans, err := asker.wait(t); err != nil || ans.Approved {
		t.Fatalf("the asker: %+v %v, want the person's Cancel", ans, err)
	}
}
