package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// step is what a waiter does next with a request, given what it has seen.
type step int

const (
	stepReturn    step = iota // the record is this invocation's answer
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
	// identity's lock.
	alive bool
	// first is true until the waiter has acted on what it saw once. A first
	// look may reuse a remembered answer or supersede an older request; later
	// looks only follow the request this invocation made or joined.
	first bool
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

// returns reports whether a new invocation takes rec's answer at now.
func (k reuse) returns(rec store.Record, now time.Time) bool {
	return rec.FreshAt(now, k.remember) || rec.CollectableAt(now, k.collectWithin)
}

// decide is the request lifecycle seen from one waiter. It is pure, so the
// whole table of cases is tested directly. attempt is the attempt number for
// stepSpawn.
func decide(s sighting, content string, now time.Time, keep reuse, maxAttempts int) (next step, attempt int) {
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
	case !platform.LockHandedOff && rec.Status == store.Requested && now.Sub(rec.RequestedAt) < holderStartGrace:
		// Where the lock cannot be handed over, a holder that was just
		// started has not taken it yet.
		return stepWait, 0
	case s.first || rec.Attempt < maxAttempts:
		// The holder died without an answer.
		return stepSpawn, rec.Attempt + 1
	default:
		return stepGiveUp, 0
	}
}

// holderStartGrace is how long a "requested" record stands in for a lock
// that a just-started holder has not taken yet, on systems without lock
// hand-over.
const holderStartGrace = 10 * time.Second

// confirm runs the request lifecycle for one invocation and returns its
// outcome. It never returns an approval that is not recorded as Approved for
// this request's identity and content. When ctx ends it stops waiting and
// reports the request as it stands; the dialog stays up.
func (a *app) confirm(ctx context.Context, o *confirmOptions) Result {
	req := o.req
	id, content := req.Identity(), req.ContentHash()
	if err := store.EnsureDir(a.paths.Locks); err != nil {
		return a.storeError(id, err)
	}
	lockPath := a.paths.LockFile(id)
	deadline := a.now().Add(o.wait)
	maxAttempts := o.retries + 1
	if o.watch != nil {
		defer o.watch.Done()
	}
	first, lastLook := true, false
	// released is the pending wait for the holder's lock; it is kept across
	// looks until it fires, so no more than one goroutine waits on the lock.
	var released <-chan struct{}
	for {
		var s sighting
		var err error
		s.first = first
		s.rec, s.found, err = a.store.Get(id)
		if err != nil {
			return a.storeError(id, err)
		}
		if s.alive, err = holderAlive(lockPath); err != nil {
			return a.storeError(id, err)
		}
		next, attempt := decide(s, content, a.now(), o.reuse(), maxAttempts)
		if lastLook && (next == stepWait || next == stepSpawn) {
			if !s.found || s.rec.ContentHash != content || (s.first && s.rec.Status.Final()) {
				// Another caller holds the lock and is starting a holder, or
				// this request's own start lost the lock: what the store
				// holds is not this request's outcome. An ended request
				// that decide did not return is an answer too old for it.
				return Result{Status: StatusPending, ExitCode: ExitPending, Key: id,
					Message: msgPending, ShouldRetry: true, RetryReason: msgStarting}
			}
			return fromRecord(s.rec, false)
		}
		acted := true
		switch next {
		case stepReturn:
			r, ok := a.deliver(s.rec, first, o.reuse(), ctx.Err() == nil)
			if ok {
				return r
			}
			// Another caller collected the answer first; this one is a new
			// request again.
			continue
		case stepReplaced:
			rec := s.rec
			rec.Status, rec.EndedAt = store.Superseded, time.Time{}
			return fromRecord(rec, false)
		case stepGiveUp:
			return a.giveUp(s.rec, maxAttempts)
		case stepSupersede:
			if err := a.closeRequest(s.rec, store.Superseded, lockPath); err != nil {
				return errorResult(id, ExitInternal, err)
			}
			continue
		case stepSpawn:
			if !a.detect().CanAsk {
				return a.headless(o, id)
			}
			started, err := a.spawn(o, s, content, attempt, lockPath)
			if err != nil {
				return a.storeError(id, err)
			}
			if !started {
				// Another caller took the lock first, or a waiter was
				// testing it. Nothing was done on this look, so the next one
				// is still a first look: an older request with this key
				// still in the store has not replaced this one.
				acted = false
				time.Sleep(5 * time.Millisecond)
			}
		}
		if acted {
			first = false
		}
		left := deadline.Sub(a.now())
		switch {
		case left <= 0:
			lastLook = true
		case platform.LockHandedOff:
			if released == nil {
				released = lockReleased(lockPath)
			}
			// Look again at least every relook: a queued shared lock can be
			// overtaken by the next holder's exclusive one (after a
			// supersede, say), and then only the record tells.
			if a.await(ctx, released, min(left, relook), deadline, dialogUntil(s, content, a.now().Add(o.timeout)), o.watch) {
				released = nil
			}
		default:
			a.await(ctx, nil, min(left, 50*time.Millisecond), deadline, dialogUntil(s, content, a.now().Add(o.timeout)), nil)
		}
		if ctx.Err() != nil {
			// The caller went away; the dialog stays up for the next one.
			lastLook = true
		}
	}
}

// Watcher is told, about once a second while a caller waits for the
// person, how long it will still wait and when the dialog closes
// unanswered; Done follows once the waiting is over. The terminal
// countdown and the MCP server's progress notifications are Watchers.
type Watcher interface {
	Waiting(left time.Duration, dialogUntil time.Time)
	Done()
}

// relook bounds how long a waiter trusts the lock alone.
const relook = time.Second

// await blocks until released is closed, d has passed or ctx ends, and
// reports whether released fired. Meanwhile it tells watch (if any), about
// once a second, how long until waitEnd, when the caller stops waiting.
func (a *app) await(ctx context.Context, released <-chan struct{}, d time.Duration, waitEnd, until time.Time, watch Watcher) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	var tick <-chan time.Time
	if watch != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
		watch.Waiting(waitEnd.Sub(a.now()), until)
	}
	for {
		select {
		case <-released:
			return true
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		case <-tick:
			watch.Waiting(waitEnd.Sub(a.now()), until)
		}
	}
}

// countdown is the Watcher for a person watching a terminal. It
// rewrites one line and clears it when the wait ends, so the final one-line
// outcome stands alone.
type countdown struct{ w io.Writer }

func (c countdown) Waiting(left time.Duration, until time.Time) {
	fmt.Fprintf(c.w, "\r\033[K"+msgCountdown, left.Round(time.Second), until.Local().Format("15:04:05"))
}

func (c countdown) Done() { fmt.Fprint(c.w, "\r\033[K") }

// dialogUntil is when the dialog the waiter is waiting for will close
// unanswered: the record's deadline when the record is this request's, and
// fallback for a dialog that is only being started.
func dialogUntil(s sighting, content string, fallback time.Time) time.Time {
	if s.found && s.rec.ContentHash == content && !s.rec.Status.Final() {
		return s.rec.Deadline
	}
	return fallback
}

// spawn starts a holder for the request, unless another caller is already
// starting one. It re-checks the record under the identity's lock, so an
// answer that landed since the waiter looked is never overwritten.
func (a *app) spawn(o *confirmOptions, seen sighting, content string, attempt int, lockPath string) (bool, error) {
	lock, ok, err := platform.TryLock(lockPath)
	if err != nil || !ok {
		return false, err
	}
	defer lock.Release()
	// Encoded here, by the one caller that starts the holder: a remembered
	// answer never needs it.
	payload, err := json.Marshal(o.req)
	if err != nil {
		return false, err
	}
	if seen.found && seen.rec.HolderPID != 0 && !seen.rec.Status.Final() {
		// We hold the lock, so that holder is dead; its dialog may not be.
		platform.KillOrphanedDialog(seen.rec.HolderPID)
	}
	now := a.now()
	wd, _ := os.Getwd()
	id := o.req.Identity()
	changed := errors.New("record changed")
	rec, err := a.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if found != seen.found || rec.Version != seen.rec.Version {
			return false, changed
		}
		*rec = store.Record{
			ContentHash:   content,
			Title:         o.req.Title,
			Request:       payload,
			MessageHash:   messageHash(o.req.Message),
			Status:        store.Requested,
			Attempt:       attempt,
			RequestedAt:   now,
			Deadline:      now.Add(o.timeout),
			Remember:      o.remember,
			CollectWithin: o.reuse().collectWithin,
			CallerPID:     os.Getpid(),
			CallerDir:     wd,
			Version:       rec.Version,
		}
		return true, nil
	})
	if errors.Is(err, changed) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a.logEventOrWarn("requested", rec, "", "")
	argv := []string{os.Args[0], holdCommandName, id, content}
	if platform.LockHandedOff {
		argv = append(argv, fmt.Sprintf("--lock-fd=%d", platform.HolderLockFD))
	}
	if err := a.startHolder(argv, lock); err != nil {
		reason := fmt.Sprintf(msgHolderStart, err)
		a.finish(id, content, 0, store.Failed, reason)
		return true, nil
	}
	return true, nil
}

// deliver returns rec, an ended request that decide returned, as this
// invocation's outcome. The first caller to receive an answer collects it:
// from then on only --remember returns it again. collect is false when
// nobody can receive the outcome any more (the caller went away), so the
// answer stays for the next call. ok is false, with nothing returned, when
// rec was this new invocation's only as an uncollected answer and another
// caller collected it first: the invocation must look again.
func (a *app) deliver(rec store.Record, first bool, keep reuse, collect bool) (r Result, ok bool) {
	// late: a new invocation gets rec only because nobody has received it.
	late := first && !rec.FreshAt(a.now(), keep.remember)
	won := false
	if rec.Uncollected && collect {
		var err error
		won, err = a.markCollected(rec)
		switch {
		case err != nil && late:
			// Handing it out unrecorded could hand it out twice.
			return a.storeError(rec.Identity, fmt.Errorf("recording that the answer was collected: %w", err)), true
		case err != nil:
			a.warn(fmt.Errorf("recording that the answer was collected: %w", err))
		case !won && late:
			return Result{}, false
		}
	}
	switch {
	case won && first:
		a.logEventOrWarn("collected", rec, string(rec.Status), msgCollectedLate)
	case won:
		a.logEventOrWarn("collected", rec, string(rec.Status), "")
	case first:
		a.logEventOrWarn("reused", rec, string(rec.Status), "")
	}
	return fromRecord(rec, first), true
}

// markCollected records that rec's answer has reached a caller, unless the
// record changed since rec was read. It reports whether it wrote.
func (a *app) markCollected(rec store.Record) (bool, error) {
	won := false
	_, err := a.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
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
func (a *app) finish(id, content string, holderPID int, status store.Status, reason string) (store.Record, bool, error) {
	wrote := false
	rec, err := a.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status.Final() || rec.HolderPID != holderPID {
			return false, nil
		}
		rec.Status, rec.Reason, rec.EndedAt = status, reason, a.now()
		// A failure to show the dialog is not an answer to collect.
		rec.Uncollected = status != store.Failed
		wrote = true
		return true, nil
	})
	if err == nil && wrote {
		a.logEventOrWarn(eventFor(status), rec, string(status), reason)
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
func (a *app) giveUp(rec store.Record, attempts int) Result {
	reason := fmt.Sprintf(msgHolderDiedLimit, attempts)
	if _, _, err := a.finish(rec.Identity, rec.ContentHash, rec.HolderPID, store.Failed, reason); err != nil {
		return a.storeError(rec.Identity, err)
	}
	rec.Status, rec.Reason = store.Failed, reason
	return fromRecord(rec, false)
}

// closeRequest asks the holder of rec to close its dialog and end the
// request as status, and waits (boundedly) until it has. A request whose
// holder is gone is ended directly.
func (a *app) closeRequest(rec store.Record, status store.Status, lockPath string) error {
	_, err := a.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != rec.ContentHash || r.Status.Final() {
			return false, nil
		}
		r.CancelRequest = status
		return true, nil
	})
	if err != nil {
		return err
	}
	if rec.HolderPID != 0 {
		_ = platform.InterruptHolder(rec.HolderPID)
	}
	const patience = 5 * time.Second
	if !waitForRelease(lockPath, patience) {
		return fmt.Errorf(msgSupersedeStuck, patience)
	}
	// The holder recorded the end itself, unless it died first; then its
	// dialog may still be on screen.
	_, wrote, err := a.finish(rec.Identity, rec.ContentHash, rec.HolderPID, status, "")
	if wrote {
		platform.KillOrphanedDialog(rec.HolderPID)
	}
	return err
}

// headless applies --if-headless when nobody can be asked.
func (a *app) headless(o *confirmOptions, id string) Result {
	why := a.detect().Reason
	rec := store.Record{Identity: id, Title: o.req.Title, MessageHash: messageHash(o.req.Message)}
	r := Result{Key: id}
	switch o.ifHeadless {
	case "approve":
		// The one approval without a click: it must be on record first.
		if err := a.logEvent("headless", rec, "approved", why); err != nil {
			return a.storeError(id, fmt.Errorf("recording the headless approval: %w", err))
		}
		if o.json {
			// Without --json the outcome line itself says so on stderr.
			a.warn(fmt.Errorf(msgHeadlessApprove, why))
		}
		r.Status, r.ExitCode, r.Message = StatusApproved, ExitApproved, fmt.Sprintf(msgHeadlessApprove, why)
	case "deny":
		a.logEventOrWarn("headless", rec, "denied", why)
		r.Status, r.ExitCode, r.Message = StatusDenied, ExitDenied, fmt.Sprintf(msgHeadlessDeny, why)
	default:
		a.logEventOrWarn("headless", rec, "failed", why)
		r.Status, r.ExitCode, r.Message = StatusHeadless, ExitHeadless, fmt.Sprintf(msgHeadless, why)
		r.hint = hintHeadless
	}
	return r
}

func (a *app) storeError(id string, err error) Result {
	r := errorResult(id, ExitInternal, fmt.Errorf(msgStoreUnusable, err))
	r.hint = fmt.Sprintf(hintStoreUnusable, filepath.Dir(a.paths.DB))
	return r
}

// requestFrom decodes the request a record carries.
func requestFrom(rec store.Record) (dialog.Request, error) {
	var req dialog.Request
	if err := json.Unmarshal(rec.Request, &req); err != nil {
		return req, fmt.Errorf("decoding the stored request: %w", err)
	}
	return req, req.Validate()
}
