package remote

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
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Backend asks the person on their phone: it publishes the request with
// one button per answer to Config.Topic and waits on Config.ReplyTopic for
// a tap whose capability is one of this request's. It implements
// dialog.Backend for confirmations; other kinds are not sent to the phone
// (ErrNotForPhone).
type Backend struct {
	Config Config
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
}

// ErrNotForPhone is returned by Ask for a request the phone cannot answer
// with its buttons: a choice or a text to type.
var ErrNotForPhone = errors.New("only a yes-or-no question is sent to the phone; answer this one in a dialog or on the terminal")

// replyPrefix starts every button's body: what ask-confirm's replies look
// like, so that a stray message on the reply topic is told apart from a
// forged one.
const replyPrefix = "ask-confirm/1 "

// capabilityBytes is the size of a button's capability: 128 random bits.
const capabilityBytes = 16

// button is one answer on the phone and the capability that proves a tap
// on it.
type button struct {
	choice string // approve, deny, approve-for
	label  string
	cap    [capabilityBytes]byte
}

// Ask implements dialog.Backend. It subscribes to the reply topic before it
// publishes, so that no tap is missed, and keeps the subscription across
// dropped connections, resuming after the last reply it read. It returns
// the first reply that carries one of this request's capabilities; every
// other reply is reported to Ignored and changes nothing. When ctx ends
// first, it publishes that the request closed and returns ctx's error.
func (b *Backend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if r.Kind != dialog.Confirm {
		return dialog.Answer{}, ErrNotForPhone
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

	type reply struct {
		b   *button
		err error
	}
	replies := make(chan reply, 1)
	opened := make(chan struct{})
	subscribed := make(chan struct{})
	sctx, stop := context.WithCancel(ctx)
	// Ask returns only once the subscription has ended: nothing is
	// reported to Ignored after it.
	defer func() { stop(); <-subscribed }()
	// The server's time when the first subscription opened: a resumed one
	// reads from there, whatever this machine's clock says.
	var openOnce sync.Once
	var openedAt int64
	openedOnce := func(serverTime int64) {
		openOnce.Do(func() { openedAt = serverTime; close(opened) })
	}
	go func() {
		defer close(subscribed)
		since := ""
		for {
			last, err := cl.subscribe(sctx, b.Config.ReplyTopic, since, openedOnce, func(m message) bool {
				if bt := b.match(buttons, m.Message); bt != nil {
					replies <- reply{b: bt}
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
				replies <- reply{err: err}
				return
			}
			select {
			case <-opened:
			default:
				// The server could not be reached at the start: say so
				// now, rather than wait for the request's end.
				replies <- reply{err: err}
				return
			}
			if since == "" {
				// Nothing read yet: resume from when the first
				// subscription opened, by the server's clock.
				since = strconv.FormatInt(openedAt, 10)
			}
			select {
			case <-sctx.Done():
				return
			case <-time.After(b.retry()):
			}
		}
	}()

	select {
	case <-opened:
	case rp := <-replies:
		return dialog.Answer{}, rp.err
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
	closes, _ := ctx.Deadline()
	if _, err := cl.publish(ctx, b.request(r, closes, buttons)); err != nil {
		if ctx.Err() != nil {
			// The request ended while the message was on its way: it may
			// have reached the phone.
			b.closed(cl, r)
			return dialog.Answer{}, ctx.Err()
		}
		return dialog.Answer{}, err
	}

	select {
	case rp := <-replies:
		if ctx.Err() != nil {
			// The request ended as the tap came: the end stands.
			b.closed(cl, r)
			return dialog.Answer{}, ctx.Err()
		}
		if rp.err != nil {
			return dialog.Answer{}, rp.err
		}
		b.followUp(cl, r, followUpFor(rp.b.choice, b.now()))
		return answerFor(r, rp.b), nil
	case <-ctx.Done():
		b.closed(cl, r)
		return dialog.Answer{}, ctx.Err()
	}
}

// closed tells the phone that r ended without an answer from it.
func (b *Backend) closed(cl client, r dialog.Request) {
	b.followUp(cl, r, "This request closed at "+b.now().Format("15:04")+" without an answer from here.")
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

// newButtons makes r's buttons, Deny first, each with a fresh capability.
func newButtons(r dialog.Request) ([]*button, error) {
	bs := []*button{{choice: "deny", label: r.CancelLabel}}
	if r.ApproveFor > 0 {
		bs = append(bs, &button{choice: "approve-for", label: r.ApproveForLabel()})
	}
	bs = append(bs, &button{choice: "approve", label: r.OKLabel})
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
	m := message{
		Topic:    b.Config.Topic,
		Title:    title,
		Message:  cut(r.Shown(closes), MaxMessageBytes),
		Priority: 5,
		Tags:     []string{"question"},
	}
	for _, bt := range buttons {
		m.Actions = append(m.Actions, action{
			Action:  "http",
			Label:   bt.label,
			URL:     b.Config.topicURL(b.Config.ReplyTopic),
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

func followUpFor(choice string, at time.Time) string {
	switch choice {
	case "approve", "approve-for":
		return "Approved on the phone at " + at.Format("15:04") + "."
	default:
		return "Denied on the phone at " + at.Format("15:04") + "."
	}
}

func answerFor(r dialog.Request, bt *button) dialog.Answer {
	switch bt.choice {
	case "approve":
		return dialog.Answer{Approved: true}
	case "approve-for":
		return dialog.Answer{Approved: true, For: r.ApproveFor}
	default:
		return dialog.Answer{}
	}
}

// cut shortens s to at most max bytes on a rune boundary, saying so at its
// end: text longer than ntfy delivers is cut visibly, never silently.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const note = "\n… (cut: %d more bytes)"
	keep := max - len(fmt.Sprintf(note, len(s)))
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf(note, len(s)-keep)
}
