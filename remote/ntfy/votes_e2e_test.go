//go:build e2e && unix

package ntfy

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// These tests ask three people, Alice, Bob and Carol, each on a phone of
// their own (an ntfy account that reads their topic alone), against the
// real ntfy server, with and without a fleet's secret.

// panel is a server with three people and their phones.
type panel struct {
	s      *ntfytest.Server
	c      remote.Config
	phones map[string]*ntfytest.Phone
}

func newPanel(t *testing.T, fleet bool) *panel {
	t.Helper()
	s, people := ntfytest.NewWithPeople(t, "Alice", "Bob", "Carol")
	c := configOf(s)
	if fleet {
		c = fleetConfig(t, s)
	}
	c.Name = people[0].Name
	for _, p := range people[1:] {
		c.Approvers = append(c.Approvers, remote.Approver{Name: p.Name, Topic: p.Topic})
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	pn := &panel{s: s, c: c, phones: map[string]*ntfytest.Phone{}}
	for _, p := range people {
		pn.phones[p.Name] = ntfytest.NewPhoneOf(t, s, p)
	}
	return pn
}

// everyone waits for the n-th message on each phone, and checks that it
// starts with prefix.
func (pn *panel) everyone(t *testing.T, n int, prefix string) map[string]ntfytest.Message {
	t.Helper()
	got := map[string]ntfytest.Message{}
	for name, ph := range pn.phones {
		m := ph.Await(n)
		if !strings.HasPrefix(m.Message, prefix) {
			t.Fatalf("%s's phone's message %d is %q, want it to start with %q", name, n, m.Message, prefix)
		}
		got[name] = m
	}
	return got
}

// voteRequest asks the three of them, needing approvals.
func voteRequest(approvals int) dialog.Request {
	r := confirmRequest("Run the production migration?")
	r.Approvers, r.Approvals = []string{"Alice", "Bob", "Carol"}, approvals
	return r
}

// votes records what a Backend's Voted is told.
type votes struct {
	mu  sync.Mutex
	got []dialog.Vote
}

func (v *votes) add(vote dialog.Vote) { v.mu.Lock(); v.got = append(v.got, vote); v.mu.Unlock() }

func (v *votes) by() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var names []string
	for _, vote := range v.got {
		names = append(names, vote.By)
	}
	return names
}

func notYet(t *testing.T, a *asking, after string) {
	t.Helper()
	select {
	case <-a.done:
		t.Fatalf("Ask returned after %s: %+v, %v", after, a.ans, a.err)
	default:
	}
}

// votesOf lists ans's votes by name: the order of one second's votes is
// the tally's, denies first.
func votesOf(ans dialog.Answer) string {
	var s []string
	for _, v := range ans.Votes {
		s = append(s, fmt.Sprintf("%s:%v", v.By, v.Approved))
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

// Two of three: each person gets their own message with their own
// buttons; the first approval is counted, told to every phone, and
// decides nothing; the second approves, and every phone is told by whom.
func TestVoteTwoOfThree(t *testing.T) {
	for _, fleet := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "fleet"}[fleet], func(t *testing.T) {
			pn := newPanel(t, fleet)
			var seen votes
			b := &Backend{Config: pn.c, Voted: seen.add}
			told(t, b)
			a := ask(context.Background(), b, voteRequest(2))
			a.sayOnFailure(t)
			asked := pn.everyone(t, 1, "Run the production migration?")
			caps := map[string]bool{}
			for name, m := range asked {
				if !strings.HasSuffix(m.Message, "Asked of you, "+name+", with "+dialog.Names(others(name))+": 2 of 3 must approve; any one of you can deny.") {
					t.Fatalf("%s's message says %q", name, m.Message)
				}
				if len(m.Actions) != 2 || m.Actions[0].Label != "Cancel" || m.Actions[1].Label != "Approve" {
					t.Fatalf("%s's buttons: %+v", name, m.Actions)
				}
				for _, act := range m.Actions {
					if caps[act.Body] {
						t.Fatalf("%s's button %q is another person's too", name, act.Body)
					}
					caps[act.Body] = true
				}
			}
			if code := pn.phones["Alice"].Tap(asked["Alice"], "Approve"); code != http.StatusOK {
				t.Fatalf("Alice's tap got %d", code)
			}
			pn.everyone(t, 2, "Alice approved; 1 of 2")
			notYet(t, a, "one approval of two")
			pn.phones["Bob"].Tap(asked["Bob"], "Approve")
			ans, err := a.wait(t)
			if err != nil || !ans.Approved || votesOf(ans) != "Alice:true Bob:true" {
				t.Fatalf("answer %+v (votes %s), %v; want approved by Alice and Bob", ans, votesOf(ans), err)
			}
			if got := seen.by(); !slices.Equal(got, []string{"Alice", "Bob"}) {
				t.Fatalf("Voted was told %v", got)
			}
			pn.everyone(t, 3, "Approved by Alice and Bob at ")
			if n := pn.phones["Carol"].Count(); n != 3 {
				t.Fatalf("Carol's phone has %d messages, want 3", n)
			}
		})
	}
}

// told has what b reports to Ignored and Lost written in the test's log
// where the test fails: why a tap did not count, or a follow-up was not
// sent. What is reported after the test ended is dropped.
func told(t *testing.T, b *Backend) {
	var mu sync.Mutex
	var lines []string
	add := func(kind string) func(string) {
		return func(s string) {
			mu.Lock()
			lines = append(lines, time.Now().Format("15:04:05.000")+" "+kind+": "+s)
			mu.Unlock()
		}
	}
	b.Ignored, b.Lost = add("ignored"), add("lost")
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if t.Failed() {
			t.Logf("the backend reported:\n%s", strings.Join(lines, "\n"))
		}
	})
}

func others(name string) []string {
	var out []string
	for _, n := range []string{"Alice", "Bob", "Carol"} {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// One deny denies at once, whatever approvals came before, and every phone
// is told who denied.
func TestVoteOneDenyDenies(t *testing.T) {
	pn := newPanel(t, true)
	a := ask(context.Background(), &Backend{Config: pn.c}, voteRequest(2))
	asked := pn.everyone(t, 1, "Run the production migration?")
	pn.phones["Alice"].Tap(asked["Alice"], "Approve")
	pn.everyone(t, 2, "Alice approved; 1 of 2")
	pn.phones["Carol"].Tap(asked["Carol"], "Cancel")
	ans, err := a.wait(t)
	if err != nil || ans.Approved || votesOf(ans) != "Alice:true Carol:false" {
		t.Fatalf("answer %+v (votes %s), %v; want denied by Carol", ans, votesOf(ans), err)
	}
	pn.everyone(t, 3, "Denied by Carol at ")
}

// The same person's second tap, a second later, counts for nothing, and
// is recorded as ignored; a button of Alice's presented as Bob's is
// refused, and Bob's own vote still counts as his.
func TestVoteEachPersonOnce(t *testing.T) {
	for _, fleet := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "fleet"}[fleet], func(t *testing.T) {
			pn := newPanel(t, fleet)
			m := newMachine(pn.c, 0)
			a := ask(context.Background(), m.Backend, voteRequest(2))
			asked := pn.everyone(t, 1, "Run the production migration?")
			pn.phones["Alice"].Tap(asked["Alice"], "Approve")
			pn.everyone(t, 2, "Alice approved; 1 of 2")
			// A second later, whatever second the first fell in.
			time.Sleep(1100 * time.Millisecond)
			pn.phones["Alice"].Tap(asked["Alice"], "Approve")
			var alices string
			for _, act := range asked["Alice"].Actions {
				if act.Label == "Approve" {
					alices = act.Body
				}
			}
			if !strings.Contains(alices, " voter="+voterID("Alice")+" ") {
				t.Fatalf("Alice's Approve sends %q, without her place", alices)
			}
			pn.s.Post(strings.Replace(alices, " voter="+voterID("Alice")+" ", " voter="+voterID("Bob")+" ", 1))
			waitFor(t, func() bool { return m.ignoredAs(ignoredAgain("Alice")) && m.ignoredAs(ignoredAsAnother) },
				func() string { return fmt.Sprintf("ignored %q", m.ignoredList()) })
			notYet(t, a, "Alice's second tap and her button presented as Bob's")
			pn.phones["Bob"].Tap(asked["Bob"], "Approve")
			ans, err := a.wait(t)
			if err != nil || !ans.Approved || votesOf(ans) != "Alice:true Bob:true" {
				t.Fatalf("answer %+v (votes %s), %v", ans, votesOf(ans), err)
			}
		})
	}
}

func waitFor(t *testing.T, ok func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 30 s: %s", what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A request that closes undecided tells every phone how far it got.
func TestVoteExpiresWithItsCount(t *testing.T) {
	pn := newPanel(t, true)
	ctx, end := context.WithCancelCause(context.Background())
	a := ask(ctx, &Backend{Config: pn.c}, voteRequest(2))
	asked := pn.everyone(t, 1, "Run the production migration?")
	pn.phones["Bob"].Tap(asked["Bob"], "Approve")
	pn.everyone(t, 2, "Bob approved; 1 of 2")
	end(&dialog.Closed{What: "This request expired", Status: "expired"})
	if _, err := a.wait(t); err == nil {
		t.Fatal("an expired vote returned an answer")
	}
	for name, m := range pn.everyone(t, 3, "This request expired at ") {
		if !strings.HasSuffix(m.Message, " with 1 of 2 approvals.") {
			t.Fatalf("%s's phone is told %q", name, m.Message)
		}
	}
}

// A vote given on this machine (the local dialog's click, as Alice) counts
// as Alice's, and the fleet's other machine counts it too.
func TestVoteGivenHere(t *testing.T) {
	pn := newPanel(t, true)
	here := make(chan dialog.Vote, 1)
	var seen votes
	a := ask(context.Background(), &Backend{Config: pn.c, Votes: here, Voted: seen.add}, voteRequest(2))
	asked := pn.everyone(t, 1, "Run the production migration?")
	here <- dialog.Vote{By: "alice", Approved: true}
	pn.everyone(t, 2, "Alice approved; 1 of 2")
	notYet(t, a, "Alice's vote given here")
	pn.phones["Carol"].Tap(asked["Carol"], "Approve")
	ans, err := a.wait(t)
	if err != nil || !ans.Approved || votesOf(ans) != "Alice:true Carol:true" {
		t.Fatalf("answer %+v (votes %s), %v", ans, votesOf(ans), err)
	}
	pn.everyone(t, 3, "Approved by Alice and Carol at ")
}

// A retry on another machine of the fleet joins the vote with the votes
// it has: it puts nothing new on any phone, is told Alice's vote, and the
// second approval decides on both machines.
func TestVoteRetryElsewhereSeesTheVotes(t *testing.T) {
	pn := newPanel(t, true)
	first, second := newMachine(pn.c, 15*time.Minute), newMachine(pn.c, 15*time.Minute)
	var seen votes
	second.Voted = seen.add
	r := voteRequest(2)
	askFor(first, r)
	asked := pn.everyone(t, 1, "Run the production migration?")
	pn.phones["Alice"].Tap(asked["Alice"], "Approve")
	pn.everyone(t, 2, "Alice approved; 1 of 2")
	askFor(second, r)
	second.awaitSent(t)
	waitFor(t, func() bool { return slices.Equal(seen.by(), []string{"Alice"}) },
		func() string { return fmt.Sprintf("the second machine was told %v", seen.by()) })
	for name, ph := range pn.phones {
		if n := ph.Count(); n != 2 {
			t.Fatalf("%s's phone has %d messages after the retry, want 2", name, n)
		}
	}
	pn.phones["Bob"].Tap(asked["Bob"], "Approve")
	for _, m := range []*machine{first, second} {
		ans, err := m.wait(t)
		if err != nil || !ans.Approved || votesOf(ans) != "Alice:true Bob:true" {
			t.Fatalf("answer %+v (votes %s), %v", ans, votesOf(ans), err)
		}
	}
	pn.everyone(t, 3, "Approved by Alice and Bob at ")
}

// A vote decided before a machine asked, whose taps its look-up did not
// read (the server streams a tap before it stores it for a poll): the
// machine joins the request, reads its votes, and takes their outcome by
// the look-up's rule. Past --remember (here 0) it asks anew.
func TestVoteDecidedBeforeAskingIsNotCollectedPastRemember(t *testing.T) {
	pn := newPanel(t, true)
	r := voteRequest(1)
	first := newMachine(pn.c, 0)
	askFor(first, r)
	asked := pn.everyone(t, 1, "Run the production migration?")
	pn.phones["Alice"].Tap(asked["Alice"], "Approve")
	if ans, err := first.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the first machine: %+v, %v", ans, err)
	}
	first.Finish(context.Background())
	pn.everyone(t, 2, "Approved by Alice at ")

	second := newMachine(pn.c, 0)
	stale := &claimsOnlyFirstPoll{next: second.HTTP.Transport}
	second.HTTP.Transport = stale
	askedAnew(t, second, askFor(second, r), pn.phones["Alice"].Count, 3)
	if stale.dropped.Load() == 0 {
		t.Fatal("the second machine's look-up read nothing that the test could hold back: the test proves nothing")
	}
	asked = pn.everyone(t, 3, "Run the production migration?")
	pn.phones["Carol"].Tap(asked["Carol"], "Cancel")
	if ans, err := second.wait(t); err != nil || ans.Approved || votesOf(ans) != "Carol:false" {
		t.Fatalf("the second machine, asked anew and denied by Carol: %+v (votes %s), %v", ans, votesOf(ans), err)
	}
}

// Two machines whose copies of the setup list the people in other orders
// (a person removed and added again on one of them) ask the same vote: it
// is one request, and the same taps decide it the same way on both. On
// 3481494 a vote named its person by place, and the second machine read
// Carol's real tap as forged and stayed pending.
func TestVoteReadsTheSameWhateverTheSetupsOrder(t *testing.T) {
	pn := newPanel(t, true)
	r := voteRequest(2)
	reordered := pn.c
	reordered.Approvers = slices.Clone(pn.c.Approvers)
	slices.Reverse(reordered.Approvers)
	r2 := r
	r2.Approvers = []string{"Alice", "Carol", "Bob"}
	if r.Identity() != r2.Identity() {
		t.Fatal("the same approvers in another order make another request")
	}
	a, b := newMachine(pn.c, 15*time.Minute), newMachine(reordered, 15*time.Minute)
	x := askFor(a, r)
	asked := pn.everyone(t, 1, "Run the production migration?")
	a.awaitSent(t)
	y := askFor(b, r2)
	b.awaitSent(t)
	pn.phones["Bob"].Tap(asked["Bob"], "Approve")
	pn.everyone(t, 2, "Bob approved; 1 of 2")
	pn.phones["Carol"].Tap(asked["Carol"], "Approve")
	for name, m := range map[string]*machine{"the first machine": a, "the machine whose setup lists them in another order": b} {
		ans, err := m.wait(t)
		if err != nil || !ans.Approved || votesOf(ans) != "Bob:true Carol:true" {
			t.Fatalf("%s: %+v (votes %s), %v; it ignored %q", name, ans, votesOf(ans), err, m.ignoredList())
		}
	}
	_, _ = x, y
}
