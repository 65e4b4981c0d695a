package lifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// stepName names a step for failure messages.
func stepName(s step) string {
	switch s {
	case stepReturn:
		return "return"
	case stepWait:
		return "wait"
	case stepSpawn:
		return "spawn"
	case stepSupersede:
		return "supersede"
	case stepReplaced:
		return "replaced"
	case stepGiveUp:
		return "give up"
	case stepReport:
		return "report"
	case stepPending:
		return "pending"
	}
	return fmt.Sprintf("step(%d)", int(s))
}

// The fixed world every decide case is judged in.
var (
	decideNow      = time.Date(2025, 11, 22, 13, 0, 0, 0, time.UTC)
	decideRemember = 60 * time.Second
	decideCollect  = 15 * time.Minute
	decideReuse    = reuse{remember: decideRemember, collectWithin: decideCollect}
)

const (
	decideContent  = "content-of-this-request"
	decideOther    = "content-of-another-request"
	decideAttempts = 3 // --retries 2
)

// decideRecord is a record of this request's content in the given state. A
// non-final record was requested long ago, so no start-up grace applies.
func decideRecord(status store.Status, attempt int, endedAgo time.Duration) store.Record {
	rec := store.Record{
		Identity:    "id",
		ContentHash: decideContent,
		Status:      status,
		Attempt:     attempt,
		RequestedAt: decideNow.Add(-time.Hour),
	}
	if status.Final() {
		rec.EndedAt = decideNow.Add(-endedAgo)
	}
	return rec
}

func withContent(rec store.Record, content string) store.Record {
	rec.ContentHash = content
	return rec
}

func TestDecide(t *testing.T) {
	type want struct {
		next    step
		attempt int
	}
	// justStarted is a request whose holder was started a second ago and has
	// not taken its lock yet: only where the lock cannot be handed over does
	// the record stand in for it.
	justStarted := decideRecord(store.Requested, 1, 0)
	justStarted.RequestedAt = decideNow.Add(-time.Second)
	justStartedWant := want{stepSpawn, 2}
	if !platform.LockHandedOff {
		justStartedWant = want{stepWait, 0}
	}
	// promptKilled is a request asked through a Channel in its caller's
	// process (the terminal prompt) a second ago, whose caller was killed:
	// the caller took the lock before writing the record, so there is no
	// start-up gap to wait out on any system.
	promptKilled := justStarted
	promptKilled.Channel = "terminal"

	cases := []struct {
		name string
		s    sighting
		want want
	}{
		{"first request ever shows a dialog",
			sighting{first: true}, want{stepSpawn, 1}},
		{"nothing on record after a look shows a dialog again",
			sighting{first: false}, want{stepSpawn, 1}},

		{"a newer message under the same key replaced the dialog we were waiting on",
			sighting{rec: withContent(decideRecord(store.Shown, 1, 0), decideOther), found: true, alive: true}, want{stepReplaced, 0}},
		{"a newer message under the same key that was already answered still replaced ours",
			sighting{rec: withContent(decideRecord(store.Approved, 1, time.Second), decideOther), found: true}, want{stepReplaced, 0}},
		{"an open dialog for an older message under the same key is closed for the new one",
			sighting{rec: withContent(decideRecord(store.Shown, 1, 0), decideOther), found: true, alive: true, first: true}, want{stepSupersede, 0}},
		{"a fresh approval of another message under the same key is not reused",
			sighting{rec: withContent(decideRecord(store.Approved, 1, time.Second), decideOther), found: true, first: true}, want{stepSpawn, 1}},
		{"a fresh approval of another message under the same key is not reused even while a holder lingers",
			sighting{rec: withContent(decideRecord(store.Approved, 1, time.Second), decideOther), found: true, alive: true, first: true}, want{stepSpawn, 1}},
		{"an older message under the same key whose holder died is replaced by a new dialog",
			sighting{rec: withContent(decideRecord(store.Shown, 3, 0), decideOther), found: true, first: true}, want{stepSpawn, 1}},

		{"a dialog that failed to render is tried afresh by a new invocation",
			sighting{rec: decideRecord(store.Failed, decideAttempts, time.Second), found: true, first: true}, want{stepSpawn, 1}},
		{"a dialog that failed to render while we wait is shown again",
			sighting{rec: decideRecord(store.Failed, 1, time.Second), found: true}, want{stepSpawn, 2}},
		{"a dialog that failed to render on the last attempt is reported as failed",
			sighting{rec: decideRecord(store.Failed, decideAttempts, time.Second), found: true}, want{stepReturn, 0}},

		{"a fresh approval is reused without a dialog",
			sighting{rec: decideRecord(store.Approved, 1, 10*time.Second), found: true, first: true}, want{stepReturn, 0}},
		{"a fresh denial is reused without a dialog",
			sighting{rec: decideRecord(store.Denied, 1, 10*time.Second), found: true, first: true}, want{stepReturn, 0}},
		{"an approval exactly --remember old is still reused",
			sighting{rec: decideRecord(store.Approved, 1, decideRemember), found: true, first: true}, want{stepReturn, 0}},
		{"an approval older than --remember asks again",
			sighting{rec: decideRecord(store.Approved, 1, decideRemember+time.Nanosecond), found: true, first: true}, want{stepSpawn, 1}},
		{"an expiry older than --remember asks again",
			sighting{rec: decideRecord(store.Expired, 1, time.Hour), found: true, first: true}, want{stepSpawn, 1}},
		{"a final record with no end time is never reused",
			sighting{rec: func() store.Record { r := decideRecord(store.Approved, 1, 0); r.EndedAt = time.Time{}; return r }(), found: true, first: true}, want{stepSpawn, 1}},
		{"an answer that lands while we wait is returned however old its end time reads",
			sighting{rec: decideRecord(store.Approved, 1, time.Hour), found: true}, want{stepReturn, 0}},
		{"an expiry that lands while we wait is returned",
			sighting{rec: decideRecord(store.Expired, 1, time.Hour), found: true}, want{stepReturn, 0}},

		{"an open dialog is joined",
			sighting{rec: decideRecord(store.Shown, 1, 0), found: true, alive: true, first: true}, want{stepWait, 0}},
		{"a dialog still starting is joined",
			sighting{rec: decideRecord(store.Requested, 1, 0), found: true, alive: true}, want{stepWait, 0}},
		{"a dialog whose holder died before we came is shown again",
			sighting{rec: decideRecord(store.Shown, 1, 0), found: true, first: true}, want{stepSpawn, 2}},
		{"a new invocation shows again a dialog whose holder died on its last attempt",
			sighting{rec: decideRecord(store.Shown, decideAttempts, 0), found: true, first: true}, want{stepSpawn, decideAttempts + 1}},
		{"a dialog whose holder dies while we wait is shown again",
			sighting{rec: decideRecord(store.Requested, 2, 0), found: true}, want{stepSpawn, 3}},
		{"a dialog whose holder died on every attempt is given up",
			sighting{rec: decideRecord(store.Shown, decideAttempts, 0), found: true}, want{stepGiveUp, 0}},
		{"a holder that has just been started and holds no lock yet",
			sighting{rec: justStarted, found: true, first: true}, justStartedWant},
		{"a terminal prompt whose caller was killed just after asking is asked again at once",
			sighting{rec: promptKilled, found: true, first: true}, want{stepSpawn, 2}},
		{"a terminal prompt whose caller was killed is asked again by a caller that was waiting on it",
			sighting{rec: promptKilled, found: true}, want{stepSpawn, 2}},

		{"at the end of the wait an open dialog is reported pending",
			sighting{rec: decideRecord(store.Shown, 1, 0), found: true, alive: true, last: true}, want{stepReport, 0}},
		{"at the end of the wait a dead holder is not replaced",
			sighting{rec: decideRecord(store.Shown, 1, 0), found: true, last: true}, want{stepReport, 0}},
		{"at the end of the wait a render failure with attempts left is reported",
			sighting{rec: decideRecord(store.Failed, 1, time.Second), found: true, last: true}, want{stepReport, 0}},
		{"at the end of the wait nothing on record is pending",
			sighting{last: true}, want{stepPending, 0}},
		{"at the end of the wait another caller's start under the same key is pending, not its outcome",
			sighting{rec: withContent(decideRecord(store.Approved, 1, time.Second), decideOther), found: true, first: true, last: true}, want{stepPending, 0}},
		{"at the end of the wait, after a lost lock race, an answer too old is pending, not returned",
			sighting{rec: decideRecord(store.Approved, 1, time.Hour), found: true, first: true, last: true}, want{stepPending, 0}},
		{"at the end of the wait an answer that landed is still returned",
			sighting{rec: decideRecord(store.Approved, 1, time.Hour), found: true, last: true}, want{stepReturn, 0}},

		{"past the wait, waiting on for the phone's look-up, a failure with attempts left is reported, not tried again",
			sighting{rec: decideRecord(store.Failed, 1, time.Second), found: true, pastWait: true}, want{stepReport, 0}},
		{"past the wait a dead holder is not replaced",
			sighting{rec: decideRecord(store.Shown, 1, 0), found: true, pastWait: true}, want{stepReport, 0}},
		{"past the wait a live holder is still waited for",
			sighting{rec: decideRecord(store.Requested, 1, 0), found: true, alive: true, pastWait: true}, want{stepWait, 0}},
		{"a first look past a wait of 0 still asks",
			sighting{first: true, pastWait: true}, want{stepSpawn, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next, attempt := decide(c.s, decideContent, decideNow, decideReuse, decideAttempts)
			if next != c.want.next || (next == stepSpawn && attempt != c.want.attempt) {
				t.Errorf("decide = %s (attempt %d), want %s (attempt %d)\nsighting: found=%v alive=%v first=%v status=%s content=%s attempt=%d",
					stepName(next), attempt, stepName(c.want.next), c.want.attempt, c.s.found, c.s.alive, c.s.first, c.s.rec.Status, c.s.rec.ContentHash, c.s.rec.Attempt)
			}
		})
	}
}

// TestDecideNeverReturnsAnotherRequestsAnswer walks every combination of
// what a waiter can see and checks the invariant behind exit 0: a record is
// only ever returned as this invocation's answer when it holds this
// request's content, and a new invocation only reuses an answer within
// --remember.
func TestDecideNeverReturnsAnotherRequestsAnswer(t *testing.T) {
	statuses := []store.Status{
		store.Requested, store.Shown, store.Approved, store.Denied,
		store.Expired, store.Cancelled, store.Superseded, store.Failed,
		"", "bogus",
	}
	ended := []time.Duration{-1, 0, time.Second, decideRemember, decideRemember + 1, decideCollect, decideCollect + 1, 24 * time.Hour}
	requested := []time.Duration{time.Second, time.Hour}
	checked := 0
	for _, status := range statuses {
		for _, found := range []bool{false, true} {
			for _, alive := range []bool{false, true} {
				for _, first := range []bool{false, true} {
					for _, matching := range []bool{false, true} {
						for _, attempt := range []int{0, 1, decideAttempts, decideAttempts + 1} {
							for _, endedAgo := range ended {
								for _, reqAgo := range requested {
									for _, flags := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
										uncollected, last := flags[0], flags[1]
										rec := store.Record{Identity: "id", ContentHash: decideOther, Status: status, Attempt: attempt, RequestedAt: decideNow.Add(-reqAgo), Uncollected: uncollected}
										if matching {
											rec.ContentHash = decideContent
										}
										if endedAgo >= 0 {
											rec.EndedAt = decideNow.Add(-endedAgo)
										}
										if !found {
											rec = store.Record{}
										}
										s := sighting{rec: rec, found: found, alive: alive, first: first, last: last}
										next, n := decide(s, decideContent, decideNow, decideReuse, decideAttempts)
										checked++
										where := fmt.Sprintf("status=%q found=%v alive=%v first=%v matching=%v attempt=%d endedAgo=%v requestedAgo=%v uncollected=%v",
											status, found, alive, first, matching, attempt, endedAgo, reqAgo, uncollected)
										if next == stepReturn {
											switch {
											case !found:
												t.Fatalf("%s: returned an answer with no record", where)
											case rec.ContentHash != decideContent:
												t.Fatalf("%s: returned the answer of another request's content", where)
											case !rec.Status.Final():
												t.Fatalf("%s: returned a request that has not ended as its answer", where)
											case first && !rec.FreshAt(decideNow, decideRemember) && !rec.Uncollected:
												t.Fatalf("%s: a new invocation reused a collected answer older than --remember", where)
											case first && !rec.FreshAt(decideNow, decideCollect):
												t.Fatalf("%s: a new invocation took an answer older than --collect-within", where)
											case first && !rec.FreshAt(decideNow, decideRemember) && rec.Status == store.Failed:
												t.Fatalf("%s: a new invocation took a failure to render as an answer", where)
											}
										}
										if last && (next == stepSpawn || next == stepWait) {
											t.Fatalf("%s: the last look does %s instead of ending the invocation", where, stepName(next))
										}
										if next == stepReport && (rec.ContentHash != decideContent || (first && rec.Status.Final())) {
											t.Fatalf("%s: reports a record that is not this invocation's outcome", where)
										}
										if next == stepSpawn && n < 1 {
											t.Fatalf("%s: spawn with attempt %d", where, n)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d combinations checked", checked)
	}
}

// TestDecideCollects is the rule of issue 12 as a table: for every ended
// status, collected or not, and an end inside --remember, between
// --remember and --collect-within, or past both, what a new invocation of
// the same request does; and that a caller waiting on the request always
// gets the answer that lands, whatever its age reads.
func TestDecideCollects(t *testing.T) {
	windows := []struct {
		name     string
		endedAgo time.Duration
	}{
		{"inside --remember", decideRemember / 2},
		{"at --remember", decideRemember},
		{"past --remember, inside --collect-within", decideRemember + time.Minute},
		{"at --collect-within", decideCollect},
		{"past --collect-within", decideCollect + time.Nanosecond},
	}
	answers := []store.Status{store.Approved, store.Denied, store.Expired, store.Cancelled, store.Superseded}
	checked := 0
	for _, status := range append(answers, store.Failed) {
		for _, uncollected := range []bool{false, true} {
			for _, w := range windows {
				rec := decideRecord(status, 1, w.endedAgo)
				rec.Uncollected = uncollected
				inRemember := w.endedAgo <= decideRemember
				inBound := w.endedAgo <= decideCollect
				// The rule: an answer is returned to a new invocation within
				// --remember, or, while nobody has received it, within the
				// bound. A failure to render is never an answer.
				wantReturn := status != store.Failed && (inRemember || (uncollected && inBound))
				name := fmt.Sprintf("%s, uncollected=%v, %s", status, uncollected, w.name)
				next, attempt := decide(sighting{rec: rec, found: true, first: true}, decideContent, decideNow, decideReuse, decideAttempts)
				if got := next == stepReturn; got != wantReturn || (!got && (next != stepSpawn || attempt != 1)) {
					t.Errorf("%s: a new invocation does %s (attempt %d), want return=%v", name, stepName(next), attempt, wantReturn)
				}
				// A caller that was waiting gets its own request's end.
				next, _ = decide(sighting{rec: rec, found: true, first: false}, decideContent, decideNow, decideReuse, decideAttempts)
				wantWaiting := stepReturn
				if status == store.Failed {
					wantWaiting = stepSpawn // attempt 1 of 3 failed to render: show it again
				}
				if next != wantWaiting {
					t.Errorf("%s: a waiting caller does %s, want %s", name, stepName(next), stepName(wantWaiting))
				}
				// Another request's answer under the same key is never
				// collected by this one.
				next, _ = decide(sighting{rec: withContent(rec, decideOther), found: true, first: true}, decideContent, decideNow, decideReuse, decideAttempts)
				if next == stepReturn {
					t.Errorf("%s: a new invocation took another request's answer", name)
				}
				checked++
			}
		}
	}
	if checked != 6*2*len(windows) {
		t.Fatalf("checked %d cases", checked)
	}
	// --collect-within below --remember counts as --remember.
	rec := decideRecord(store.Approved, 1, decideRemember)
	if next, _ := decide(sighting{rec: rec, found: true, first: true}, decideContent, decideNow, (Call{Remember: decideRemember}).reuse(), decideAttempts); next != stepReturn {
		t.Errorf("with --collect-within 0 an answer inside --remember is not returned: %s", stepName(next))
	}
}
