package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// Ask runs the request lifecycle for one invocation and returns its
// outcome: the answer (collected now, or given before this call), pending
// when the dialog is still open at c.Wait, or why nobody was asked. It
// never returns an approval that is not recorded as Approved for this
// request's identity and content, apart from the logged IfHeadlessApprove.
// When ctx ends it stops waiting and reports the request as it stands; the
// dialog stays up. An invalid c is an error wrapping dialog.ErrInvalid;
// every outcome of the request, internal errors included, is a Result.
func (e *Engine) Ask(ctx context.Context, c Call) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	if r, ok := e.rememberedByDialog(ctx, c); ok {
		return r, nil
	}
	c = e.Prepare(c)
	if c.Channel != nil && c.Channel.Attached {
		// A way of asking in the caller's own process shows its own
		// countdown (the terminal prompt's line).
		c.Watch = nil
	}
	if c.Watch != nil {
		defer c.Watch.Done()
	}
	w := &waiter{e: e, c: c, id: c.Request.Identity(), content: c.Request.ContentHash()}
	w.lockPath = e.paths.LockFile(w.id)
	w.deadline = e.now().Add(c.wait())
	defer w.stopWatching()
	return w.run(ctx), nil
}

// rememberedByDialog returns the answer kept for c's request as asked by
// dialog, for a call that could also be asked through its Channel, before
// anything decides which way it would be asked now: that decision
// (Config.Detect, a connection to the display) would otherwise be most of
// the cost of returning a remembered answer from a terminal. An answer a
// person gave in a dialog answers the question however it would be asked
// now; the other way round is never so (dialog.Request.Via). It returns
// what the waiter's first look would return for that identity, and ok
// false where that look would do anything else.
func (e *Engine) rememberedByDialog(ctx context.Context, c Call) (Result, bool) {
	if c.Channel == nil || c.Channel.Always || c.Request.Via != "" {
		return Result{}, false
	}
	rec, found, err := e.store.Get(c.Request.Identity())
	if err != nil || !found {
		return Result{}, false
	}
	s := sighting{rec: rec, found: true, first: true}
	if next, _ := decide(s, c.Request.ContentHash(), e.now(), c.reuse(), c.Retries+1); next != stepReturn {
		return Result{}, false
	}
	return e.deliver(rec, true, c.reuse(), ctx.Err() == nil)
}

// waiter is one invocation's side of the lifecycle: what it has done so
// far, which decide reads through each sighting.
type waiter struct {
	e        *Engine
	c        Call
	id       string
	content  string
	lockPath string
	deadline time.Time
	// acted: this invocation started or joined this request's dialog.
	acted bool
	// looked: it has looked once; over: its wait has ended since.
	looked, over bool
	// session is what Detect said, asked once and only when needed.
	session *platform.Session
	// withdrawn: the wait ran out, and this invocation asked the request's
	// holder to end it withdrawn (Call.Withdraw).
	withdrawn bool
	// unwatch ends this invocation's Watch on the request, while it waits
	// for the answer: a holder that records the answer then, records it as
	// received.
	unwatch func()
	// phoneWay is how the phone takes part, or phoneRefusal why the
	// request cannot be asked, once phoneDecided.
	phoneDecided bool
	phoneWay     string
	phoneRefusal *Result
}

func (w *waiter) run(ctx context.Context) Result {
	e, maxAttempts := w.e, w.c.Retries+1
	for {
		s, err := w.look()
		if err != nil {
			return e.StoreError(w.id, err)
		}
		next, attempt := decide(s, w.content, e.now(), w.c.reuse(), maxAttempts)
		switch next {
		case stepReturn:
			if r, ok := e.deliver(s.rec, s.first, w.c.reuse(), ctx.Err() == nil); ok {
				return r
			}
			// Another caller collected the answer first; this one is a new
			// request again.
			continue
		case stepReport:
			if w.c.Withdraw && !w.withdrawn && w.acted && !s.rec.Status.Final() {
				// Close the dialog before the caller asks another way, and
				// look once more: the person may have answered meanwhile.
				w.withdrawn = true
				if err := e.closeRequest(s.rec, store.Withdrawn); err != nil {
					return ErrorResult(w.id, ExitInternal, err)
				}
				continue
			}
			return fromRecord(s.rec, false)
		case stepPending:
			return pending(w.id)
		case stepReplaced:
			rec := s.rec
			rec.Status, rec.EndedAt = store.Superseded, time.Time{}
			return fromRecord(rec, false)
		case stepGiveUp:
			return e.giveUp(s.rec, maxAttempts)
		case stepSupersede:
			if err := e.closeRequest(s.rec, store.Superseded); err != nil {
				return ErrorResult(w.id, ExitInternal, err)
			}
			// The older request is out of the way; this one has not been
			// asked yet, so the next look is still a first look.
			continue
		case stepSpawn:
			// Prepare chose: through the Channel, or (nil) by dialog.
			ch := w.c.Channel
			phone, r := w.phone(ch)
			if r != nil {
				return *r
			}
			if phone == phoneOnly {
				// The phone alone is asked by a holder of its own, which
				// outlives this caller (phone set the call's Wait).
				ch = nil
			}
			if ch == nil && phone == phoneNo && !w.canAsk() {
				return e.headless(w.c, w.id, *w.session)
			}
			started, err := e.spawn(w.c, ch, phone, s, w.content, attempt)
			if err != nil {
				return e.StoreError(w.id, err)
			}
			if !started {
				// Another caller took the lock first, or a waiter was
				// testing it: nothing was done, and the next look is still
				// a first look.
				time.Sleep(5 * time.Millisecond)
				w.await(ctx, s)
				continue
			}
			if ch != nil && ch.Attached {
				// This invocation now asks in its own process, maybe
				// after another's prompt died: it waits for its own,
				// to the deadline just set, whenever that is.
				w.deadline = latest(w.deadline, e.now().Add(w.c.Timeout+attachedGrace))
			}
		}
		// This invocation now follows the request it started or joined,
		// and will receive its answer.
		joined := !w.acted
		w.acted = true
		w.watch()
		if joined && w.c.Joined != nil {
			w.c.Joined()
		}
		w.await(ctx, s)
	}
}

// look reads the request's record and tests its holder's lock.
func (w *waiter) look() (sighting, error) {
	s := sighting{first: !w.acted, last: w.looked && w.over}
	w.looked = true
	var err error
	if s.rec, s.found, err = w.e.store.Get(w.id); err != nil {
		return s, err
	}
	s.alive, err = platform.LockHeld(w.lockPath)
	return s, err
}

// Prepare decides how c is asked, as Ask does first: through its Channel
// when the Channel is Always or no dialog can be shown here (Config.Detect),
// and then c.Request.Via names the Channel; otherwise by dialog, without
// the Channel. The request's identity depends on it (dialog.Request.Via),
// so a front end that looks a request up by identity before Ask prepares
// the call first. Preparing a prepared call changes nothing.
func (e *Engine) Prepare(c Call) Call {
	if c.Channel == nil || c.Request.Via != "" {
		return c
	}
	if !c.Channel.Always && e.detect().CanAsk {
		c.Channel = nil
		return c
	}
	ch := *c.Channel
	ch.Always = true
	c.Channel, c.Request.Via = &ch, ch.Name
	return c
}

// phone is how the phone takes part in this invocation's request
// (Engine.phoneFor), decided once.
func (w *waiter) phone(ch *Channel) (string, *Result) {
	if !w.phoneDecided {
		w.phoneDecided = true
		w.phoneWay, w.phoneRefusal = w.e.phoneFor(w.c, ch != nil || w.canAsk())
		if w.phoneWay == phoneOnly && ch != nil && ch.Attached {
			// Not asked in this process after all: the call's Wait
			// applies, not the prompt's whole Timeout.
			w.deadline = w.deadline.Add(w.c.Wait - w.c.wait())
		}
	}
	return w.phoneWay, w.phoneRefusal
}

func (w *waiter) canAsk() bool {
	if w.session == nil {
		s := w.e.detect()
		w.session = &s
	}
	return w.session.CanAsk
}

// relook bounds how long a waiter trusts the lock alone: a queued shared
// lock can be overtaken by the next holder's exclusive one (after a
// supersede, say), and then only the record tells.
const relook = time.Second

// await blocks until the holder lets go of the lock, relook or the
// deadline passes, or ctx ends, and notes when the wait is over.
func (w *waiter) await(ctx context.Context, s sighting) {
	e := w.e
	left := w.deadline.Sub(e.now())
	until := w.dialogUntil(s)
	switch {
	case left <= 0:
		w.over = true
	case platform.LockHandedOff:
		e.await(ctx, platform.LockReleased(w.lockPath), min(left, relook), w.deadline, until, w.c.Watch)
	default:
		e.await(ctx, nil, min(left, 50*time.Millisecond), w.deadline, until, nil)
	}
	if ctx.Err() != nil {
		// The caller went away; the dialog stays up for the next one.
		w.over = true
	}
	if w.over {
		// From here on an answer may find nobody to receive it: let the
		// holder see that before the last look.
		w.stopWatching()
	}
}

func (w *waiter) watch() {
	if w.unwatch != nil {
		return
	}
	// Without a watch the answer is recorded as uncollected, and this
	// waiter collects it through the store itself: slower in a herd, but
	// nothing is lost.
	w.unwatch, _ = platform.Watch(w.e.paths.WatchFile(w.id))
}

func (w *waiter) stopWatching() {
	if w.unwatch != nil {
		w.unwatch()
		w.unwatch = nil
	}
}

// dialogUntil is when the dialog the waiter is waiting for will close
// unanswered: the record's deadline when the record is this request's, and
// the call's timeout from now for a dialog that is only being started.
func (w *waiter) dialogUntil(s sighting) time.Time {
	if s.found && s.rec.ContentHash == w.content && !s.rec.Status.Final() {
		return s.rec.Deadline
	}
	return w.e.now().Add(w.c.Timeout)
}

// await blocks until released is closed, d has passed or ctx ends.
// Meanwhile it tells watch (if any), about once a second, how long until
// waitEnd, when the caller stops waiting.
func (e *Engine) await(ctx context.Context, released <-chan struct{}, d time.Duration, waitEnd, until time.Time, watch Watcher) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	var tick <-chan time.Time
	if watch != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
		watch.Waiting(waitEnd.Sub(e.now()), until)
	}
	for {
		select {
		case <-released:
			return
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		case <-tick:
			watch.Waiting(waitEnd.Sub(e.now()), until)
		}
	}
}

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
	switch {
	case won && first:
		e.logEventOrWarn("collected", rec, string(rec.Status), msgCollectedLate)
	case won:
		e.logEventOrWarn("collected", rec, string(rec.Status), "")
	case first:
		e.logEventOrWarn("reused", rec, string(rec.Status), "")
	}
	return fromRecord(rec, first), true
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

// spawn starts a holder for the request, unless another caller is already
// starting one: a detached holder process with a dialog, or, with ch, one
// in this process that asks through ch; either asks on the phone too as
// phone says. It re-checks the record under the
// identity's lock, so an answer that landed since the waiter looked is
// never overwritten.
func (e *Engine) spawn(c Call, ch *Channel, phone string, seen sighting, content string, attempt int) (bool, error) {
	if err := store.EnsureDir(e.paths.Locks); err != nil {
		return false, err
	}
	id := c.Request.Identity()
	lock, ok, err := platform.TryLock(e.paths.LockFile(id))
	if err != nil || !ok {
		return false, err
	}
	handedOver := false
	defer func() {
		if !handedOver {
			lock.Release()
		}
	}()
	// Encoded here, by the one caller that starts the holder: a remembered
	// answer never needs it.
	payload, err := json.Marshal(c.Request)
	if err != nil {
		return false, err
	}
	if seen.found && seen.rec.HolderPID != 0 && !seen.rec.Status.Final() {
		// We hold the lock, so that holder is dead; its dialog may not be.
		platform.KillOrphanedDialog(seen.rec.HolderPID)
	}
	channel := ""
	if ch != nil {
		channel = ch.Name
	}
	now := e.now()
	changed := errors.New("record changed")
	rec, err := e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if found != seen.found || rec.Version != seen.rec.Version {
			return false, changed
		}
		*rec = store.Record{
			ContentHash:    content,
			Title:          c.Request.Title,
			Request:        payload,
			MessageHash:    messageHash(c.Request.Message),
			Status:         store.Requested,
			Attempt:        attempt,
			RequestedAt:    now,
			Deadline:       now.Add(c.Timeout),
			Remember:       c.Remember,
			CollectWithin:  c.reuse().collectWithin,
			CallerPID:      os.Getpid(),
			CallerDir:      e.dir,
			Version:        rec.Version,
			Channel:        channel,
			Origin:         c.Request.Origin,
			Kind:           c.Request.Kind,
			Multiple:       c.Request.Multiple,
			Phone:          phone,
			EndsWithCaller: c.Withdraw,
		}
		return true, nil
	})
	if errors.Is(err, changed) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.logEventOrWarn("requested", rec, "", "")
	if ch != nil {
		handedOver = true
		e.showHere(ch, id, content, lock)
		return true, nil
	}
	if err := e.startHolder(HolderArgs(id, content), lock); err != nil {
		e.finish(id, content, 0, store.Failed, fmt.Sprintf(msgHolderStart, err))
	}
	return true, nil
}

// showHere is the holder of a request asked through ch: a goroutine of
// this process that keeps lock until the request has ended.
func (e *Engine) showHere(ch *Channel, id, content string, lock platform.Lock) {
	ctx := ch.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		// The session this would ask through has ended (its front end is
		// draining): the request fails, and the next call asks again.
		e.finish(id, content, 0, store.Failed, err.Error())
		lock.Release()
		return
	}
	e.holders.Add(1)
	go func() {
		defer e.holders.Done()
		defer lock.Release()
		if err := e.show(ctx, id, content, holding{backend: ch.Backend}); err != nil {
			e.warn(err)
		}
	}()
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
}

// end is finish with the person's answer.
func (e *Engine) end(id, content string, holderPID int, end ending) (store.Record, bool, error) {
	status, reason := end.status, end.reason
	// A caller waiting for the answer now receives it when it wakes: the
	// answer is collected without a write of its own, which a herd of
	// waiters would queue for. A failure to show the dialog is not an
	// answer to collect.
	received := status.Answer() && platform.Watched(e.paths.WatchFile(id))
	wrote := false
	rec, err := e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status.Final() || rec.HolderPID != holderPID {
			return false, nil
		}
		rec.Status, rec.Reason, rec.EndedAt = status, reason, e.now()
		rec.Uncollected = status.Answer() && !received
		if status == store.Approved {
			rec.Answers, rec.Typed, rec.ApprovedFor = end.answer.Values, end.answer.Typed, end.answer.For
		}
		if (status == store.Approved || status == store.Denied) && end.by == wayPhone {
			rec.AnsweredBy = end.by
		}
		wrote = true
		return true, nil
	})
	if err == nil && wrote {
		e.logEventOrWarn(eventFor(status), rec, string(status), reason)
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
	return fromRecord(rec, false)
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
	if !platform.WaitReleased(e.paths.LockFile(rec.Identity), patience) {
		return fmt.Errorf(msgSupersedeStuck, patience)
	}
	// The holder recorded the end itself, unless it died first; then its
	// dialog may still be on screen.
	_, wrote, err := e.finish(rec.Identity, rec.ContentHash, rec.HolderPID, status, "")
	if wrote {
		platform.KillOrphanedDialog(rec.HolderPID)
	}
	return err
}

// headless applies IfHeadless when nobody can be asked.
func (e *Engine) headless(c Call, id string, session platform.Session) Result {
	why := session.Reason
	rec := store.Record{Identity: id, Title: c.Request.Title, MessageHash: messageHash(c.Request.Message), Origin: c.Request.Origin}
	r := Result{Key: id}
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
	}
	r.Headless = true
	return r
}

// Headless is what a session where nobody can be asked means for a person
// checking it (ask-confirm doctor): exit 4, with the session's own hint, or
// else the general one.
func Headless(s platform.Session) Result {
	r := Result{Status: StatusHeadless, ExitCode: ExitHeadless, Message: fmt.Sprintf(msgHeadless, s.Reason), Hint: s.Hint, Headless: true}
	if r.Hint == "" {
		r.Hint = hintHeadless
	}
	return r
}

// requestFrom decodes the request a record carries.
func requestFrom(rec store.Record) (dialog.Request, error) {
	var req dialog.Request
	if err := json.Unmarshal(rec.Request, &req); err != nil {
		return req, fmt.Errorf(msgDecodeRequest, err)
	}
	return req, req.Validate()
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
