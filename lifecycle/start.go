package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// spawn starts a holder for the request, unless another caller is already
// starting one: a detached holder process with a dialog, or, with ch, one
// in this process that asks through ch; either asks on the phone too as
// phone says. It re-checks the record under the
// identity's lock, so an answer that landed since the waiter looked is
// never overwritten. It returns the record it wrote when it started. note,
// if any, is the reason the history's requested event gives.
func (e *Engine) spawn(c Call, ch *Channel, phone string, seen sighting, content string, attempt int, note string) (store.Record, bool, error) {
	if err := store.EnsureDir(e.paths.Locks); err != nil {
		return store.Record{}, false, err
	}
	id := c.Request.Identity()
	lock, ok, err := platform.TryLock(e.paths.LockFile(id))
	if err != nil || !ok {
		return store.Record{}, false, err
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
		return store.Record{}, false, err
	}
	if seen.found && seen.rec.HolderPID != 0 && !seen.rec.Status.Final() {
		// We hold the lock, so that holder is dead; its dialog may not be.
		platform.KillOrphanedDialog(seen.rec.HolderPID)
	}
	fresh := e.requestRecord(c, ch, phone, content, attempt, payload)
	changed := errors.New("record changed")
	rec, err := e.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
		if found != seen.found || rec.Version != seen.rec.Version {
			return false, changed
		}
		fresh.Version = rec.Version
		*rec = fresh
		return true, nil
	})
	if errors.Is(err, changed) {
		return store.Record{}, false, nil
	}
	if err != nil {
		return store.Record{}, false, err
	}
	if err := e.logEvent("requested", rec, "", note); err != nil {
		// Nothing is asked whose answer the history could not hold.
		lost := &historyLost{err}
		e.finish(id, content, 0, store.Failed, lost.Error())
		return store.Record{}, false, lost
	}
	if ch != nil {
		handedOver = true
		e.showHere(ch, id, content, lock)
		return rec, true, nil
	}
	if err := e.startHolder(holderArgs(id, content), lock); err != nil {
		e.finish(id, content, 0, store.Failed, fmt.Sprintf(msgHolderStart, err))
	}
	return rec, true, nil
}

// requestRecord is the record of c's request, asked now for the attempt
// number attempt, through ch (nil for a dialog), on the phone as phone
// says, with payload its encoded request.
func (e *Engine) requestRecord(c Call, ch *Channel, phone, content string, attempt int, payload []byte) store.Record {
	channel := ""
	if ch != nil {
		channel = ch.Name
	}
	now := e.now()
	return store.Record{
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
		Channel:        channel,
		Origin:         c.Request.Origin,
		Kind:           c.Request.Kind,
		Multiple:       c.Request.Multiple,
		Phone:          phone,
		EndsWithCaller: c.Withdraw,
		Approvers:      c.Request.Approvers,
		Approvals:      c.Request.Approvals,
	}
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

// requestFrom decodes the request a record carries.
func requestFrom(rec store.Record) (dialog.Request, error) {
	var req dialog.Request
	if err := json.Unmarshal(rec.Request, &req); err != nil {
		return req, fmt.Errorf(msgDecodeRequest, err)
	}
	return req, req.Validate()
}
