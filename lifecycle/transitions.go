package lifecycle

import (
	"fmt"
	"os"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// deliver returns rec, an ended request that decide returned, as this
// invocation's outcome. The first caller to receive an answer collects it:
// from then on only Remember returns it again. collect is false when
// nobody can receive the outcome any more (the caller went away), so the
// answer stays for the next call. ok is false, with nothing returned, when
// rec was this new invocation's only as an uncollected answer and another
// caller collected it first: the invocation must look again.
func (e *Engine) deliver(rec store.Record, first bool, keep reuse, collect bool) (r Result, ok bool) {
	// late: a new invocation gets rec only because nobody has received it.
	late := first && !rec.FreshAt(e.now(), keep.remember)
	won := false
	if rec.Uncollected && collect {
		var err error
		won, err = e.markCollected(rec)
		switch {
		case err != nil && late:
			// Handing it out unrecorded could hand it out twice.
			return e.StoreError(rec.Identity, fmt.Errorf(msgCollectFailed, err)), true
		case err != nil:
			e.warn(fmt.Errorf(msgCollectFailed, err))
		case !won && late:
			return Result{}, false
		}
	}
	var err error
	switch {
	case won && first:
		err = e.logEvent("collected", rec, string(rec.Status), msgCollectedLate)
	case won:
		err = e.logEvent("collected", rec, string(rec.Status), "")
	case first:
		err = e.logEvent("reused", rec, string(rec.Status), "")
	}
	switch {
	case err != nil && rec.Status == store.Approved:
		// An approval handed out is in the history.
		return e.StoreError(rec.Identity, &historyLost{err}), true
	case err != nil:
		e.warn(fmt.Errorf(msgRecordHistory, "the collection", err))
	}
	return resultOf(rec, facts{now: e.now(), own: !first, caller: true, keep: keep}), true
}

// markCollected records that rec's answer has reached a caller, unless the
// record changed since rec was read. It reports whether it wrote.
func (e *Engine) markCollected(rec store.Record) (bool, error) {
	won := false
	_, err := e.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.Version != rec.Version || !r.Uncollected {
			return false, nil
		}
		r.Uncollected, won = false, true
		return true, nil
	})
	return won && err == nil, err
}

// finish records a final state for the request with the given content,
// unless it already ended or belongs to another holder. holderPID 0 matches
// a record with no holder. It returns the record as stored.
func (e *Engine) finish(id, content string, holderPID int, status store.Status, reason string) (store.Record, bool, error) {
	return e.end(id, content, holderPID, ending{status: status, reason: reason})
}

// ending is how a request ends: its final status, why, for an approval
// what the person answered beyond it, and for an answer the phone brought
// beside the request's own way of asking, wayPhone.
type ending struct {
	status store.Status
	reason string
	answer dialog.Answer
	by     string
	// votes are the votes that decided a request of several approvers,
	// which join those on record.
	votes []dialog.Vote
}

// end is finish with the person's answer.
func (e *Engine) end(id, content string, holderPID int, end ending) (store.Record, bool, error) {
	status, reason := end.status, end.reason
	// A caller waiting for the answer now receives it when it wakes: the
	// answer is collected without a write of its own, which a herd of
	// waiters would queue for. A failure to show the dialog is not an
	// answer to collect.
	received := status.Answer() && platform.Watched(e.paths.WatchFile(id))
	wrote, logged := false, false
	var votes []dialog.Vote
	rec, err := e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status.Final() || rec.HolderPID != holderPID {
			return false, nil
		}
		rec.Status, rec.Reason, rec.EndedAt = status, OneLine(reason), e.now()
		rec.Uncollected = status.Answer() && !received
		if status == store.Approved {
			rec.Answers, rec.Typed, rec.ApprovedFor = end.answer.Values, end.answer.Typed, end.answer.For
		}
		if (status == store.Approved || status == store.Denied) && end.by == wayPhone {
			rec.AnsweredBy = end.by
		}
		if len(rec.Approvers) > 0 {
			// The votes of its last second may have come with its end
			// (recordVote takes none once it ended).
			rec.Votes, votes = mergeVotes(rec.Votes, end.votes)
		}
		if status == store.Approved {
			e.historyVotes(*rec, votes)
			votes = nil
			// An approval is on record in the history before anyone can
			// read it in the store; one the history cannot hold is none.
			if herr := e.logEvent(eventFor(status), *rec, string(status), reason); herr != nil {
				status, reason = store.Failed, (&historyLost{herr}).Error()
				rec.Status, rec.Reason, rec.Uncollected = status, OneLine(reason), false
				rec.Answers, rec.Typed, rec.ApprovedFor, rec.AnsweredBy = nil, false, 0, ""
				received = false
			} else {
				logged = true
			}
		}
		wrote = true
		return true, nil
	})
	if err == nil && wrote {
		e.historyVotes(rec, votes)
	}
	if err == nil && wrote && !logged {
		e.logEventOrWarn(eventFor(status), rec, string(status), reason)
	}
	if err == nil && wrote {
		if received {
			e.logEventOrWarn("collected", rec, string(status), msgCollectedWaiting)
		}
	}
	return rec, wrote, err
}

// eventFor names the history event that records a final status.
func eventFor(s store.Status) string {
	switch s {
	case store.Approved, store.Denied:
		return "answered"
	default:
		return string(s)
	}
}

// giveUp ends a request whose holders kept dying.
func (e *Engine) giveUp(rec store.Record, attempts int) Result {
	reason := fmt.Sprintf(msgHolderDiedLimit, attempts)
	if _, _, err := e.finish(rec.Identity, rec.ContentHash, rec.HolderPID, store.Failed, reason); err != nil {
		return e.StoreError(rec.Identity, err)
	}
	rec.Status, rec.Reason = store.Failed, reason
	return resultOf(rec, facts{now: e.now(), own: true, caller: true})
}

// closeRequest asks the holder of rec to close its dialog and end the
// request as status, and waits (boundedly) until it has. A request whose
// holder is gone is ended directly.
func (e *Engine) closeRequest(rec store.Record, status store.Status) error {
	_, err := e.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != rec.ContentHash || r.Status.Final() {
			return false, nil
		}
		r.CancelRequest = status
		return true, nil
	})
	if err != nil {
		return err
	}
	if rec.HolderPID != 0 && rec.HolderPID != os.Getpid() {
		// Only a holder that still holds the lock: a dead one's PID may
		// have been reused by another process.
		if alive, err := platform.LockHeld(e.paths.LockFile(rec.Identity)); err == nil && alive {
			_ = platform.InterruptHolder(rec.HolderPID)
		}
	}
	const patience = 5 * time.Second
	if !e.waitClosed(rec, patience) {
		return fmt.Errorf(msgCloseStuck, patience)
	}
	// The holder recorded the end itself, unless it died first; then its
	// dialog may still be on screen.
	_, wrote, err := e.finish(rec.Identity, rec.ContentHash, rec.HolderPID, status, "")
	if wrote {
		platform.KillOrphanedDialog(rec.HolderPID)
	}
	return err
}

// headless applies IfHeadless when nobody can be asked. Where there is a
// display but nothing to show a dialog on it with (platform.Session's
// NoBackend), the dialog could not be shown: exit 6 with the session's
// hint (install zenity), and IfHeadless, which is for a machine without a
// display, does not apply.
func (e *Engine) headless(c Call, id string, session platform.Session) Result {
	why := session.Reason
	rec := store.Record{Identity: id, Title: c.Request.Title, MessageHash: messageHash(c.Request.Message), Origin: c.Request.Origin}
	r := Result{Key: id}
	if session.NoBackend() {
		e.logEventOrWarn(eventFor(store.Failed), rec, string(store.Failed), why)
		r.Status, r.ExitCode, r.Message, r.Hint = StatusFailed, ExitFailed, fmt.Sprintf(msgFailed, why), session.Hint
		return r
	}
	switch c.IfHeadless {
	case IfHeadlessApprove:
		// The one approval without a click: it must be on record first.
		if err := e.logEvent("headless", rec, "approved", why); err != nil {
			return e.StoreError(id, fmt.Errorf(msgRecordHeadless, err))
		}
		r.Status, r.ExitCode, r.Message = StatusApproved, ExitApproved, fmt.Sprintf(msgHeadlessApprove, why)
	case IfHeadlessDeny:
		e.logEventOrWarn("headless", rec, "denied", why)
		r.Status, r.ExitCode, r.Message = StatusDenied, ExitDenied, fmt.Sprintf(msgHeadlessDeny, why)
	default:
		e.logEventOrWarn("headless", rec, "failed", why)
		r.Status, r.ExitCode, r.Message = StatusHeadless, ExitHeadless, fmt.Sprintf(msgHeadless, why)
		r.Hint = hintHeadless
		if c.Request.Kind != dialog.Confirm {
			// A choice or a text has no approve to give (Call.Validate).
			r.Hint = hintHeadlessDeny
		}
	}
	r.Headless = true
	return r
}

// Headless is what a session where nobody can be asked means for a person
// checking it (ask-confirm doctor): exit 4, with the session's own hint, or
// else the general one; exit 6, as a request would give, where a display
// has no dialog program.
func Headless(s platform.Session) Result {
	if s.NoBackend() {
		return Result{Status: StatusFailed, ExitCode: ExitFailed, Message: fmt.Sprintf(msgFailed, s.Reason), Hint: s.Hint}
	}
	r := Result{Status: StatusHeadless, ExitCode: ExitHeadless, Message: fmt.Sprintf(msgHeadless, s.Reason), Hint: s.Hint, Headless: true}
	if r.Hint == "" {
		r.Hint = hintHeadless
	}
	return r
}

// waitClosed waits up to patience until rec's holder lets go of its lock,
// or has recorded the request's end: a holder that ended its request
// keeps the lock a while to tell the phone (up to closeWaysWithin, with
// the server down), and the request is closed all the same.
func (e *Engine) waitClosed(rec store.Record, patience time.Duration) bool {
	lock := e.paths.LockFile(rec.Identity)
	deadline := time.Now().Add(patience)
	for {
		if platform.WaitReleased(lock, min(100*time.Millisecond, time.Until(deadline))) {
			return true
		}
		if now, found, err := e.store.Get(rec.Identity); err == nil && found && now.ContentHash == rec.ContentHash && now.Status.Final() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
	}
}
