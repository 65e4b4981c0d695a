package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// way is one way a holder asks the person: the request's dialog or
// Channel, or the phone.
type way struct {
	// name is what the history and the follow-ups call it: "dialog", a
	// Channel's name, or wayPhone.
	name    string
	backend dialog.Backend
	// req, if set, is what this way asks in place of the race's request:
	// the same question, with a note of its own (dialog.Request.Note).
	req *dialog.Request
}

// wayPhone names the phone among a request's ways of asking.
const wayPhone = "phone"

// reply is what one way brought back, after how long.
type reply struct {
	dialog.Answer
	by  string
	err error
	ran time.Duration
	way int
}

// race asks the person through several ways at once. The first answer
// wins, whichever way it came from; a way that fails while another still
// asks is left out, and the request goes on.
type race struct {
	ctx     context.Context
	req     dialog.Request
	ways    []way
	cancels []context.CancelCauseFunc
	replies chan reply
	// left counts the ways still asking.
	left int
	// failed is told about a way that failed while others still ask.
	failed func(w string, err error)
	// humanAnswer is the earliest a person can answer (Engine.humanAnswer),
	// and restarts counts, by way, the askings started again because one
	// ended sooner than that.
	humanAnswer time.Duration
	restarts    map[string]int
	// now is the engine's clock, which the holder judges by too.
	now func() time.Time
	// ballot, for a request of several approvers asked here and on their
	// phones, counts the answer here as a vote: the phone's answer, once
	// the votes decide, is the outcome (or a deny here).
	ballot *ballot
}

// maxRestarts bounds how often one way of asking is started again within
// a request after ending sooner than a person can answer.
const maxRestarts = 2

func (e *Engine) startRace(ctx context.Context, req dialog.Request, ways []way, b *ballot, failed func(string, error)) *race {
	r := &race{ctx: ctx, req: req, ways: ways, replies: make(chan reply, len(ways)), failed: failed,
		humanAnswer: e.humanAnswer, restarts: map[string]int{}, now: e.now, ballot: b}
	r.cancels = make([]context.CancelCauseFunc, len(ways))
	for i := range ways {
		r.ask(i)
	}
	return r
}

// ask starts (or starts again) way i.
func (r *race) ask(i int) {
	w := r.ways[i]
	wctx, cancel := context.WithCancelCause(r.ctx)
	r.cancels[i] = cancel
	r.left++
	started := r.now()
	req := r.req
	if w.req != nil {
		req = *w.req
	}
	go func() {
		ans, err := w.backend.Ask(wctx, req)
		r.replies <- reply{Answer: ans, by: w.name, err: err, ran: r.now().Sub(started), way: i}
	}()
}

// first returns the race's outcome: the first answer from any way; once
// ctx has ended, the first way to return; and when every way failed,
// their errors together. A way that ends sooner than a person can answer
// while another still asks (GNOME zenity now and then exits by itself
// before its window appears) is started again, up to maxRestarts times,
// and then left out; the last way left is judged by the holder, as a
// single one is. With a ballot, the answer here is a vote (counted, which
// decides nothing by itself but a deny), and the phone, which keeps the
// tally, has the last word, failure included: without it nothing counts
// the votes.
func (r *race) first(ctx context.Context) reply {
	var errs []error
	for r.left > 0 {
		rp := <-r.replies
		r.left--
		if ctx.Err() != nil || len(r.ways) == 1 {
			return rp
		}
		early := rp.ran < r.humanAnswer
		if early && r.left > 0 && r.restarts[rp.by] < maxRestarts {
			r.restarts[rp.by]++
			r.ask(rp.way)
			continue
		}
		switch {
		case r.ballot != nil && rp.by == wayPhone:
			return rp
		case r.ballot != nil && rp.by == r.ballot.way && rp.err == nil && !early:
			if !r.ballot.cast(&rp, r.now()) {
				return rp
			}
			if r.left == 0 {
				return reply{err: errors.New(msgNoPhoneLeft), by: wayPhone}
			}
			continue
		}
		if rp.err == nil && !(early && r.left > 0) || endedElsewhere(rp.err) {
			return rp
		}
		err := rp.err
		if err == nil {
			err = errors.New(msgTooSoon)
		}
		errs = append(errs, fmt.Errorf("%s: %w", rp.by, err))
		if r.left > 0 && r.failed != nil {
			r.failed(rp.by, err)
		}
		if r.left == 0 && rp.err == nil {
			// The last way, too soon: the holder's own rule judges it.
			return rp
		}
	}
	return reply{err: errors.Join(errs...)}
}

// endedElsewhere reports whether err is a way's word that the request
// ended on another machine (a fleet's cancel or supersede): an outcome
// of the request, not a failure of the way.
func endedElsewhere(err error) bool {
	var ended *remote.EndedError
	return errors.As(err, &ended)
}

// closeWaysWithin bounds how long a holder waits for its other ways of
// asking to close, and for the phone to be told what became of the
// request, before it exits.
const closeWaysWithin = 10 * time.Second

// close ends every way with the cause told(way) gives it, which a phone
// passes on to the person, and waits up to closeWaysWithin, in all, for
// the ways still asking to return and for what they still send
// (dialog.Finisher).
func (r *race) close(told func(w string) error) {
	for i, w := range r.ways {
		r.cancels[i](told(w.name))
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWaysWithin)
	defer cancel()
	for ; r.left > 0; r.left-- {
		select {
		case rp := <-r.replies:
			if rp.err != nil && !errors.Is(rp.err, context.Canceled) && !errors.Is(rp.err, context.DeadlineExceeded) && r.failed != nil {
				// It failed before the request ended, unnoticed.
				r.failed(rp.by, rp.err)
			}
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, w := range r.ways {
		if f, ok := w.backend.(dialog.Finisher); ok {
			f.Finish(ctx)
		}
	}
}

// closedCause is what the way named w is told once the request ended as
// rec says: by whom it was answered, or why it closed.
func closedCause(rec store.Record, w string) error {
	by := rec.AnsweredBy
	if by == "" {
		by = ownWay(rec)
	}
	var what string
	switch rec.Status {
	case store.Approved:
		switch {
		case rec.Kind == dialog.Choose && !rec.Multiple && !rec.Typed && len(rec.Answers) == 1:
			what = "Chose " + strconv.Quote(rec.Answers[0])
		case rec.Kind != dialog.Confirm:
			what = "Answered"
		default:
			what = "Approved"
		}
	case store.Denied:
		what = "Denied"
	default:
		return closedAs(rec.Status)
	}
	approvedBy, deniedBy := tally(rec.Votes)
	switch {
	case rec.Status == store.Approved && len(approvedBy) > 0:
		what += " by " + dialog.Names(approvedBy)
	case rec.Status == store.Denied && len(deniedBy) > 0:
		what += " by " + dialog.Names(deniedBy)
	}
	what += " " + wayPhrase(by)
	closed := &dialog.Closed{Status: string(rec.Status)}
	if by != w {
		what = "Already " + lowerFirst(what)
		// The fleet's other machines learn the answer from the way
		// closed (remote.Backend), as they would a tap; and, of a
		// request of several approvers, the votes that decided it.
		closed.Answer = &dialog.Answer{Approved: rec.Status == store.Approved, Values: rec.Answers, Typed: rec.Typed, For: rec.ApprovedFor, Votes: dialogVotes(rec.Votes)}
	}
	closed.What = what
	return closed
}

// What the phone is told about a request that closed without an answer.
const (
	closedExpired    = "This request expired"
	closedCancelled  = "This request was cancelled"
	closedSuperseded = "This request was replaced by a newer one"
	closedWithdrawn  = "This request was withdrawn by its caller"
	closedOtherwise  = "This request closed without an answer"
)

// closedAs is the cause the ways of asking are closed with for a request
// that ended as status without an answer.
func closedAs(status store.Status) *dialog.Closed {
	what := closedOtherwise
	switch status {
	case store.Expired:
		what = closedExpired
	case store.Cancelled:
		what = closedCancelled
	case store.Superseded:
		what = closedSuperseded
	case store.Withdrawn:
		what = closedWithdrawn
	}
	return &dialog.Closed{What: what, Status: string(status)}
}

// ownWay is the name of rec's way of asking other than the phone: its
// Channel's, or the dialog.
func ownWay(rec store.Record) string {
	if rec.Channel != "" {
		return rec.Channel
	}
	return "dialog"
}

// wayPhrase says where an answer was given: "on the phone".
func wayPhrase(w string) string {
	switch w {
	case wayPhone:
		return "on the phone"
	case "dialog":
		return "in the dialog"
	case "terminal":
		return "on the terminal"
	case "elicitation":
		return "in the agent's client"
	}
	return "through " + w
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
