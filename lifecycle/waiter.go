package lifecycle

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
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
// A yes/no question's approvers are resolved first (withApprovers): who
// is asked is part of the identity.
func (e *Engine) Ask(ctx context.Context, c Call) (Result, error) {
	c, refused := e.withApprovers(c)
	if refused != nil {
		return *refused, nil
	}
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	if err := e.checkPaths(); err != nil {
		return e.StoreError(c.Request.Identity(), err), nil
	}
	if r, ok := e.rememberedByDialog(ctx, c); ok {
		return r, nil
	}
	c = e.prepare(c)
	if c.Watch != nil {
		defer c.Watch.Done()
	}
	w := &waiter{e: e, c: c, id: c.Request.Identity(), content: c.Request.ContentHash()}
	w.lockPath = e.paths.LockFile(w.id)
	w.deadline = e.now().Add(c.wait())
	defer w.stopWatching()
	r := w.run(ctx)
	if w.phoneWarning != nil {
		// The caller's own result says it, as --json's warning and on
		// stderr, not only a line of stderr.
		r.Warning = strings.TrimPrefix(r.Warning+"; "+w.phoneWarning.Error(), "; ")
	}
	return r, nil
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
	// Only for a Channel in the caller's own process (the terminal
	// prompt): a Channel another program may answer (an MCP client's form)
	// keeps its requests apart from the dialog's both ways.
	if c.Channel == nil || c.Channel.Always || !c.Channel.Attached || c.Request.Via != "" {
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
	// own is this request's record as last seen (ownSeen): what a
	// caller whose request a newer one replaced reports, since by then
	// the store may hold only the newer request's.
	own     store.Record
	ownSeen bool
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
	// prompting: this invocation asks through its own attached Channel
	// (the terminal prompt), which shows its own countdown: the call's
	// Watch is not told.
	prompting bool
	// phoneWay is how the phone takes part, or phoneRefusal why the
	// request cannot be asked, once phoneDecided.
	phoneDecided bool
	phoneWay     string
	phoneRefusal *Result
	// phoneWarning is what kept the phone out of the request, for the
	// result.
	phoneWarning error
	// phoneNote says why a request of several approvers is not asked on
	// this machine, only on their phones: for the history.
	phoneNote string
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
			if r, again := w.report(s); !again {
				return r
			}
			continue
		case stepPending:
			return pending(w.id)
		case stepReplaced:
			return w.replaced(s.rec)
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
			r, started := w.ask(s, attempt)
			if r != nil {
				return *r
			}
			if !started {
				// Another caller took the lock first, or a waiter was
				// testing it: nothing was done, and the next look is still
				// a first look.
				time.Sleep(5 * time.Millisecond)
				w.await(ctx, s)
				continue
			}
		}
		if next == stepWait && s.first {
			w.joining(s.rec)
		}
		w.follow()
		w.await(ctx, s)
	}
}

// joining warns a call that names the phone (--remote also or only) as it
// joins a request already open without it: the phone is no part of the
// identity, so this call waits for that request, which its holder asks
// where it was asked, and the phone never sees it.
func (w *waiter) joining(rec store.Record) {
	if (w.c.Remote == remote.ModeAlso || w.c.Remote == remote.ModeOnly) && rec.Phone == phoneNo && rec.ContentHash == w.content {
		w.e.warn(errors.New(msgPhoneNotJoined))
	}
}

// replaced is the outcome of this invocation's request, which the newer
// request newer (same key, other content) replaced: superseded, told from
// this request's own record as last seen, not from the newer one's. It
// ended no later than the newer request was asked (the older one is
// closed first), which is when it is reported to have ended unless its
// own record said.
func (w *waiter) replaced(newer store.Record) Result {
	rec := store.Record{Identity: newer.Identity}
	if w.ownSeen {
		rec = w.own
	}
	if !rec.Status.Final() || rec.EndedAt.IsZero() {
		rec.EndedAt = newer.RequestedAt
	}
	rec.Status = store.Superseded
	return resultOf(rec, facts{now: w.e.now(), own: true, caller: true})
}

// follow marks this invocation as following the request it started or
// joined: it will receive its answer.
func (w *waiter) follow() {
	joined := !w.acted
	w.acted = true
	w.watch()
	if joined && w.c.Joined != nil {
		w.c.Joined()
	}
}

// report returns the ended or unanswerable request s saw as the outcome;
// again is true instead when a caller that asks another way had the
// dialog closed first, and must look once more: the person may have
// answered meanwhile.
func (w *waiter) report(s sighting) (r Result, again bool) {
	if w.c.Withdraw && !w.withdrawn && w.acted && !s.rec.Status.Final() {
		w.withdrawn = true
		if err := w.e.closeRequest(s.rec, store.Withdrawn); err != nil {
			return ErrorResult(w.id, ExitInternal, err), false
		}
		return Result{}, true
	}
	return resultOf(s.rec, facts{now: w.e.now(), alive: s.alive, own: true, caller: true}), false
}

// ask starts asking, attempt number attempt, as prepare chose: through
// the Channel, or by dialog (a nil Channel), and on the phone as the
// settings say. It returns the outcome where there is one at once (nobody
// can be asked, the phone refused, the store failed); started is false
// when another caller was starting it.
func (w *waiter) ask(s sighting, attempt int) (r *Result, started bool) {
	e, ch := w.e, w.c.Channel
	phone, refused := w.phone(ch)
	if refused != nil {
		return refused, false
	}
	if phone == phoneOnly {
		// The phone alone is asked by a holder of its own, which outlives
		// this caller (phone set the call's Wait).
		ch = nil
	}
	if ch == nil && phone == phoneNo && !w.canAsk() {
		r := e.headless(w.c, w.id, *w.session)
		return &r, false
	}
	rec, started, err := e.spawn(w.c, ch, phone, s, w.content, attempt, w.phoneNote)
	if err != nil {
		r := e.StoreError(w.id, err)
		return &r, false
	}
	if started {
		w.own, w.ownSeen = rec, true
	}
	if started && (w.c.UntilEnd || ch != nil && ch.Attached) {
		// This invocation now asks (in its own process, for an Attached
		// Channel), maybe after another's holder or prompt died: it waits
		// for its own, to the deadline just set, whenever that is.
		w.deadline = latest(w.deadline, e.now().Add(w.c.Timeout+attachedGrace))
		w.prompting = true
	}
	return nil, started
}

// look reads the request's record and tests its holder's lock.
func (w *waiter) look() (sighting, error) {
	s := sighting{first: !w.acted, last: w.looked && w.over, pastWait: !w.e.now().Before(w.deadline)}
	w.looked = true
	var err error
	if s.rec, s.found, err = w.e.store.Get(w.id); err != nil {
		return s, err
	}
	if s.found && s.rec.ContentHash == w.content && (w.acted || !s.rec.Status.Final()) {
		// This request as it stands: the open one this invocation joins
		// or follows, or how it ended. An ended one on a first look may be
		// an older asking's, which a start replaces (ask).
		w.own, w.ownSeen = s.rec, true
	}
	s.alive, err = platform.LockHeld(w.lockPath)
	return s, err
}

// prepare decides how c is asked, as Ask does first: through its Channel
// when the Channel is Always or no dialog can be shown here (Config.Detect),
// and then c.Request.Via names the Channel; otherwise by dialog, without
// the Channel. The request's identity depends on it (dialog.Request.Via).
// Preparing a prepared call changes nothing.
func (e *Engine) prepare(c Call) Call {
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
		if len(w.c.Request.Approvers) > 0 {
			w.phoneWay, w.phoneRefusal, w.phoneNote = w.e.phoneForApprovers(w.c, ch != nil || w.canAsk())
		} else {
			w.phoneWay, w.phoneRefusal, w.phoneWarning = w.e.phoneFor(w.c, ch != nil || w.canAsk())
		}
		if w.phoneWay == phoneOnly && ch != nil && ch.Attached && !w.c.UntilEnd {
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
	left := max(w.deadline.Sub(e.now()), w.lookingUp(s))
	until := w.dialogUntil(s)
	switch {
	case left <= 0:
		w.over = true
	case platform.LockHandedOff:
		watch := w.c.Watch
		if w.prompting {
			watch = nil
		} else if on, ok := watch.(AskedOnWatcher); ok && s.found && s.rec.ContentHash == w.content {
			on.AskedOn(s.rec.Channel, s.rec.Phone)
		}
		e.await(ctx, platform.LockReleased(w.lockPath), min(left, relook), w.deadline, until, watch)
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

// phoneLookUpWithin bounds how long past its wait a caller waits for a
// holder that is still finding out whether the phone's server has the
// request's answer: the server's opening (5 s at most), the look-up of
// the fleet's record, and, where it collects, the follow-up sent before it
// hands the answer over (up to 3 s for the asker's, and 1.25 s more).
const phoneLookUpWithin = 15 * time.Second

// lookingUp is how much longer than its wait the caller waits for s, this
// request, asked on the phone and not on it yet (neither shown nor ended)
// while its holder lives: until then nobody knows whether the server has
// its answer, and pending ("still open on the phone") would be no true
// answer. A caller with --wait 0 collects an answer on record so.
func (w *waiter) lookingUp(s sighting) time.Duration {
	rec, alive := s.rec, s.alive
	if w.ownSeen && (!s.found || rec.ContentHash != w.content || w.own.Version > rec.Version) {
		// Just started by this caller, since s was seen (maybe in place
		// of an attempt that failed): its holder has the lock.
		rec, alive = w.own, true
	} else if !s.found {
		return 0
	}
	if rec.ContentHash != w.content || rec.Phone == phoneNo || rec.Status != store.Requested || !alive {
		return 0
	}
	return rec.RequestedAt.Add(phoneLookUpWithin).Sub(w.e.now())
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

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
