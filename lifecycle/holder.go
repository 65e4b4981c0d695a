package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// holderCommand is the first argument of a holder's command line.
const holderCommand = "hold"

// holderSetupFlag tells a holder that its stdin carries the phone's setup
// (remote.Give), which its caller was given in the environment: the
// holder's own environment is without it (remote.TakeEnv). It only says
// where the setup is; a holder's caller could as well give it one in the
// environment.
const holderSetupFlag = "--setup-on-stdin"

// holderArgs is the command line a waiter starts a holder with: the
// program's own name, then what HolderMain recognises. Where the lock is
// handed over, the holder finds it at platform.HolderLockFD; where this
// process was given the phone's setup (remote.Given), on its stdin
// (startDetached).
func holderArgs(id, content string) []string {
	argv := []string{os.Args[0], holderCommand, id, content}
	if platform.LockHandedOff {
		argv = append(argv, "--lock-fd="+strconv.Itoa(platform.HolderLockFD))
	}
	if _, ok := remote.Given(); ok {
		argv = append(argv, holderSetupFlag)
	}
	return argv
}

// startDetached is the holder's start where Config.StartHolder is nil:
// platform.StartDetached, with the phone's setup, where this process was
// given one (holderArgs), on the holder's stdin.
func startDetached(argv []string, lock platform.Lock) error {
	var input []byte
	if slices.Contains(argv, holderSetupFlag) {
		setup, _ := remote.Given()
		input = []byte(setup)
	}
	return platform.StartDetached(argv, lock, input)
}

// HolderMain is the seam through which a program that makes an Engine also
// serves as its holder: every such program's main calls it first with its
// arguments (without the program name). First, whatever the arguments, it
// moves the phone's setup out of the environment (remote.TakeEnv), so that
// no process the program starts inherits it. For a holder's command line
// (HolderArgs) it shows the stored request's dialog, records the answer and
// returns the exit code with ok true. For anything else it does nothing more
// and returns ok false. The holder's engine has c's settings; a program
// passes the zero Config, which takes the real paths, clock and dialogs.
func HolderMain(args []string, c Config) (code int, ok bool) {
	remote.TakeEnv()
	if len(args) == 0 || args[0] != holderCommand {
		return 0, false
	}
	id, content, lockFD, setupOnStdin, err := parseHolderArgs(args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, msgHoldError+"\n", err)
		return int(ExitUsage), true
	}
	if setupOnStdin {
		remote.Give(os.Stdin)
	}
	e := New(c)
	// A holder records the events of its caller's request, in its
	// caller's directory: its own is / (or the Windows directory).
	e.dir = ""
	if err := e.hold(context.Background(), id, content, lockFD); err != nil {
		return int(ExitInternal), true
	}
	return int(ExitApproved), true
}

// parseHolderArgs reads the arguments HolderArgs wrote after the command.
func parseHolderArgs(args []string) (id, content string, lockFD int, setupOnStdin bool, err error) {
	if n := len(args); n > 0 && args[n-1] == holderSetupFlag {
		setupOnStdin, args = true, args[:n-1]
	}
	if len(args) < 2 || len(args) > 3 {
		return "", "", 0, false, errors.New(msgHoldUsage)
	}
	if len(args) == 3 {
		n, ok := strings.CutPrefix(args[2], "--lock-fd=")
		if lockFD, err = strconv.Atoi(n); !ok || err != nil || lockFD <= 0 {
			return "", "", 0, false, fmt.Errorf(msgHoldBadFD, args[2])
		}
	}
	return args[0], args[1], lockFD, setupOnStdin, nil
}

// errNotMine is returned when the record no longer asks for this holder.
var errNotMine = errors.New(msgNotMine)

// Reasons a holder's dialog context ends. The first two are what a way
// of asking that can still reach the person (a phone) tells them.
var (
	errTimedOut    error = &dialog.Closed{What: closedExpired}
	errSignalled         = errors.New(msgHolderSignal)
	holderPollTick       = time.Second
)

// closeAskedError is the cause a holder closes its request with when an
// operator, a newer request or its callers' end asked it to: the request
// ends as status, and closed says so to the person.
type closeAskedError struct {
	status store.Status
	closed dialog.Closed
}

func (e *closeAskedError) Error() string { return "close requested: " + e.closed.What }

func (e *closeAskedError) Unwrap() error { return &e.closed }

// closeAskedAs is the cause of closing a request that ends as status.
func closeAskedAs(status store.Status) error {
	return &closeAskedError{status: status, closed: *closedAs(status)}
}

// hold is the holder: it keeps the identity's lock for its whole life, shows
// the stored request's dialog until it is answered, times out or is asked to
// close, and records the final state. It only ever records Approved when the
// backend reported the approve button after the dialog had time to render
// and before anything asked it to close.
func (e *Engine) hold(ctx context.Context, id, content string, lockFD int) error {
	lock, err := e.holderLock(id, lockFD)
	if err != nil {
		return err
	}
	defer lock.Close()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	return e.show(ctx, id, content, holding{pid: os.Getpid(), backend: e.backend, signals: signals})
}

// holding is how one holder shows a request: in a process of its own (pid,
// signals), or in its caller's process through a Channel (pid 0: nobody
// may signal it, and it notices a close request on its own).
type holding struct {
	pid     int
	backend dialog.Backend
	signals <-chan os.Signal
}

// show puts the stored request in front of the person through h, whose
// holder keeps the identity's lock meanwhile, and records the final state.
func (e *Engine) show(ctx context.Context, id, content string, h holding) error {
	pid := h.pid
	rec, req, done, err := e.claim(id, content, pid)
	if done {
		return err
	}
	ig := &ignoredReplies{e: e, rec: rec}
	defer ig.done()
	votes := e.logVotes(rec, req)
	defer votes.stop()
	// A request on the phone alone is shown once the server took it, not
	// once a dialog program has run for a while: a publish refused or
	// stalled must not read as shown.
	sent := make(chan struct{})
	var sentOnce sync.Once
	ways, b, err := e.ways(rec, req, h.backend, ig, func() { sentOnce.Do(func() { close(sent) }) }, votes)
	if err != nil {
		return e.failWith(id, content, pid, err)
	}

	base, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dctx, stop := context.WithDeadlineCause(base, rec.Deadline, errTimedOut)
	defer stop()
	tick := time.NewTicker(holderPollTick)
	defer tick.Stop()

	answers := make(chan reply, 1)
	sh := &showing{id: id, content: content, pid: pid, rec: rec, req: req, signals: h.signals, cancel: cancel, tick: tick.C, started: e.now(), votes: votes}
	callers := watchCallers(rec.EndsWithCaller)
	defer callers.stop()
	asking := e.startRace(dctx, req, ways, b, func(w string, err error) { e.wayFailed(rec, w, err) })
	go func() { answers <- asking.first(dctx) }()
	settled := time.NewTimer(e.settle)
	defer settled.Stop()
	shown, phoneSent := settled.C, (<-chan struct{})(nil)
	if rec.Phone == phoneOnly {
		shown, phoneSent = nil, sent
	}
	return e.untilAnswered(dctx, sh, asking, answers, callers, shown, phoneSent)
}

// showing is one request a holder shows, from its claim to its answer:
// the request, the holder's signals, and how to close its ways (cancel).
type showing struct {
	id, content string
	pid         int
	rec         store.Record
	req         dialog.Request
	signals     <-chan os.Signal
	cancel      context.CancelCauseFunc
	tick        <-chan time.Time
	started     time.Time
	// votes records the votes of a request of several approvers; nil for
	// one of one person.
	votes *voteLog
}

// untilAnswered marks sh shown once it is (at shown, or once the phone
// took it, phoneSent), closes it when asked to, when the holder is
// signalled or when its callers are gone, and records the first answer
// of asking's ways.
func (e *Engine) untilAnswered(dctx context.Context, sh *showing, asking *race, answers <-chan reply, callers *callerWatch, shown <-chan time.Time, phoneSent <-chan struct{}) error {
	id, content, rec := sh.id, sh.content, sh.rec
	for {
		select {
		case <-phoneSent:
			phoneSent = nil
			e.markShown(id, content, sh.pid)
			callers.look(e.paths.WatchFile(id))
		case <-shown:
			e.markShown(id, content, sh.pid)
			// Its callers watch by now, on any but a crawling machine: a
			// kill from here on is seen at the next look.
			callers.look(e.paths.WatchFile(id))
		case <-sh.signals:
			sh.cancel(e.signalled(id, content, rec))
		case <-sh.tick:
			if as, ok := e.closeAsked(id, content); ok {
				sh.cancel(closeAskedAs(as))
			}
		case <-callers.tick:
			e.closeIfCallersGone(sh, callers)
		case ans := <-answers:
			stoppedWithTree(ans.err, sh.signals, signalGrace, func() { sh.cancel(e.signalled(id, content, rec)) })
			// Every vote counted is on record before the outcome.
			sh.votes.stop()
			final, err := e.recordAnswer(dctx, id, rec, sh.req, ans, e.now().Sub(sh.started), sh.pid)
			// Every other way closes, and the phone is told what became
			// of the request: as recorded, whoever recorded it.
			asking.close(func(w string) error { return closedCause(final, w) })
			return err
		}
	}
}

// closeIfCallersGone withdraws sh when its callers died, however (Codex
// kills its hook at the hook's timeout and then shows its own prompt):
// nobody will take the answer, and their host asks the person its own
// way.
func (e *Engine) closeIfCallersGone(sh *showing, callers *callerWatch) {
	if !callers.gone(e.paths.WatchFile(sh.id)) {
		return
	}
	e.logEventOrWarn("callers-gone", sh.rec, "", msgCallersGone)
	sh.cancel(closeAskedAs(store.Withdrawn))
	// Said once: a later tick, which comes while the dialog program ends
	// on a busy machine, must not say it again.
	callers.stop()
}

// signalGrace is how long a holder whose dialog program died of a stop
// signal waits for that signal to reach the holder too.
const signalGrace = time.Second

// stoppedWithTree calls stopped when err is a dialog program's death by a
// stop signal (SIGTERM, SIGINT or SIGHUP) and a signal reaches the holder
// on signals within grace. A host that stops its hook stops the hook's
// whole tree at once (Claude Code does, on No in its own prompt): the
// program's death, seen first, is then no failure of the dialog but the
// holder's own stop, which it handles as such.
func stoppedWithTree(err error, signals <-chan os.Signal, grace time.Duration, stopped func()) {
	if !killedBySignal(err) {
		return
	}
	select {
	case <-signals:
		stopped()
	case <-time.After(grace):
	}
}

// killedBySignal reports whether err is a program's exit by SIGTERM,
// SIGINT or SIGHUP.
func killedBySignal(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		return true
	}
	return false
}

// claim takes the stored request id for the holder pid and returns it with
// its question. done is true, with the error to return, when the request
// ended here: it is not this holder's, it was asked to close before it was
// shown, or its question cannot be read.
func (e *Engine) claim(id, content string, pid int) (rec store.Record, req dialog.Request, done bool, err error) {
	rec, err = e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status != store.Requested {
			return false, errNotMine
		}
		rec.HolderPID = pid
		return true, nil
	})
	if err != nil {
		return rec, req, true, err
	}
	if rec.CancelRequest != "" {
		_, _, err := e.finish(id, content, pid, rec.CancelRequest, "")
		return rec, req, true, err
	}
	if req, err = requestFrom(rec); err != nil {
		return rec, req, true, e.failWith(id, content, pid, err)
	}
	return rec, req, false, nil
}

// failWith ends request id as failed for err, which it returns, with any
// failure to record that.
func (e *Engine) failWith(id, content string, pid int, err error) error {
	_, _, ferr := e.finish(id, content, pid, store.Failed, err.Error())
	return errors.Join(err, ferr)
}

// signalled returns the cause a holder closes its request with when a
// signal came.
func (e *Engine) signalled(id, content string, rec store.Record) error {
	if as, ok := e.closeAsked(id, content); ok {
		return closeAskedAs(as)
	}
	if rec.EndsWithCaller {
		// A host that stops its hook stops the hook's children with it
		// (Claude Code does, when the person answers in its own prompt):
		// the request ends with its caller.
		e.logEventOrWarn("callers-gone", rec, "", msgStoppedWithCaller)
		return closeAskedAs(store.Withdrawn)
	}
	return errSignalled
}

// recordAnswer records what a way of asking brought, elapsed after the
// dialog started, as the end of request id (rec), and returns the request
// as it ended, whoever recorded that.
func (e *Engine) recordAnswer(dctx context.Context, id string, rec store.Record, req dialog.Request, ans reply, elapsed time.Duration, pid int) (store.Record, error) {
	content := rec.ContentHash
	channel := rec.Channel
	if ans.by == wayPhone {
		channel = wayPhone
	}
	status, reason := e.classify(dctx, id, content, ans.Approved, ans.err, elapsed, channel)
	// The votes that decided it, whichever way it ended: a deny's too.
	votes := ans.Votes
	if status != store.Approved {
		ans.Answer = dialog.Answer{}
	} else if err := checkAnswer(req, ans.Answer); err != nil {
		status, reason, ans.Answer, votes = store.Failed, err.Error(), dialog.Answer{}, nil
	}
	err := e.finishWithRetry(id, content, pid, ending{status: status, reason: reason, answer: ans.Answer, by: ans.by, votes: votes})
	final, _, gerr := e.store.Get(id)
	if gerr != nil || final.ContentHash != content || !final.Status.Final() {
		final = rec
		final.Status, final.AnsweredBy = status, ""
	}
	return final, err
}

// callerWatch tells when a request's callers are all gone: none waits for
// it (platform.Watched) after one was seen waiting, or after callerGrace
// with none seen, for a caller killed before it began to wait; and so at
// two looks in a row, callerTick apart, so that one look that failed (a
// file that could not be opened) withdraws nothing.
type callerWatch struct {
	since  time.Time
	seen   bool
	misses int
	ticker *time.Ticker
	tick   <-chan time.Time // every callerTick, if the request ends with its callers, until stop; else never
}

// watchCallers starts the watch of a request's callers, which looks only
// if the request ends with them (on).
func watchCallers(on bool) *callerWatch {
	w := &callerWatch{since: time.Now()}
	if on {
		w.ticker = time.NewTicker(callerTick)
		w.tick = w.ticker.C
	}
	return w
}

// look notes whether a caller watches, where the request ends with them.
func (w *callerWatch) look(watchFile string) {
	if w.ticker != nil {
		w.gone(watchFile)
	}
}

// stop ends the watch: it ticks no more.
func (w *callerWatch) stop() {
	if w.ticker != nil {
		w.ticker.Stop()
	}
	w.tick = nil
}

// callerGrace is how long a holder waits for the first caller to watch
// its request: callers begin within milliseconds of starting it.
const callerGrace = 3 * time.Second

// callerTick is how often a holder looks for its request's callers: the
// dialog closes within half a second of the last one's death, about when
// their host shows its own prompt. A look opens and tests one file.
const callerTick = 250 * time.Millisecond

func (w *callerWatch) gone(watchFile string) bool {
	if platform.Watched(watchFile) {
		w.seen, w.misses = true, 0
		return false
	}
	if !w.seen && time.Since(w.since) <= callerGrace {
		return false
	}
	w.misses++
	return w.misses >= 2
}

// holderLock returns the identity lock: the one handed over at lockFD, or,
// where locks cannot be handed over, one taken here.
func (e *Engine) holderLock(id string, lockFD int) (io.Closer, error) {
	if lockFD > 0 {
		l, err := platform.AdoptLock(lockFD)
		if err != nil {
			return nil, err
		}
		return releaser{l}, nil
	}
	deadline := time.Now().Add(holderStartGrace)
	for {
		l, ok, err := platform.TryLock(e.paths.LockFile(id))
		if err != nil {
			return nil, err
		}
		if ok {
			return releaser{l}, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.New(msgLockKept)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type releaser struct{ l platform.Lock }

func (r releaser) Close() error { return r.l.Release() }

// classify turns the backend's return into the request's final state.
func (e *Engine) classify(dctx context.Context, id, content string, approved bool, err error, ran time.Duration, channel string) (store.Status, string) {
	if dctx.Err() != nil {
		var asked *closeAskedError
		switch cause := context.Cause(dctx); {
		case errors.Is(cause, errTimedOut):
			return store.Expired, ""
		case errors.As(cause, &asked):
			return asked.status, ""
		default:
			return store.Failed, cause.Error()
		}
	}
	var ended *remote.EndedError
	if errors.As(err, &ended) {
		// The fleet ended the request on another machine.
		if ended.Status == remote.EndedSuperseded {
			return store.Superseded, ""
		}
		return store.Cancelled, ""
	}
	if err != nil && channel == wayPhone {
		// The phone failed to ask, however soon: no early exit of a
		// dialog program.
		return store.Failed, fmt.Sprintf(msgPhoneCouldNot, err)
	}
	if ran < e.humanAnswer {
		reason := msgEarlyExit
		if channel != "" {
			reason = fmt.Sprintf(msgEarlyAnswer, channel)
		}
		if err != nil {
			reason += ": " + err.Error()
		}
		return store.Failed, reason
	}
	switch {
	case err != nil:
		return store.Failed, err.Error()
	case approved:
		return store.Approved, ""
	default:
		return store.Denied, ""
	}
}

func (e *Engine) markShown(id, content string, pid int) {
	rec, err := e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status != store.Requested || rec.HolderPID != pid {
			return false, nil
		}
		rec.Status, rec.ShownAt = store.Shown, e.now()
		return true, nil
	})
	if err == nil && rec.Status == store.Shown {
		e.logEventOrWarn("shown", rec, "", "")
	}
}

// closeAsked reports whether an operator or a newer request asked this
// holder to close its dialog, and what the request then ends as.
func (e *Engine) closeAsked(id, content string) (store.Status, bool) {
	rec, found, err := e.store.Get(id)
	switch {
	case err != nil || !found:
		return "", false
	case rec.ContentHash != content:
		return store.Superseded, true
	case rec.CancelRequest != "":
		return rec.CancelRequest, true
	}
	return "", false
}

// checkAnswer reports an answer that does not answer req: a choice's
// labels that are not its options, several for a single choice, or none;
// an input's text that is not one valid text; anything beyond approval for
// a confirmation, and an approve-for period the request did not offer. A
// backend that returns one is broken, and its answer is not recorded.
func checkAnswer(req dialog.Request, ans dialog.Answer) error {
	if len(req.Approvers) > 0 && ans.Approved {
		if err := checkVotes(req, ans); err != nil {
			return err
		}
	}
	if ans.For != 0 && (req.Kind != dialog.Confirm || ans.For != req.ApproveFor) {
		return fmt.Errorf(msgBadAnswer, fmt.Sprintf("an approval for %s, which was not offered", ans.For))
	}
	switch req.Kind {
	case dialog.Choose:
		if len(ans.Values) == 0 || (!req.Multiple && len(ans.Values) > 1) {
			return fmt.Errorf(msgBadAnswer, fmt.Sprintf("%d options chosen", len(ans.Values)))
		}
		labels := ans.Values
		if ans.Typed {
			if !req.Other {
				return fmt.Errorf(msgBadAnswer, "an answer of the person's own, which was not offered")
			}
			if err := dialog.CheckAnswer(ans.Values[len(ans.Values)-1]); err != nil {
				return fmt.Errorf(msgBadAnswer, err)
			}
			labels = labels[:len(labels)-1]
		}
		seen := map[string]bool{}
		for _, v := range labels {
			if seen[v] || !slices.Contains(req.Labels(), v) {
				return fmt.Errorf(msgBadAnswer, fmt.Sprintf("%q is not an option, or is chosen twice", v))
			}
			seen[v] = true
		}
	case dialog.Input:
		if len(ans.Values) != 1 || ans.Typed {
			return fmt.Errorf(msgBadAnswer, fmt.Sprintf("%d texts", len(ans.Values)))
		}
		if err := dialog.CheckAnswer(ans.Values[0]); err != nil {
			return fmt.Errorf(msgBadAnswer, err)
		}
	default:
		if len(ans.Values) != 0 || ans.Typed {
			return fmt.Errorf(msgBadAnswer, "values for a confirmation")
		}
	}
	return nil
}

// finishWithRetry records the final state, retrying a store that is briefly
// locked or full: the answer is the one thing a holder must not lose. If it
// still fails, the holder exits without an answer on record and waiters treat
// it as a dead holder, which never approves.
func (e *Engine) finishWithRetry(id, content string, pid int, end ending) error {
	var err error
	for try := 0; try < 5; try++ {
		if _, _, err = e.end(id, content, pid, end); err == nil {
			return nil
		}
		time.Sleep(time.Duration(100<<try) * time.Millisecond)
	}
	return fmt.Errorf(msgRecordAnswer, err)
}
