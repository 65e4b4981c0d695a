//go:build unix

package lifecycle

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/store"
)

// choiceCall is a channel call asking to choose, in a session with no
// display, so the channel backend answers in this process.
func choiceCall(te *testEngine, b *channelBackend, multiple bool) Call {
	c := channelCall(te, b)
	c.Request.Kind, c.Request.Multiple = dialog.Choose, multiple
	c.Request.OKLabel, c.Request.Icon = "OK", ""
	c.Request.Options = []dialog.Option{{Label: "staging", Description: "the staging cluster"}, {Label: "production"}, {Label: "qa"}}
	return c
}

// A choice's answer reaches the caller, is kept with the record, returns to
// the same question within --remember, and is on the history as labels.
func TestChoiceAnswerIsReturnedAndRemembered(t *testing.T) {
	for _, multiple := range []bool{false, true} {
		te := newTestEngine(t)
		te.headlessSession()
		b := newChannelBackend(te)
		c := choiceCall(te, b, multiple)
		values := []string{"production"}
		var want any = "production"
		if multiple {
			values = []string{"staging", "qa"}
			want = []string{"staging", "qa"}
		}
		b.answers <- channelAnswer{approved: true, values: values}
		r := te.ask(c)
		if r.ExitCode != ExitApproved || !reflect.DeepEqual(r.Answer, want) {
			t.Fatalf("multiple=%v: %+v, want answer %#v", multiple, r, want)
		}
		rec := te.record(te.prepare(c).Request.Identity())
		if rec.Kind != dialog.Choose || rec.Multiple != multiple || !reflect.DeepEqual(rec.Answers, values) {
			t.Fatalf("record kind %q multiple %v answers %q", rec.Kind, rec.Multiple, rec.Answers)
		}
		again := te.ask(c)
		if again.ExitCode != ExitApproved || !again.Remembered || !reflect.DeepEqual(again.Answer, want) {
			t.Fatalf("asked again: %+v", again)
		}
		events, _, _ := te.Events(0, rec.Identity)
		found := false
		for _, ev := range events {
			if ev.Event == "answered" {
				found = reflect.DeepEqual(ev.Answer, values) && ev.AnswerHash == ""
			}
		}
		if !found {
			t.Fatalf("no answered event with the labels %q in %+v", values, events)
		}
	}
}

// A reordered option list is another question: it does not receive the
// answer to the first.
func TestChoiceAnswerOnlyForTheSameQuestion(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := choiceCall(te, b, false)
	b.answers <- channelAnswer{approved: true, values: []string{"qa"}}
	if r := te.ask(c); r.ExitCode != ExitApproved {
		t.Fatalf("first: %+v", r)
	}
	<-b.asked
	reordered := choiceCall(te, b, false)
	o := reordered.Request.Options
	o[0], o[1] = o[1], o[0]
	reordered.Wait = 0
	if r := te.ask(reordered); r.ExitCode != ExitPending || r.Remembered {
		t.Fatalf("reordered options: %+v, want a new question (pending)", r)
	}
	if req := <-b.asked; !reflect.DeepEqual(req.Options, o) {
		t.Fatalf("asked %+v", req.Options)
	}
}

// An input's text reaches the caller, empty too, and the history keeps only
// its hash.
func TestInputAnswerAndItsHistory(t *testing.T) {
	for _, text := range []string{"v2.0.0 «beta»", ""} {
		te := newTestEngine(t)
		te.headlessSession()
		b := newChannelBackend(te)
		c := channelCall(te, b)
		c.Request.Kind, c.Request.OKLabel, c.Request.Icon, c.Request.Text = dialog.Input, "OK", "", "v1"
		b.answers <- channelAnswer{approved: true, values: []string{text}}
		r := te.ask(c)
		if r.ExitCode != ExitApproved || r.Answer != text {
			t.Fatalf("%+v, want the text %q", r, text)
		}
		events, _, _ := te.Events(0, "")
		hashed := false
		for _, ev := range events {
			if len(ev.Answer) != 0 {
				t.Fatalf("the history holds the text: %+v", ev)
			}
			if ev.Event == "answered" {
				hashed = ev.AnswerHash == messageHash(text)
			}
		}
		if !hashed {
			t.Fatalf("no answered event with the text's hash: %+v", events)
		}
	}
}

// A backend whose answer does not answer the question (a label that is no
// option, two labels for one choice, none, a text for a confirmation, an
// approve-for period that was not offered) is broken: the request fails,
// exit 6, and nothing is approved or kept.
func TestAnswerThatIsNotAnAnswerFails(t *testing.T) {
	cases := []struct {
		name     string
		kind     string
		multiple bool
		answer   channelAnswer
	}{
		{"not an option", dialog.Choose, false, channelAnswer{approved: true, values: []string{"prod"}}},
		{"two for one", dialog.Choose, false, channelAnswer{approved: true, values: []string{"qa", "staging"}}},
		{"twice", dialog.Choose, true, channelAnswer{approved: true, values: []string{"qa", "qa"}}},
		{"none", dialog.Choose, true, channelAnswer{approved: true}},
		{"two texts", dialog.Input, false, channelAnswer{approved: true, values: []string{"a", "b"}}},
		{"too long a text", dialog.Input, false, channelAnswer{approved: true, values: []string{string(make([]byte, dialog.MaxTextBytes+1))}}},
		{"a text for a confirmation", dialog.Confirm, false, channelAnswer{approved: true, values: []string{"yes"}}},
		{"an approval for a while not offered", dialog.Confirm, false, channelAnswer{approved: true, approvedFor: time.Hour}},
	}
	for _, tc := range cases {
		te := newTestEngine(t)
		te.headlessSession()
		b := newChannelBackend(te)
		c := choiceCall(te, b, tc.multiple)
		switch tc.kind {
		case dialog.Input:
			c.Request.Options, c.Request.Kind = nil, dialog.Input
		case dialog.Confirm:
			c = channelCall(te, b)
		}
		// A failure is retried: without retries, it is the outcome.
		c.Retries = 0
		b.answers <- tc.answer
		r := te.ask(c)
		if r.ExitCode != ExitFailed || r.Answer != nil {
			t.Fatalf("%s: %+v, want exit %d and no answer", tc.name, r, ExitFailed)
		}
		if rec := te.record(te.prepare(c).Request.Identity()); rec.Status != store.Failed || rec.Answers != nil {
			t.Fatalf("%s: record %s with answers %q", tc.name, rec.Status, rec.Answers)
		}
	}
}

// Approve for a while: the approval returns to the same request for the
// period, whatever --remember the next caller asks with, and then no more;
// a different request never receives it.
func TestApproveForKeepsTheApprovalForItsPeriod(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Request.ApproveFor = time.Hour
	c.Remember, c.CollectWithin = 0, 0
	b.answers <- channelAnswer{approved: true, approvedFor: time.Hour}
	r := te.ask(c)
	if r.ExitCode != ExitApproved || r.ApprovedUntil.IsZero() {
		t.Fatalf("first: %+v", r)
	}
	<-b.asked
	te.advance(59 * time.Minute)
	if again := te.ask(c); again.ExitCode != ExitApproved || !again.Remembered {
		t.Fatalf("within the hour: %+v", again)
	}
	other := c
	other.Request.Message = "Ship v3?"
	other.Wait = 0
	if r := te.ask(other); r.ExitCode == ExitApproved || r.Remembered {
		t.Fatalf("another request within the hour: %+v", r)
	}
	<-b.asked
	without := c
	without.Request.ApproveFor, without.Wait = 0, 0
	if r := te.ask(without); r.ExitCode == ExitApproved {
		t.Fatalf("the same message without the approve-for button: %+v", r)
	}
	<-b.asked
	te.advance(2 * time.Minute)
	late := c
	late.Wait = 0
	if r := te.ask(late); r.ExitCode != ExitPending || r.Remembered {
		t.Fatalf("after the hour: %+v, want a new question", r)
	}
	events, _, _ := te.Events(0, te.prepare(c).Request.Identity())
	if len(events) == 0 {
		t.Fatal("no history")
	}
	found := false
	for _, ev := range events {
		found = found || (ev.Event == "answered" && ev.ApprovedFor == "1h")
	}
	if !found {
		t.Fatalf("no answered event approved for 1h: %+v", events)
	}
}

// Plain approval of a request that offers approve-for keeps only --remember.
func TestApproveButtonBesideApproveForKeepsRemember(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Request.ApproveFor = time.Hour
	c.Remember, c.CollectWithin = time.Minute, time.Minute
	b.answers <- channelAnswer{approved: true}
	if r := te.ask(c); r.ExitCode != ExitApproved || !r.ApprovedUntil.IsZero() {
		t.Fatalf("first: %+v", r)
	}
	<-b.asked
	te.advance(2 * time.Minute)
	c.Wait = 0
	if r := te.ask(c); r.ExitCode != ExitPending {
		t.Fatalf("past --remember: %+v, want a new question", r)
	}
}

// choose and input have no answer to give without a person.
func TestHeadlessApproveRefusedBeyondConfirm(t *testing.T) {
	for _, kind := range []string{dialog.Choose, dialog.Input} {
		c := DefaultCall()
		c.Request.Message, c.Request.Kind, c.Request.Icon, c.Request.OKLabel = "Which?", kind, "", "OK"
		if kind == dialog.Choose {
			c.Request.Options = []dialog.Option{{Label: "a"}, {Label: "b"}}
		}
		c.IfHeadless = IfHeadlessApprove
		if err := c.Validate(); err == nil {
			t.Fatalf("%s with --if-headless approve validates", kind)
		}
		c.IfHeadless = IfHeadlessDeny
		if err := c.Validate(); err != nil {
			t.Fatalf("%s with --if-headless deny: %v", kind, err)
		}
	}
}

// An answer of the person's own beside a choice's labels: the caller gets
// it, marked other; the history keeps the labels and only a hash of it;
// and where the choice offered none, it fails.
func TestOwnAnswerBesideTheOptions(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := choiceCall(te, b, true)
	c.Request.Other = true
	b.answers <- channelAnswer{approved: true, values: []string{"qa", "canary 5%"}, typed: true}
	r := te.ask(c)
	if r.ExitCode != ExitApproved || !r.Other || !reflect.DeepEqual(r.Answer, []string{"qa", "canary 5%"}) {
		t.Fatalf("%+v", r)
	}
	if strings.Contains(r.Message, "canary") {
		t.Fatalf("the one-line message holds typed text: %q", r.Message)
	}
	events, _, _ := te.Events(0, "")
	for _, ev := range events {
		line, _ := json.Marshal(ev)
		if strings.Contains(string(line), "canary") {
			t.Fatalf("the history holds typed text: %s", line)
		}
		if ev.Event == "answered" && (!reflect.DeepEqual(ev.Answer, []string{"qa"}) || ev.AnswerHash != messageHash("canary 5%")) {
			t.Fatalf("answered event: %+v", ev)
		}
	}

	te = newTestEngine(t)
	te.headlessSession()
	b = newChannelBackend(te)
	c = choiceCall(te, b, false)
	c.Retries = 0
	b.answers <- channelAnswer{approved: true, values: []string{"canary"}, typed: true}
	if r := te.ask(c); r.ExitCode != ExitFailed {
		t.Fatalf("an answer of one's own where none was offered: %+v", r)
	}
}

// list shows an approval for a while as kept for its period.
func TestApproveForInTheList(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Request.ApproveFor = time.Hour
	c.Remember, c.CollectWithin = 0, 0
	b.answers <- channelAnswer{approved: true, approvedFor: time.Hour}
	if r := te.ask(c); r.ExitCode != ExitApproved {
		t.Fatalf("%+v", r)
	}
	te.advance(10 * time.Minute)
	en := te.entryOf(te.record(te.prepare(c).Request.Identity()))
	if en.ApprovedUntil.IsZero() || en.LeftSeconds < 49*60 || en.LeftSeconds > 51*60 {
		t.Fatalf("entry: approved until %v, %.0fs left", en.ApprovedUntil, en.LeftSeconds)
	}
}
