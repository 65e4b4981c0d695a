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
)

// Final reports whether s ends a request.
func (s Status) Final() bool {
	switch s {
	case Approved, Denied, Expired, Cancelled, Superseded, Failed:
		return true
	}
	return false
}

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
	return r.Uncollected && r.Status != Failed && r.FreshAt(now, within)
}
