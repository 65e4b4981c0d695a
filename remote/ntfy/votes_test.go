package ntfy

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// tallyOf is the outcome of taps, each "NAME:CHOICE@SECOND", on a vote of
// Alice, Bob and Carol needing approvals, as "approve|deny|approve-for
// [votes]" or "undecided [votes]".
func tallyOf(t *testing.T, approvals int, taps ...string) string {
	t.Helper()
	r := confirmRequest("Migrate?")
	r.ApproveFor = time.Hour
	people := []person{{name: "Alice"}, {name: "Bob"}, {name: "Carol"}}
	bs, err := newButtons(r, people)
	if err != nil {
		t.Fatal(err)
	}
	q := &question{buttons: bs, people: people, approvals: approvals, approveFor: time.Hour}
	var ts []tapped
	for _, tap := range taps {
		name, rest, _ := strings.Cut(tap, ":")
		choice, at, _ := strings.Cut(rest, "@")
		var found *button
		for _, bt := range bs {
			if bt.by == name && bt.choice == choice {
				found = bt
			}
		}
		if found == nil {
			t.Fatalf("no button %s", tap)
		}
		sec, _ := time.ParseDuration(at + "s")
		ts = append(ts, tapped{bt: found, at: int64(sec.Seconds())})
	}
	bt, votes := q.tally(ts)
	var vs []string
	for _, v := range votes {
		vs = append(vs, v.By+map[bool]string{true: "+", false: "-"}[v.Approved])
	}
	what := "undecided"
	if bt != nil {
		what = bt.choice
		// The engine records the outcome only where its votes, read in
		// order, say it too.
		if decided, approved := dialog.Voted(votes, approvals); !decided || approved != (bt.choice != "deny") {
			t.Errorf("%v: the tally says %s, but its votes read in order say decided %v, approved %v", taps, bt.choice, decided, approved)
		}
	}
	return what + " [" + strings.Join(vs, " ") + "]"
}

// The votes decide the same whatever order they are read in, and however
// they are dated: a person's taps of one button count once, two different
// buttons of one person are their deny, a deny denies whenever it came,
// and else the N-th approval approves, the votes of one second read
// together.
func TestTally(t *testing.T) {
	for _, tc := range []struct {
		approvals int
		taps      []string
		want      string
	}{
		{2, []string{"Alice:approve@1"}, "undecided [Alice+]"},
		{2, []string{"Alice:approve@1", "Bob:approve@2"}, "approve [Alice+ Bob+]"},
		{2, []string{"Bob:approve@2", "Alice:approve@1"}, "approve [Alice+ Bob+]"},
		{1, []string{"Carol:approve@5"}, "approve [Carol+]"},
		// The same button of one person twice counts once.
		{2, []string{"Alice:approve@1", "Alice:approve@3"}, "undecided [Alice+]"},
		// Two buttons of one person, in one second or days apart: a deny.
		{2, []string{"Alice:approve@1", "Alice:deny@1"}, "deny [Alice-]"},
		{2, []string{"Alice:approve@1", "Alice:deny@3", "Bob:approve@4"}, "deny [Alice- Bob+]"},
		{2, []string{"Alice:deny@300000", "Alice:approve@1", "Bob:approve@2"}, "deny [Alice- Bob+]"},
		{2, []string{"Alice:approve-for@1", "Alice:approve@2", "Bob:approve@3"}, "deny [Alice- Bob+]"},
		// One deny denies, whenever it came: before the approvals, in the
		// second of the deciding one, or after it (a deny dated later
		// than the votes it follows, or dated before them by X-Delay).
		{2, []string{"Alice:approve@1", "Carol:deny@2", "Bob:approve@3"}, "deny [Carol- Alice+ Bob+]"},
		{2, []string{"Alice:approve@1", "Bob:approve@2", "Carol:deny@2"}, "deny [Carol- Alice+ Bob+]"},
		{2, []string{"Carol:deny@2", "Alice:approve@1", "Bob:approve@2"}, "deny [Carol- Alice+ Bob+]"},
		{3, []string{"Alice:approve@1", "Bob:approve@1", "Carol:deny@1"}, "deny [Carol- Alice+ Bob+]"},
		{2, []string{"Alice:approve@1", "Bob:approve@2", "Carol:deny@3"}, "deny [Carol- Alice+ Bob+]"},
		{2, []string{"Alice:approve@5", "Bob:approve@6", "Carol:deny@0"}, "deny [Carol- Alice+ Bob+]"},
		// Approved for a while only as long as every approval counted says.
		{2, []string{"Alice:approve-for@1", "Bob:approve-for@2"}, "approve-for [Alice+ Bob+]"},
		{2, []string{"Alice:approve-for@1", "Bob:approve@2"}, "approve [Alice+ Bob+]"},
		{3, []string{"Alice:approve@1", "Bob:approve@2"}, "undecided [Alice+ Bob+]"},
	} {
		if got := tallyOf(t, tc.approvals, tc.taps...); got != tc.want {
			t.Errorf("%d of 3, %v: %s, want %s", tc.approvals, tc.taps, got, tc.want)
		}
	}
}

// The follow-ups name the people: each vote, and the outcome.
func TestVoteTexts(t *testing.T) {
	a := dialog.Vote{By: "Alice", Approved: true}
	if got := progressText(a, []dialog.Vote{a}, 2); got != "Alice approved; 1 of 2" {
		t.Errorf("progress %q", got)
	}
	if got := progressText(dialog.Vote{By: "Bob", Approved: true, For: time.Hour}, []dialog.Vote{a, {By: "Bob", Approved: true}}, 3); got != "Bob approved for 1h; 2 of 3" {
		t.Errorf("progress %q", got)
	}
	b := dialog.Vote{By: "Bob", Approved: true}
	c := dialog.Vote{By: "Carol"}
	if got := votesText(&button{choice: "approve", votes: []dialog.Vote{a, b}}); got != "Approved by Alice and Bob" {
		t.Errorf("outcome %q", got)
	}
	if got := votesText(&button{choice: "deny", votes: []dialog.Vote{a, c}}); got != "Denied by Carol" {
		t.Errorf("outcome %q", got)
	}
}

// A person's button is theirs: its MAC names them, and the place it
// sends must be theirs.
func TestVoterButtonsAreTheirs(t *testing.T) {
	key := make([]byte, 32)
	r := confirmRequest("Migrate?")
	people := []person{{name: "Alice"}, {name: "Bob"}}
	bs, err := newButtons(r, people)
	if err != nil {
		t.Fatal(err)
	}
	q := &question{key: key, identity: "id", buttons: bs, people: people, approvals: 2, id: "r1", ownID: "r1"}
	alices := bs[1]
	if alices.by != "Alice" || alices.choice != "approve" {
		t.Fatalf("buttons %+v", bs)
	}
	body := q.replyBody(alices)
	b := &Backend{}
	var ignored []string
	b.Ignored = func(r string) { ignored = append(ignored, r) }
	if got := b.match(q, body); got != alices {
		t.Fatalf("Alice's own tap matched %+v", got)
	}
	if got := b.match(q, strings.Replace(body, " voter="+voterID("Alice")+" ", " voter="+voterID("Bob")+" ", 1)); got != nil || len(ignored) != 1 || ignored[0] != ignoredAsAnother {
		t.Fatalf("Alice's button as Bob's matched %+v, ignored %q", got, ignored)
	}
	if replyMAC(key, "id", "r1", bs[1], 0) == replyMAC(key, "id", "r1", bs[3], 0) {
		t.Fatal("Alice's and Bob's Approve carry one MAC")
	}
	// A machine whose copy of the setup lists Bob first reads Alice's tap
	// as hers: a vote names its person, not a place in a list.
	swapped := []person{{name: "Bob"}, {name: "Alice"}}
	bs2, err := newButtons(r, swapped)
	if err != nil {
		t.Fatal(err)
	}
	q2 := &question{key: key, identity: "id", buttons: bs2, people: swapped, approvals: 2, id: "r1", ownID: "r1"}
	f, _ := fields(body)
	if got := q2.answerIn(f, "r1", 0); got == nil || got.by != "Alice" {
		t.Fatalf("a copy of the setup in another order reads Alice's tap as %+v", got)
	}
}

// What a vote's follow-ups and message say reads as what happened: a
// progress follow-up carries no tag of an end, and one person asked alone
// is told that their answer decides. On 3481494 "Alice approved; 1 of 2"
// carried ⛔, and one approver read "Asked of you, Alice, with : every one
// of you must approve".
func TestVoteWords(t *testing.T) {
	v := dialog.Vote{By: "Alice", Approved: true}
	for text, want := range map[string]string{
		progressText(v, []dialog.Vote{v}, 2):                                                      "ballot_box_with_check",
		progressText(dialog.Vote{By: "Bob", Approved: true, For: time.Hour}, []dialog.Vote{v}, 3): "ballot_box_with_check",
		removedText("Bob", nil, 2):                                                                "ballot_box_with_check",
		"Approved by Alice and Bob at 14:05":                                                      "white_check_mark",
		"Denied by Carol at 14:06":                                                                "x",
		"This request was cancelled at 14:05":                                                     "no_entry_sign",
	} {
		if got := followUpTag(text); got != want {
			t.Errorf("%q is tagged %s, want %s", text, got, want)
		}
	}
	b := &Backend{}
	alone := &question{people: []person{{name: "Alice"}}, approvals: 1}
	if got := b.askedAs(alone, alone.people[0]); strings.Contains(got, "with :") || !strings.Contains(got, "decides") {
		t.Errorf("one approver reads %q", got)
	}
	three := &question{people: []person{{name: "Alice"}, {name: "Bob"}, {name: "Carol"}}, approvals: 2}
	if got := b.askedAs(three, three.people[1]); got != "Asked of you, Bob, with Alice and Carol: 2 of 3 must approve; any one of you can deny." {
		t.Errorf("three approvers read %q", got)
	}
}
