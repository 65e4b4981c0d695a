package ntfy

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// Backend asks the person on their phone: it publishes the request with
// one button per answer to Config.Topic and waits on Config.ReplyTopic for
// a tap whose capability is one of this request's. It implements
// dialog.Backend for what fits on the phone's buttons (Fits), and
// dialog.Finisher: the phone is told what became of the request once
// Ask's context ends, after Ask returned. One Backend asks one request at
// a time.
type Backend struct {
	Config remote.Config
	// HTTP is the client to reach the server with; nil is one without a
	// timeout of its own (the subscription is a stream), over
	// http.DefaultTransport.
	HTTP *http.Client
	// Now is the clock of the times the follow-ups give; nil is time.Now.
	Now func() time.Time
	// Ignored is told about each reply that answered nothing, and why: no
	// capability, a malformed one, one that is not this request's. Nil
	// ignores them silently. It must not block.
	Ignored func(reason string)
	// Retry is how long to wait before reconnecting a dropped
	// subscription; zero is one second.
	Retry time.Duration

	// followUps are the follow-ups still on their way (Finish).
	followUps sync.WaitGroup
}

// replyPrefix starts every button's body: what ask-confirm's replies look
// like, so that a stray message on the reply topic is told apart from a
// forged one.
const replyPrefix = "ask-confirm/1 "

// capabilityBytes is the size of a button's capability: 128 random bits.
const capabilityBytes = 16

// button is one answer on the phone and the capability that proves a tap
// on it.
type button struct {
	choice string // approve, deny, approve-for, or option for a choice's
	label  string
	cap    [capabilityBytes]byte
}

// Ask implements dialog.Backend. It subscribes to the reply topic before it
// publishes, so that no tap is missed, and keeps the subscription across
// dropped connections, resuming after the last reply it read. It returns
// the first reply that carries one of this request's capabilities; every
// other reply is reported to Ignored and changes nothing. When ctx ends
// first, it returns ctx's error.
//
// Either way the phone is told what became of the request once ctx ends:
// the cause ctx ends with if it is a *dialog.Closed ("Approved in the
// dialog at 14:05"), and otherwise what was tapped, or that the request
// closed. Whoever calls Ask ends ctx, and calls Finish before exiting.
func (b *Backend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if err := remote.Fits(r); err != nil {
		return dialog.Answer{}, err
	}
	if err := b.Config.Check(); err != nil {
		return dialog.Answer{}, err
	}
	buttons, err := newButtons(r)
	if err != nil {
		return dialog.Answer{}, err
	}
	cl := client{c: b.Config, http: b.HTTP}
	if cl.http == nil {
		cl.http = &http.Client{CheckRedirect: noRedirect}
	}
	asked := b.now()
	sub := b.subscribe(ctx, cl, buttons)
	// Ask returns only once the subscription has ended: nothing is
	// reported to Ignored after it.
	defer sub.stop()

	select {
	case <-sub.opened:
	case rp := <-sub.replies:
		return dialog.Answer{}, rp.err
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
	closes, _ := ctx.Deadline()
	if _, err := cl.publish(ctx, b.request(r, closes, buttons)); err != nil {
		if ctx.Err() != nil {
			// The request ended while the message was on its way: it may
			// have reached the phone.
			b.tellWhenClosed(ctx, cl, r, asked, "")
			return dialog.Answer{}, ctx.Err()
		}
		return dialog.Answer{}, err
	}

	select {
	case rp := <-sub.replies:
		if ctx.Err() != nil {
			// The request ended as the tap came: the end stands.
			b.tellWhenClosed(ctx, cl, r, asked, "")
			return dialog.Answer{}, ctx.Err()
		}
		if rp.err != nil {
			return dialog.Answer{}, rp.err
		}
		b.tellWhenClosed(ctx, cl, r, asked, tappedText(rp.b))
		return answerFor(r, rp.b), nil
	case <-ctx.Done():
		b.tellWhenClosed(ctx, cl, r, asked, "")
		return dialog.Answer{}, ctx.Err()
	}
}

// Finish implements dialog.Finisher: it waits until the follow-ups of the
// requests asked have been sent (or given up on), or ctx ends.
func (b *Backend) Finish(ctx context.Context) {
	done := make(chan struct{})
	go func() { b.followUps.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// reply is what the subscription found: a tap on one of the buttons, or
// why it cannot go on.
type reply struct {
	b   *button
	err error
}

// subscription reads the reply topic for a tap on one of a request's
// buttons.
type subscription struct {
	replies chan reply
	// opened is closed once the first connection is open.
	opened chan struct{}
	stop   func()
}

// subscribe opens the reply topic and keeps it open until a capability
// matches, the server refuses, ctx ends or stop is called. A connection
// that drops is opened again after Retry, from the last reply read or,
// before any, from the server's time when the first opened, whatever this
// machine's clock says. A server that cannot be reached at the start is
// reported at once rather than at the request's end.
func (b *Backend) subscribe(ctx context.Context, cl client, buttons []*button) *subscription {
	s := &subscription{replies: make(chan reply, 1), opened: make(chan struct{})}
	sctx, cancel := context.WithCancel(ctx)
	ended := make(chan struct{})
	s.stop = func() { cancel(); <-ended }
	var openOnce sync.Once
	var openedAt int64
	openedOnce := func(serverTime int64) {
		openOnce.Do(func() { openedAt = serverTime; close(s.opened) })
	}
	go func() {
		defer close(ended)
		since := ""
		for {
			last, err := cl.subscribe(sctx, b.Config.ReplyTopic, since, openedOnce, func(m message) bool {
				if bt := b.match(buttons, m.Message); bt != nil {
					s.replies <- reply{b: bt}
					return false
				}
				return true
			})
			if last != "" {
				since = last
			}
			switch {
			case sctx.Err() != nil:
				return
			case err == nil:
				return // a capability matched
			case errors.Is(err, ErrRefused):
				s.replies <- reply{err: err}
				return
			}
			select {
			case <-s.opened:
			default:
				s.replies <- reply{err: err}
				return
			}
			if since == "" {
				since = strconv.FormatInt(openedAt, 10)
			}
			select {
			case <-sctx.Done():
				return
			case <-time.After(b.retry()):
			}
		}
	}()
	return s
}

// tellWhenClosed tells the phone, once ctx ends, what became of r: ctx's
// cause if it is a *dialog.Closed, else tapped (what the person tapped
// here), else that r closed without an answer from the phone. The time it
// names has its day when that is not the day r was asked, at asked: the
// person reads it beside the request, maybe the next morning. It does not
// wait: Finish does.
func (b *Backend) tellWhenClosed(ctx context.Context, cl client, r dialog.Request, asked time.Time, tapped string) {
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		<-ctx.Done()
		var closed *dialog.Closed
		at := dialog.Clock(b.now().Local(), asked)
		text := "This request closed at " + at + " without an answer from here."
		switch {
		case errors.As(context.Cause(ctx), &closed) && closed.What != "":
			text = closed.What + " at " + at + "."
		case tapped != "":
			text = tapped + " at " + at + "."
		}
		b.followUp(cl, r, text)
	}()
}

// match returns the button whose capability body is, or nil (and tells
// Ignored why) for anything else.
func (b *Backend) match(buttons []*button, body string) *button {
	capHex, ok := strings.CutPrefix(strings.TrimSpace(body), replyPrefix)
	if !ok {
		b.ignored("a reply without an ask-confirm capability")
		return nil
	}
	var got [capabilityBytes]byte
	if len(capHex) != hex.EncodedLen(capabilityBytes) {
		b.ignored("a reply with a malformed capability")
		return nil
	}
	if _, err := hex.Decode(got[:], []byte(capHex)); err != nil {
		b.ignored("a reply with a malformed capability")
		return nil
	}
	var found *button
	for _, bt := range buttons {
		// Every button is compared, whichever matches: the time taken
		// says nothing of which one did.
		if subtle.ConstantTimeCompare(got[:], bt.cap[:]) == 1 {
			found = bt
		}
	}
	if found == nil {
		b.ignored("a reply whose capability is not this request's (forged, or from an earlier request)")
	}
	return found
}

func (b *Backend) ignored(reason string) {
	if b.Ignored != nil {
		b.Ignored(reason)
	}
}

func (b *Backend) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Backend) retry() time.Duration {
	if b.Retry > 0 {
		return b.Retry
	}
	return time.Second
}

// newButtons makes r's buttons, each with a fresh capability: for a
// confirmation Deny first, then Approve for DURATION if offered, then
// Approve; for a choice its options in order, then Cancel where there is
// room.
func newButtons(r dialog.Request) ([]*button, error) {
	var bs []*button
	if r.Kind == dialog.Choose {
		for _, o := range r.Options {
			bs = append(bs, &button{choice: "option", label: o.Label})
		}
		if len(bs) < remote.MaxActions {
			bs = append(bs, &button{choice: "deny", label: r.CancelLabel})
		}
	} else {
		bs = append(bs, &button{choice: "deny", label: r.CancelLabel})
		if r.ApproveFor > 0 {
			bs = append(bs, &button{choice: "approve-for", label: r.ApproveForLabel()})
		}
		bs = append(bs, &button{choice: "approve", label: r.OKLabel})
	}
	for _, bt := range bs {
		if bt.label == "" {
			bt.label = map[string]string{"deny": "Deny", "approve": "Approve"}[bt.choice]
		}
		if _, err := rand.Read(bt.cap[:]); err != nil {
			return nil, fmt.Errorf("making the buttons' capabilities: %w", err)
		}
	}
	return bs, nil
}

// request is the message that asks r on the phone: its text shown
// literally (no Markdown), with who asks and when it closes.
func (b *Backend) request(r dialog.Request, closes time.Time, buttons []*button) message {
	title := r.Title
	if title == "" {
		title = dialog.DefaultTitle
	}
	if r.Kind == dialog.Choose {
		// The buttons carry the labels; the text lists each option with
		// its description.
		lines := []string{r.Message, ""}
		for _, o := range r.Options {
			lines = append(lines, "• "+o.Display())
		}
		r.Message = strings.Join(lines, "\n")
	}
	m := message{
		Topic:    b.Config.Topic,
		Title:    title,
		Message:  cut(r.Shown(closes, b.now()), MaxMessageBytes),
		Priority: 5,
		Tags:     []string{"question"},
	}
	for _, bt := range buttons {
		m.Actions = append(m.Actions, action{
			Action:  "http",
			Label:   bt.label,
			URL:     b.Config.TopicURL(b.Config.ReplyTopic),
			Method:  http.MethodPost,
			Headers: map[string]string{"Authorization": "Bearer " + b.Config.AnswerToken},
			Body:    replyPrefix + hex.EncodeToString(bt.cap[:]),
			Clear:   true,
		})
	}
	return m
}

// followUp tells the phone what became of r, so that nobody taps again in
// doubt. It is best effort: the answer stands whether or not it arrives.
func (b *Backend) followUp(cl client, r dialog.Request, text string) {
	title := r.Title
	if title == "" {
		title = dialog.DefaultTitle
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = cl.publish(ctx, message{Topic: b.Config.Topic, Title: title, Message: text, Priority: 3, Tags: []string{"white_check_mark"}})
}

// tappedText is the follow-up for a tap on bt, before its time.
func tappedText(bt *button) string {
	switch bt.choice {
	case "approve", "approve-for":
		return "Approved on the phone"
	case "option":
		return "Chose " + strconv.Quote(bt.label) + " on the phone"
	default:
		return "Denied on the phone"
	}
}

func answerFor(r dialog.Request, bt *button) dialog.Answer {
	switch bt.choice {
	case "approve":
		return dialog.Answer{Approved: true}
	case "approve-for":
		return dialog.Answer{Approved: true, For: r.ApproveFor}
	case "option":
		return dialog.Answer{Approved: true, Values: []string{bt.label}}
	default:
		return dialog.Answer{}
	}
}

// cut shortens s to at most max bytes, visibly, never silently: its
// first line says the text is not all there, and its head and its tail
// stay (dialog.Cut) around a line saying how much was left out, so that
// the end of a request (a command's last part, who asks) is never what
// the phone drops.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const (
		first = "Too long to show whole: deny unless you know what all of it says.\n\n"
		note  = "\n… (cut: %d more bytes) …\n"
	)
	head, tail, n := dialog.Cut(s, max-len(first)-len(fmt.Sprintf(note, len(s))), -1)
	return first + head + fmt.Sprintf(note, n) + tail
}
