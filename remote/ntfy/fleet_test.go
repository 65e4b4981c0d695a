package ntfy

import (
	"slices"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Whoever reads a request's taps, in whatever order, and whenever they are
// dated, learns the same answer: the button every tap names; taps of two
// different answers are in doubt, and deny, whatever their times (a
// publisher may date a tap before the person's answer, with X-Delay); the
// same button twice is no doubt, nor are two denies.
func TestOutcome(t *testing.T) {
	deny, approve, approveFor := &button{choice: "deny"}, &button{choice: "approve"}, &button{choice: "approve-for"}
	for _, tc := range []struct {
		name string
		taps []tapped
		want *button
	}{
		{"none", nil, nil},
		{"one", []tapped{{bt: approve, at: 10}}, approve},
		{"a later deny", []tapped{{bt: approve, at: 10}, {bt: deny, at: 11}}, inDoubt},
		{"an approve dated before a deny, read last", []tapped{{bt: deny, at: 12}, {bt: approve, at: 10}}, inDoubt},
		{"a deny and a machine's recorded deny", []tapped{{bt: deny, at: 10}, {bt: deniedElsewhere, at: 11}}, deny},
		{"two in one second", []tapped{{bt: approve, at: 10}, {bt: deny, at: 10}}, inDoubt},
		{"two in one second read the other way", []tapped{{bt: deny, at: 10}, {bt: approve, at: 10}}, inDoubt},
		{"a deny days later", []tapped{{bt: approve, at: 9}, {bt: approve, at: 10}, {bt: deny, at: 300000}}, inDoubt},
		{"one button twice", []tapped{{bt: approve, at: 10}, {bt: approve, at: 10}}, approve},
		{"one button a thousand times, and another once", append(slices.Repeat([]tapped{{bt: approve, at: 10}}, 1000), tapped{bt: approveFor, at: 5}), inDoubt},
	} {
		if got := outcome(tc.taps); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if a := answerFor(dialog.Request{}, inDoubt); a.Approved {
		t.Errorf("taps in doubt approve: %+v", a)
	}
}

// A request's record and its buttons' MACs verify with the fleet's
// secret alone: another fleet's, another question's or another request's
// verify nothing, and a machine that never saw the buttons tells which
// one a reply is from.
func TestFleetMACs(t *testing.T) {
	key, other := make([]byte, 32), make([]byte, 32)
	other[0] = 1
	r := dialog.Request{Title: "Deploy", Message: "Ship?", OKLabel: "Approve", CancelLabel: "Deny", Key: "k"}
	bs, err := newButtons(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := newQuestion(key, r, bs, "0123456789abcdef", 2000)
	rec := message{ID: "m1", Time: 1000, Message: openBody(key, r.Identity(), fleetContent(r), q.id, q.closes, r.Key)}
	elsewhere := r
	elsewhere.Scope = "/home/runner/work/app"
	if fleetContent(elsewhere) != fleetContent(r) {
		t.Fatal("one key asked from two paths is two requests of the fleet")
	}
	if got, ok := readOpen(key, r.Identity(), fleetContent(r), rec); !ok || got.id != q.id || got.closes != 2000 || got.at != 1000 {
		t.Fatalf("the fleet's own record reads as %+v %v", got, ok)
	}
	r2 := r
	r2.Message = "Ship something else?"
	for name, ok := range map[string]bool{
		"another fleet":   func() bool { _, ok := readOpen(other, r.Identity(), fleetContent(r), rec); return ok }(),
		"another content": func() bool { _, ok := readOpen(key, r.Identity(), fleetContent(r2), rec); return ok }(),
		"closes changed": func() bool {
			m := rec
			m.Message = strings.Replace(m.Message, "closes=2000", "closes=2001", 1)
			_, ok := readOpen(key, r.Identity(), fleetContent(r), m)
			return ok
		}(),
	} {
		if ok {
			t.Errorf("a record of %s reads as this fleet's", name)
		}
	}
	// A machine that joined knows the request's id and closing time, not
	// its capabilities.
	joined := newQuestion(key, r, mustButtons(t, r), "ffffffffffffffff", 0)
	joined.id, joined.closes, joined.join = q.id, q.closes, true
	tap := message{Time: 1500, Message: q.replyBody(bs[1])}
	if got := joined.taps([]message{tap}, 0); len(got) != 1 || got[0].bt.choice != "approve" {
		t.Fatalf("the joined machine reads the tap as %+v", got)
	}
	if b := (&Backend{}).match(joined, tap.Message); b == nil || b.choice != "approve" {
		t.Fatalf("the joined machine's stream matches %+v", b)
	}
	foreign := newQuestion(other, r, bs, q.id, q.closes)
	if got := joined.taps([]message{{Time: 1500, Message: foreign.replyBody(bs[1])}}, 0); len(got) != 0 {
		t.Fatalf("another fleet's tap reads as %+v", got)
	}
	if got := joined.taps([]message{tap}, 1400); len(got) != 0 {
		t.Fatalf("a tap after the request closed reads as %+v", got)
	}
}

func mustButtons(t *testing.T, r dialog.Request) []*button {
	t.Helper()
	bs, err := newButtons(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// A machine's record of an answer given in its dialog verifies on every
// machine of the fleet as the button it stands for, and on no other
// fleet's or request's; a cancel and a supersede end a request for every
// machine waiting for it, an end only for one that joined it; the first
// told record, by the server's second, names who follows the phone up.
func TestFleetRecords(t *testing.T) {
	key, other := make([]byte, 32), make([]byte, 32)
	other[0] = 1
	r := dialog.Request{Title: "Deploy", Message: "Ship?", OKLabel: "Approve", CancelLabel: "Deny", Key: "k", ApproveFor: 3600e9}
	q := newQuestion(key, r, mustButtons(t, r), "0123456789abcdef", 2000)
	for _, tc := range []struct {
		ans  dialog.Answer
		want string
	}{
		{dialog.Answer{}, "deny"},
		{dialog.Answer{Approved: true}, "approve"},
		{dialog.Answer{Approved: true, For: 3600e9}, "approve-for"},
	} {
		bt := q.buttonFor(tc.ans)
		if bt == nil || bt.choice != tc.want {
			t.Fatalf("%+v stands for %+v, want %s", tc.ans, bt, tc.want)
		}
		joined := newQuestion(key, r, mustButtons(t, r), "ffffffffffffffff", 0)
		joined.id, joined.closes, joined.join = q.id, q.closes, true
		rec := message{Time: 1500, Message: answerBody(q, q.id, q.closes, bt)}
		if got := joined.taps([]message{rec}, 0); len(got) != 1 || got[0].bt.choice != tc.want || !got[0].recorded {
			t.Fatalf("the joined machine reads the record of %s as %+v", tc.want, got)
		}
		if got := joined.recordedAnswer(rec.Message); got == nil || got.choice != tc.want {
			t.Fatalf("the joined machine's stream reads the record of %s as %+v", tc.want, got)
		}
		foreign := newQuestion(other, r, mustButtons(t, r), q.id, q.closes)
		if got := joined.taps([]message{{Time: 1500, Message: answerBody(foreign, q.id, q.closes, bt)}}, 0); len(got) != 0 {
			t.Fatalf("another fleet's record reads as %+v", got)
		}
		if got := joined.taps([]message{{Time: 1500, Message: answerBody(q, "0000000000000000", q.closes, bt)}}, 0); len(got) != 0 {
			t.Fatalf("another request's record reads as %+v", got)
		}
	}
	choice := dialog.Request{Kind: dialog.Choose, Message: "Which?", Key: "k", Options: []dialog.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}}
	cq := newQuestion(key, choice, mustButtons(t, choice), "0123456789abcdef", 2000)
	if bt := cq.buttonFor(dialog.Answer{Approved: true, Values: []string{"b"}}); bt == nil || bt.label != "b" {
		t.Fatalf("option b stands for %+v", bt)
	}
	if bt := cq.buttonFor(dialog.Answer{}); bt != deniedElsewhere {
		t.Fatalf("a deny of a choice without Cancel on the phone stands for %+v", bt)
	}
	if got := cq.taps([]message{{Time: 1500, Message: answerBody(cq, cq.id, cq.closes, deniedElsewhere)}}, 0); len(got) != 1 || answerFor(choice, got[0].bt).Approved {
		t.Fatalf("its record reads as %+v", got)
	}
	if bt := cq.buttonFor(dialog.Answer{Approved: true, Values: []string{"mine"}, Typed: true}); bt != nil {
		t.Fatalf("a typed answer stands for %+v", bt)
	}

	asker := newQuestion(key, r, mustButtons(t, r), q.id, q.closes)
	joiner := newQuestion(key, r, mustButtons(t, r), "ffffffffffffffff", 0)
	joiner.id, joiner.closes, joiner.join = q.id, q.closes, true
	for _, what := range []string{recCancel, recSupersede, recEnd} {
		body := recordBody(key, r.Identity(), q.id, what)
		want := what
		if what == recEnd {
			want = ""
		}
		if got := asker.endOf(body); got != want {
			t.Errorf("the asker reads %s as %q, want %q", what, got, want)
		}
		if got := joiner.endOf(body); got != what {
			t.Errorf("the joiner reads %s as %q", what, got)
		}
		if got := joiner.endOf(recordBody(other, r.Identity(), q.id, what)); got != "" {
			t.Errorf("another fleet's %s reads as %q", what, got)
		}
	}
	told := []message{
		{Time: 1001, Message: toldBody(q, q.id, "late")},
		{Time: 1000, Message: toldBody(q, q.id, "first")},
		{Time: 1000, Message: toldBody(q, q.id, "second")},
		{Time: 999, Message: toldBody(q, "0000000000000000", "another")},
	}
	if got := toldBy(q, q.id, told); got != "first" {
		t.Fatalf("the first told record names %q", got)
	}
}
