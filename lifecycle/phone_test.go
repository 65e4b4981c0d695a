//go:build unix

package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// setPhone records phone settings with mode for te, or removes them for
// mode "".
func (te *testEngine) setPhone(mode string) {
	te.t.Helper()
	if mode == "" {
		if err := os.Remove(te.remoteFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			te.t.Fatal(err)
		}
		return
	}
	s := remote.Settings{Config: remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}, Mode: mode}
	if err := remote.Save(te.remoteFile, s); err != nil {
		te.t.Fatal(err)
	}
}

// When the phone is asked, and how: by the call's --remote or else the
// settings' mode; also beside a way here, or alone where there is none;
// never for what its buttons cannot answer. Where the phone was the only
// way and cannot be asked, the call ends with a clear error, never a 4;
// where a way here remains, a warning.
func TestPhoneFor(t *testing.T) {
	input := testCall("Name?")
	input.Request.Kind, input.Request.OKLabel = dialog.Input, "OK"
	for _, tc := range []struct {
		name     string
		settings string // a mode, "" for none, "broken" for a file that does not load
		remote   string
		input    bool
		here     bool
		want     string
		code     ExitCode // of the result, when there is one
		warned   string
		// ifHeadless is the call's --if-headless, fail if empty.
		ifHeadless string
	}{
		{name: "no phone set up", here: true, want: phoneNo},
		{name: "no phone set up, nobody here", want: phoneNo},
		{name: "only, but no phone set up", remote: "only", here: true, code: ExitUsage},
		{name: "also, but no phone set up", remote: "also", here: true, want: phoneNo, warned: "no phone is set up"},
		{name: "also, no phone set up, nobody here", remote: "also", code: ExitUsage},
		{name: "also, no phone set up, nobody here, --if-headless deny", remote: "also", ifHeadless: IfHeadlessDeny, want: phoneNo, warned: "no phone is set up"},
		{name: "fallback, no phone set up, nobody here", remote: "fallback", code: ExitUsage},
		{name: "fallback, no phone set up, nobody here, --if-headless deny", remote: "fallback", ifHeadless: IfHeadlessDeny, want: phoneNo, warned: "no phone is set up"},
		{name: "only, no phone set up, nobody here, --if-headless approve", remote: "only", ifHeadless: IfHeadlessApprove, want: phoneNo, warned: "no phone is set up"},
		{name: "only, no phone set up, somebody here, --if-headless deny", remote: "only", here: true, ifHeadless: IfHeadlessDeny, code: ExitUsage},
		{name: "fallback, somebody here", settings: "fallback", here: true, want: phoneNo},
		{name: "fallback, nobody here", settings: "fallback", want: phoneOnly},
		{name: "also, somebody here", settings: "also", here: true, want: phoneAlso},
		{name: "also, nobody here", settings: "also", want: phoneOnly},
		{name: "only", settings: "only", here: true, want: phoneOnly},
		{name: "off", settings: "off", want: phoneNo},
		{name: "off, turned on by the call", settings: "off", remote: "also", here: true, want: phoneAlso},
		{name: "also, turned off by the call", settings: "also", remote: "off", want: phoneNo},
		{name: "an input beside a dialog", settings: "also", input: true, here: true, want: phoneNo, warned: "not sent to the phone"},
		{name: "an input with nobody here", settings: "fallback", input: true, want: phoneNo, warned: "not sent to the phone"},
		{name: "an input with nobody here, phone named", settings: "fallback", remote: "fallback", input: true, code: ExitUsage},
		{name: "an input with nobody here, phone named, --if-headless deny", settings: "fallback", remote: "fallback", input: true, ifHeadless: IfHeadlessDeny, want: phoneNo, warned: "not sent to the phone"},
		{name: "broken settings, somebody here", settings: "broken", here: true, want: phoneNo, warned: "remote.json"},
		{name: "broken settings, nobody here", settings: "broken", want: phoneNo, warned: "remote.json"},
		{name: "broken settings, nobody here, phone named", settings: "broken", remote: "only", code: ExitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			var warned []string
			te.warnf = func(err error) { warned = append(warned, err.Error()) }
			switch tc.settings {
			case "broken":
				if err := os.MkdirAll(filepath.Dir(te.remoteFile), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(te.remoteFile, []byte("{"), 0o600); err != nil {
					t.Fatal(err)
				}
			default:
				te.setPhone(tc.settings)
			}
			c := testCall("Deploy?")
			if tc.input {
				c = input
			}
			c.Remote = tc.remote
			c.IfHeadless = tc.ifHeadless
			if c.IfHeadless == "" {
				c.IfHeadless = IfHeadlessFail
			}
			got, r, warning := te.phoneFor(c, tc.here)
			if warning != nil {
				warned = append(warned, warning.Error())
			}
			switch {
			case tc.code != 0 && (r == nil || r.ExitCode != tc.code):
				t.Fatalf("phoneFor = %q, %+v; want a result with exit %d", got, r, tc.code)
			case tc.code != 0:
				if r.ExitCode == ExitApproved || !strings.Contains(r.Message, "phone") {
					t.Fatalf("the result %+v does not say the phone was the only way", r)
				}
			case r != nil || got != tc.want:
				t.Fatalf("phoneFor = %q, %+v; want %q", got, r, tc.want)
			}
			if tc.warned == "" && len(warned) > 0 || tc.warned != "" && (len(warned) != 1 || !strings.Contains(warned[0], tc.warned)) {
				t.Fatalf("warnings %q, want one saying %q", warned, tc.warned)
			}
		})
	}
}

// causeBackend is a channelBackend that also reports the cause its
// context ended with: what a phone tells the person.
type causeBackend struct {
	*channelBackend
	causes chan error
	fail   error
}

func newCauseBackend(te *testEngine) *causeBackend {
	return &causeBackend{channelBackend: newChannelBackend(te), causes: make(chan error, 4)}
}

func (b *causeBackend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if b.fail != nil {
		return dialog.Answer{}, b.fail
	}
	ans, err := b.channelBackend.Ask(ctx, r)
	go func() { <-ctx.Done(); b.causes <- context.Cause(ctx) }()
	return ans, err
}

func (b *causeBackend) told(t *testing.T) string {
	t.Helper()
	select {
	case err := <-b.causes:
		var closed *dialog.Closed
		if !errors.As(err, &closed) {
			t.Fatalf("closed with %v, not a dialog.Closed", err)
		}
		return closed.What
	case <-time.After(10 * time.Second):
		t.Fatal("the way of asking was never closed")
		return ""
	}
}

// With the phone also asked, the first answer wins whichever way it came
// from: the other way closes, told who answered; the record, the result
// and the history name the phone when it answered. A phone that fails
// leaves the other way asking, and the caller is warned.
func TestPhoneBesideAChannel(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	te.setPhone("also")
	phone := newCauseBackend(te)
	te.phone = func(remote.Config, PhoneReports) dialog.Backend { return phone }
	ch := newCauseBackend(te)

	// The phone answers; the channel is told.
	c := channelCall(te, ch.channelBackend)
	c.Channel.Backend = ch
	go func() { <-phone.asked; <-ch.asked; phone.answers <- channelAnswer{approved: true} }()
	r := te.ask(c)
	te.Drain()
	if r.ExitCode != ExitApproved || r.AnsweredBy != wayPhone || !strings.Contains(r.Message, "on the phone") {
		t.Fatalf("the phone's approval: %+v", r)
	}
	if got := ch.told(t); got != "Already approved on the phone" {
		t.Fatalf("the channel was told %q", got)
	}
	if got := phone.told(t); got != "Approved on the phone" {
		t.Fatalf("the phone was told %q", got)
	}
	rec := te.record(r.Key)
	if rec.AnsweredBy != wayPhone || rec.Phone != phoneAlso {
		t.Fatalf("the record: phone %q, answered by %q", rec.Phone, rec.AnsweredBy)
	}
	events, _, err := te.Events(0, r.Key)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, ev := range events {
		if ev.Event == "answered" {
			answered++
			if ev.AnsweredBy != wayPhone || ev.Phone != phoneAlso {
				t.Fatalf("the history's answer: %+v", ev)
			}
		}
	}
	if answered != 1 {
		t.Fatalf("%d answered events", answered)
	}

	// The channel answers; the phone is told.
	c = channelCall(te, ch.channelBackend)
	c.Channel.Backend = ch
	c.Request.Message = "Ship v3?"
	go func() { <-phone.asked; <-ch.asked; ch.answers <- channelAnswer{approved: false} }()
	r = te.ask(c)
	te.Drain()
	if r.ExitCode != ExitDenied || r.AnsweredBy != "" {
		t.Fatalf("the channel's deny: %+v", r)
	}
	if got := phone.told(t); got != "Already denied in the agent's client" {
		t.Fatalf("the phone was told %q", got)
	}
	ch.told(t)

	// The phone fails at once; the channel still asks, and answers.
	phone.fail = errors.New("the server cannot be reached")
	c = channelCall(te, ch.channelBackend)
	c.Channel.Backend = ch
	c.Request.Message = "Ship v4?"
	go func() {
		<-ch.asked
		// The answer comes once the phone's failure is on record.
		id := te.prepare(c).Request.Identity()
		for {
			if rec, found, err := te.store.Get(id); err == nil && found && rec.Note != "" {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		ch.answers <- channelAnswer{approved: true}
	}()
	r = te.ask(c)
	te.Drain()
	if r.ExitCode != ExitApproved || !strings.Contains(r.Warning, "the phone could not ask (the server cannot be reached)") {
		t.Fatalf("the channel's approval with the phone down: %+v", r)
	}
	if kinds := te.events(r.Key); !strings.Contains(strings.Join(kinds, " "), "way-failed") {
		t.Fatalf("the history does not record the phone's failure: %v", kinds)
	}
}

// What each way is told once the request ended: who answered, seen from
// that way, or why it closed.
func TestClosedCause(t *testing.T) {
	for _, tc := range []struct {
		rec  store.Record
		way  string
		want string
	}{
		{store.Record{Status: store.Approved, AnsweredBy: wayPhone}, wayPhone, "Approved on the phone"},
		{store.Record{Status: store.Approved, AnsweredBy: wayPhone}, "dialog", "Already approved on the phone"},
		{store.Record{Status: store.Denied}, wayPhone, "Already denied in the dialog"},
		{store.Record{Status: store.Approved, Channel: "terminal"}, wayPhone, "Already approved on the terminal"},
		{store.Record{Status: store.Approved, Kind: dialog.Choose}, wayPhone, "Already answered in the dialog"},
		{store.Record{Status: store.Expired}, wayPhone, "This request expired"},
		{store.Record{Status: store.Cancelled}, wayPhone, "This request was cancelled"},
		{store.Record{Status: store.Superseded}, wayPhone, "This request was replaced by a newer one"},
		{store.Record{Status: store.Failed}, wayPhone, "This request closed without an answer"},
	} {
		var closed *dialog.Closed
		if err := closedCause(tc.rec, tc.way); !errors.As(err, &closed) || closed.What != tc.want {
			t.Errorf("%s answered by %q, told to %s: %v, want %q", tc.rec.Status, tc.rec.AnsweredBy, tc.way, err, tc.want)
		}
	}
}

// quitsOnce is a way of asking that ends sooner than a person can answer
// the first time it is asked, as GNOME zenity now and then does, and then
// asks as causeBackend does.
type quitsOnce struct {
	*causeBackend
	quit atomic.Bool
}

func (b *quitsOnce) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if b.quit.CompareAndSwap(false, true) {
		return dialog.Answer{}, nil
	}
	return b.causeBackend.Ask(ctx, r)
}

// A way that ends too soon beside another is asked again, rather than
// ending the request for both; the phone keeps its one message.
func TestRaceAsksAgainAWayThatEndedTooSoon(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	te.setPhone("also")
	phone := newCauseBackend(te)
	asked := atomic.Int32{}
	te.phone = func(remote.Config, PhoneReports) dialog.Backend { asked.Add(1); return phone }
	ch := &quitsOnce{causeBackend: newCauseBackend(te)}
	c := channelCall(te, ch.channelBackend)
	c.Channel.Backend = ch
	go func() { <-phone.asked; <-ch.asked; phone.answers <- channelAnswer{approved: true} }()
	r := te.ask(c)
	te.Drain()
	if r.ExitCode != ExitApproved || r.AnsweredBy != wayPhone || r.Attempt != 1 {
		t.Fatalf("the phone's approval after the channel ended too soon: %+v", r)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the phone was set up %d times", n)
	}
	if got := ch.told(t); got != "Already approved on the phone" {
		t.Fatalf("the channel asked again was told %q", got)
	}
}

// A call that names the phone and joins the same request already open
// without it is warned: the phone is no part of the identity, so the call
// waits for that request's answer, and the phone never sees it.
func TestPhoneNotAskedOnJoiningWithout(t *testing.T) {
	te := newTestEngine(t)
	te.setPhone("fallback")
	warned := make(chan string, 4)
	te.warnf = func(err error) { warned <- err.Error() }
	c := testCall("Ship v2?")
	stop := te.fakeHolder(c)
	c.Remote, c.Wait = remote.ModeAlso, time.Minute
	done := make(chan Result, 1)
	go func() { done <- te.ask(c) }()
	select {
	case w := <-warned:
		if !strings.Contains(w, "already open without it") {
			t.Fatalf("warned %q", w)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no warning on joining a request open without the phone")
	}
	stop(store.Approved)
	if r := <-done; r.ExitCode != ExitApproved {
		t.Fatalf("the joined request's answer: %+v", r)
	}
}
