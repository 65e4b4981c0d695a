package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// holdCommandName is the hidden subcommand a caller re-executes itself with
// to start a holder.
const holdCommandName = "hold"

// errNotMine is returned when the record no longer asks for this holder.
var errNotMine = errors.New("the request is no longer waiting for a holder")

// Reasons a holder's dialog context ends.
var (
	errTimedOut    = errors.New("timed out")
	errSignalled   = errors.New(msgHolderSignal)
	errCloseAsked  = errors.New("close requested")
	holderPollTick = time.Second
)

func newHoldCommand(a *app) *cobra.Command {
	var lockFD int
	c := &cobra.Command{
		Use:    holdCommandName + " IDENTITY CONTENT_HASH",
		Short:  "Show the dialog of a stored request and record the answer (started by ask-confirm itself)",
		Hidden: true,
		Args:   usageArgs(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.hold(c.Context(), args[0], args[1], lockFD)
		},
	}
	c.Flags().IntVar(&lockFD, "lock-fd", 0, "descriptor of the identity lock handed over by the caller")
	return c
}

// hold is the holder: it keeps the identity's lock for its whole life, shows
// the stored request's dialog until it is answered, times out or is asked to
// close, and records the final state. It only ever records Approved when the
// backend reported the approve button after the dialog had time to render
// and before anything asked it to close.
func (a *app) hold(ctx context.Context, id, content string, lockFD int) error {
	if ctx == nil {
		ctx = context.Background()
	}
	lock, err := a.holderLock(id, lockFD)
	if err != nil {
		return err
	}
	defer lock.Close()

	pid := os.Getpid()
	rec, err := a.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status != store.Requested {
			return false, errNotMine
		}
		rec.HolderPID = pid
		return true, nil
	})
	if err != nil {
		return err
	}
	if rec.CancelRequest != "" {
		_, _, err := a.finish(id, content, pid, rec.CancelRequest, "")
		return err
	}
	req, err := requestFrom(rec)
	if err != nil {
		_, _, ferr := a.finish(id, content, pid, store.Failed, err.Error())
		return errors.Join(err, ferr)
	}

	base, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dctx, stop := context.WithDeadlineCause(base, rec.Deadline, errTimedOut)
	defer stop()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(signals)
	tick := time.NewTicker(holderPollTick)
	defer tick.Stop()

	type answer struct {
		approved bool
		err      error
	}
	answers := make(chan answer, 1)
	started := a.now()
	go func() {
		ok, err := a.backend.Ask(dctx, req)
		answers <- answer{ok, err}
	}()
	settled := time.NewTimer(a.settle)
	defer settled.Stop()

	for {
		select {
		case <-settled.C:
			a.markShown(id, content, pid)
		case <-signals:
			if a.closeAsked(id, content) {
				cancel(errCloseAsked)
			} else {
				cancel(errSignalled)
			}
		case <-tick.C:
			if a.closeAsked(id, content) {
				cancel(errCloseAsked)
			}
		case ans := <-answers:
			status, reason := a.classify(dctx, id, content, ans.approved, ans.err, a.now().Sub(started))
			return a.finishWithRetry(id, content, pid, status, reason)
		}
	}
}

// holderLock returns the identity lock: the one handed over at lockFD, or,
// where locks cannot be handed over, one taken here.
func (a *app) holderLock(id string, lockFD int) (io.Closer, error) {
	if lockFD > 0 {
		l, err := platform.AdoptLock(lockFD)
		if err != nil {
			return nil, err
		}
		return releaser{l}, nil
	}
	deadline := time.Now().Add(holderStartGrace)
	for {
		l, ok, err := platform.TryLock(a.paths.LockFile(id))
		if err != nil {
			return nil, err
		}
		if ok {
			return releaser{l}, nil
		}
		if time.Now().After(deadline) {
			return nil, errors.New("another holder keeps the identity lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type releaser struct{ l platform.Lock }

func (r releaser) Close() error { return r.l.Release() }

// classify turns the backend's return into the request's final state.
func (a *app) classify(dctx context.Context, id, content string, approved bool, err error, ran time.Duration) (store.Status, string) {
	if dctx.Err() != nil {
		switch cause := context.Cause(dctx); {
		case errors.Is(cause, errTimedOut):
			return store.Expired, ""
		case errors.Is(cause, errCloseAsked):
			rec, _, gerr := a.store.Get(id)
			if gerr == nil && rec.ContentHash == content && rec.CancelRequest != "" {
				return rec.CancelRequest, ""
			}
			return store.Cancelled, ""
		default:
			return store.Failed, cause.Error()
		}
	}
	if ran < a.humanAnswer {
		reason := msgEarlyExit
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

func (a *app) markShown(id, content string, pid int) {
	rec, err := a.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if !found || rec.ContentHash != content || rec.Status != store.Requested || rec.HolderPID != pid {
			return false, nil
		}
		rec.Status, rec.ShownAt = store.Shown, a.now()
		return true, nil
	})
	if err == nil && rec.Status == store.Shown {
		a.logEventOrWarn("shown", rec, "", "")
	}
}

// closeAsked reports whether an operator or a newer request asked this
// holder to close its dialog.
func (a *app) closeAsked(id, content string) bool {
	rec, found, err := a.store.Get(id)
	return err == nil && found && (rec.ContentHash != content || rec.CancelRequest != "")
}

// finishWithRetry records the final state, retrying a store that is briefly
// locked or full: the answer is the one thing a holder must not lose. If it
// still fails, the holder exits without an answer on record and waiters treat
// it as a dead holder, which never approves.
func (a *app) finishWithRetry(id, content string, pid int, status store.Status, reason string) error {
	var err error
	for try := 0; try < 5; try++ {
		if _, _, err = a.finish(id, content, pid, status, reason); err == nil {
			return nil
		}
		time.Sleep(time.Duration(100<<try) * time.Millisecond)
	}
	return fmt.Errorf("recording the answer: %w", err)
}
