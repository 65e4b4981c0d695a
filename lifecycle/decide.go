package lifecycle

import (
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// step is what a waiter does next with a request, given what it has seen.
type step int

const (
	stepReturn    step = iota // the record is this invocation's answer: deliver it
	stepReport                // the wait is over: report this request's record as it stands
	stepPending               // the wait is over, and the store holds no outcome of this request yet
	stepWait                  // a live holder is showing this request
	stepSpawn                 // nobody is showing it: start a holder
	stepSupersede             // an older request under the same key is open: close it
	stepReplaced              // a newer request under the same key replaced ours
	stepGiveUp                // the holder kept dying: report failure
)

// sighting is what a waiter saw on one look at the store and the lock.
type sighting struct {
	rec   store.Record
	found bool
	// alive is true while a holder (or a caller starting one) holds the
	// identity's lock; false when the holder died or never started.
	alive bool
	// first is true until the waiter has started or joined this request's
	// dialog. A first look may reuse an answer or supersede an older
	// request; later looks only follow the request this invocation made or
	// joined. Superseding an older request, and a start that lost the
	// identity's lock to another process, leave it true.
	first bool
	// last is true when the invocation's wait is over (its deadline passed,
	// or its caller went away) and it has looked once already: this look
	// ends the invocation.
	last bool
	// pastWait is true once the invocation's wait has run out, while it
	// still waits for the phone's look-up (waiter.lookingUp): it starts
	// no new attempt then, and reports the request as it stands.
	pastWait bool
}

// reuse says how long a new invocation takes an ended request's answer
// instead of asking again.
type reuse struct {
	// remember is how long after it ended an answer is returned to every
	// identical request.
	remember time.Duration
	// collectWithin is how long after it ended an answer that no caller has
	// received yet is returned to the next identical request, once.
	collectWithin time.Duration
}

// returns reports whether a new invocation takes rec's answer at now: within
// remember, within collectWithin while nobody has received it, or while the
// person's approve-for period runs.
func (k reuse) returns(rec store.Record, now time.Time) bool {
	return rec.Status != store.Withdrawn &&
		(rec.FreshAt(now, k.remember) || rec.CollectableAt(now, k.collectWithin) ||
			(rec.ApprovedFor <= dialog.MaxApproveFor && rec.ApprovedAt(now)))
}

// holderStartGrace is how long a "requested" record stands in for a lock
// that a just-started holder has not taken yet, on systems without lock
// hand-over.
const holderStartGrace = 10 * time.Second

// decide is the whole request lifecycle seen from one waiter: what it does
// next, given one look, the request's content, the time and the reuse rules.
// It is pure, so the table of cases is tested directly. attempt is the
// attempt number for stepSpawn.
func decide(s sighting, content string, now time.Time, keep reuse, maxAttempts int) (next step, attempt int) {
	next, attempt = act(s, content, now, keep, maxAttempts)
	// Past its wait, a caller that asked starts no new attempt: the one
	// that failed (the phone could not be reached) or died is its
	// outcome, and the next run asks anew.
	retryLate := s.pastWait && !s.first && next == stepSpawn
	if s.last && (next == stepWait || next == stepSpawn) || retryLate {
		if !s.found || s.rec.ContentHash != content || (s.first && s.rec.Status.Final()) {
			// Another caller holds the lock and is starting a holder, or
			// this request's own start lost the lock, or what the store
			// holds is an answer too old for this invocation: none of it
			// is this request's outcome.
			return stepPending, 0
		}
		return stepReport, 0
	}
	return next, attempt
}

// act is decide for an invocation that may still act.
func act(s sighting, content string, now time.Time, keep reuse, maxAttempts int) (step, int) {
	rec := s.rec
	switch {
	case !s.found:
		return stepSpawn, 1
	case rec.ContentHash != content && !s.first:
		return stepReplaced, 0
	case rec.ContentHash != content && !rec.Status.Final() && s.alive:
		return stepSupersede, 0
	case rec.ContentHash != content:
		return stepSpawn, 1
	case rec.Status == store.Failed && s.first:
		// A failure to render is not an answer: a new invocation tries again.
		return stepSpawn, 1
	case rec.Status == store.Failed && rec.Attempt < maxAttempts:
		return stepSpawn, rec.Attempt + 1
	case rec.Status.Final() && (!s.first || keep.returns(rec, now)):
		return stepReturn, 0
	case rec.Status.Final():
		return stepSpawn, 1
	case s.alive:
		return stepWait, 0
	case !platform.LockHandedOff && rec.Channel == "" && rec.Status == store.Requested && now.Sub(rec.RequestedAt) < holderStartGrace:
		// Where the lock cannot be handed over, a holder that was just
		// started has not taken it yet. A request asked through a Channel
		// has no such gap: its caller took the lock before the record was
		// written, so a free lock means that caller died (a killed
		// terminal prompt), and the next caller asks at once.
		return stepWait, 0
	case s.first || rec.Attempt < maxAttempts:
		// The holder died without an answer.
		return stepSpawn, rec.Attempt + 1
	default:
		return stepGiveUp, 0
	}
}
