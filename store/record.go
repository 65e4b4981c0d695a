package store

import "time"

// Status is a request's place in its lifecycle.
type Status string

// The lifecycle: requested → shown → one of the final states.
const (
	Requested  Status = "requested"
	Shown      Status = "shown"
	Approved   Status = "approved"
	Denied     Status = "denied"
	Expired    Status = "expired"
	Cancelled  Status = "cancelled"
	Superseded Status = "superseded"
	Failed     Status = "failed"
	// Withdrawn ends a request whose caller asked the person another way
	// when its wait ran out (an agent hook handing the question back to its
	// host's own prompt). It is no answer: nobody receives it, and the next
	// identical request asks again.
	Withdrawn Status = "withdrawn"
)

// Final reports whether s ends a request.
func (s Status) Final() bool {
	switch s {
	case Approved, Denied, Expired, Cancelled, Superseded, Failed, Withdrawn:
		return true
	}
	return false
}

// Answer reports whether s ends a request with something a caller receives
// as its outcome: every final state but a failure to show the dialog and a
// withdrawal.
func (s Status) Answer() bool { return s.Final() && s != Failed && s != Withdrawn }

// Record is what the store keeps for one identity: the newest request made
// under it and how far it has got.
type Record struct {
	Identity    string
	ContentHash string
	Title       string
	// Request is the encoded request the holder shows. The store does not
	// interpret it.
	Request []byte

	Status  Status
	Reason  string
	Attempt int
	// HolderPID is the process showing the dialog. Liveness is never judged
	// from it (PIDs are reused); it only lets an operator signal a holder
	// known to be alive and lets a successor clean up after a dead one.
	HolderPID int

	RequestedAt time.Time
	ShownAt     time.Time
	EndedAt     time.Time
	// Deadline is when the dialog closes unanswered.
	Deadline time.Time
	// Remember is how long the final state is returned to repeat requests,
	// as asked by the request that created the record; gc uses it.
	Remember time.Duration

	// MessageHash is the SHA-256 of the message, for the history.
	MessageHash string
	// CallerPID and CallerDir describe the invocation that started the
	// current holder, for the history.
	CallerPID int
	CallerDir string

	// Version counts the writes of this record. Store.Update increments it,
	// so a caller can tell whether a record changed since it was read.
	Version uint64

	// CancelRequest, when set, asks the holder to close the dialog and end
	// the request in this state (Cancelled or Superseded).
	CancelRequest Status

	// Uncollected is true from the moment a request ends with an answer
	// until the first caller receives it. Records written before format 2
	// read as collected, so they follow the rules they were written under.
	Uncollected bool
	// CollectWithin is how long after EndedAt an uncollected answer is
	// still handed to the next identical request, as asked by the request
	// that created the record; gc, list and status use it.
	CollectWithin time.Duration

	// Channel is how the person is asked: empty for a dialog shown by a
	// holder process of its own, otherwise the name of a way of asking
	// that runs in its caller's process, such as "elicitation". Such a
	// holder has no HolderPID and is never signalled: it notices
	// CancelRequest itself.
	Channel string
	// Origin says who asked and where (dialog.Request.Origin), for the
	// history; it is no part of the identity.
	Origin string

	// Kind is the request's dialog.Request.Kind, and Multiple whether a
	// choice takes several options: they say what Answers holds.
	Kind     string
	Multiple bool
	// Answers is what the person answered beyond approving: the labels
	// chosen, or the text typed. It is kept, as the rest of the store is,
	// readable by its owner only, and never written to the history.
	Answers []string
	// Typed is true when the last of Answers is text the person typed as a
	// choice's own answer; like an input's text, the history keeps only
	// its hash.
	Typed bool
	// ApprovedFor is how long an approval given with the approve-for
	// button is returned to the same request, from EndedAt, whatever the
	// reuse rules of the request that asks again.
	ApprovedFor time.Duration

	// Phone says whether the person is asked on their phone as well:
	// empty for no, "also" beside the dialog or the Channel, "only" for
	// the phone alone.
	Phone string
	// AnsweredBy names the way of asking that brought the answer, when it
	// was not the one Channel names: "phone".
	AnsweredBy string
	// Note is what a holder found wrong while the request stayed open, for
	// its callers to pass on: a way of asking that failed while another
	// still asks.
	Note string
	// EndsWithCaller says the request ends, withdrawn, once no caller
	// waits for it any more, however its callers went: an agent hook's,
	// which its host may kill.
	EndsWithCaller bool

	// Approvers name the people who decide a request asked of several,
	// each on a phone of their own, and Approvals how many of them must
	// approve (dialog.Request's); empty and 0 for a request of one person.
	Approvers []string
	Approvals int
	// Votes are the votes counted so far, in the order they counted, one
	// per person; once the request ended, the votes that decided it.
	Votes []Vote
}

// Vote is one person's vote on a request of several approvers
// (dialog.Vote, which the store does not import): who, whether they
// approved (and for how long, with the approve-for button), and when.
type Vote struct {
	By       string
	Approved bool
	For      time.Duration
	At       time.Time
}

// ApprovedAt reports whether r is an approval given for a while
// (ApprovedFor) and that while still runs at now.
func (r Record) ApprovedAt(now time.Time) bool {
	return r.Status == Approved && r.ApprovedFor > 0 && !r.EndedAt.IsZero() && now.Sub(r.EndedAt) <= r.ApprovedFor
}

// FreshAt reports whether r is final and ended no longer than remember
// before now.
func (r Record) FreshAt(now time.Time, remember time.Duration) bool {
	return r.Status.Final() && !r.EndedAt.IsZero() && now.Sub(r.EndedAt) <= remember
}

// CollectableAt reports whether r holds an answer that no caller has
// received yet and that ended no longer than within before now. A failure
// to show the dialog is not an answer and is never collectable.
func (r Record) CollectableAt(now time.Time, within time.Duration) bool {
	return r.Uncollected && r.Status.Answer() && r.FreshAt(now, within)
}
