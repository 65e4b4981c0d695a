package ntfy

import (
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Whoever reads a request's taps, in whatever order, learns the same
// answer: the earliest by the server's second; two buttons in that second
// are in doubt, and deny; the same button twice is no doubt.
func TestOutcome(t *testing.T) {
	deny, approve := &button{choice: "deny"}, &button{choice: "approve"}
	for _, tc := range []struct {
		name string
		taps []tapped
		want *button
	}{
		{"none", nil, nil},
		{"one", []tapped{{bt: approve, at: 10}}, approve},
		{"a later deny", []tapped{{bt: approve, at: 10}, {bt: deny, at: 11}}, approve},
		{"an earlier deny read last", []tapped{{bt: approve, at: 11}, {bt: deny, at: 10}}, deny},
		{"two in one second", []tapped{{bt: approve, at: 10}, {bt: deny, at: 10}}, inDoubt},
		{"two in one second read the other way", []tapped{{bt: deny, at: 10}, {bt: approve, at: 10}}, inDoubt},
		{"doubt later, after a clear first", []tapped{{bt: approve, at: 9}, {bt: approve, at: 10}, {bt: deny, at: 10}}, approve},
		{"one button twice", []tapped{{bt: approve, at: 10}, {bt: approve, at: 10}}, approve},
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
	bs, err := newButtons(r)
	if err != nil {
		t.Fatal(err)
	}
	q := newQuestion(key, r, bs, "0123456789abcdef", 2000)
	rec := message{ID: "m1", Time: 1000, Message: openBody(key, r.Identity(), fleetContent(r), q.id, q.closes)}
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
	bs, err := newButtons(r)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}
