package ntfy

import (
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// A machine that knows a request's --key alone, and the fleet's secret,
// unmasks the request's identity from its record and verifies its claim;
// another key, or another fleet, unmasks nothing that verifies.
func TestTheKeyAloneFindsTheRequest(t *testing.T) {
	key, other := make([]byte, 32), make([]byte, 32)
	other[0] = 1
	r := dialog.Request{Title: "Deploy", Message: "Ship?", Key: "deploy-1", Approvers: []string{"Alice", "Bob"}, Approvals: 2}
	m := message{Time: 1000, Message: openBody(key, r.Identity(), fleetContent(r), "0123456789abcdef", 2000, r.Key)}
	f, _ := fields(m.Message)
	identity, ok := unmaskWho(key, "deploy-1", f["req"], f["who"])
	if !ok || identity != r.Identity() {
		t.Fatalf("the key unmasks %q, want the request's identity", identity)
	}
	if rec, ok := readClaim(key, identity, m); !ok || rec.id != "0123456789abcdef" || rec.closes != 2000 || rec.at != 1000 {
		t.Fatalf("the claim reads as %+v %v", rec, ok)
	}
	for name, k := range map[string][]byte{"another key": key, "another fleet": other} {
		rkey := "deploy-1"
		if name == "another key" {
			rkey = "deploy-2"
		}
		if id, ok := unmaskWho(k, rkey, f["req"], f["who"]); ok {
			if _, verified := readClaim(k, id, m); verified {
				t.Errorf("%s unmasks a claim that verifies", name)
			}
		}
	}
	if keyOnlyTag(key, "deploy-1") == keyOnlyTag(key, "deploy-2") || keyOnlyTag(key, "deploy-1") == keyOnlyTag(other, "deploy-1") {
		t.Error("two keys, or two fleets, share a key's tag")
	}
}

// Of claims of one key with different messages, still open, the last in
// the server's order is the newest question: the machine whose claim it
// is asks, the others end superseded; claims of the same message as the
// newest's join it; an ended or answered claim, or one that closed, is
// none.
func TestNewestIsTheLastOpenClaim(t *testing.T) {
	key := make([]byte, 32)
	ask := func(msg string) dialog.Request {
		return dialog.Request{Title: "Deploy", Message: msg, Key: "deploy-matrix"}
	}
	claim := func(r dialog.Request, id string, at, closes int64) message {
		return message{Time: at, Message: openBody(key, r.Identity(), fleetContent(r), id, closes, r.Key)}
	}
	eu, us, ap := ask("Deploy to eu?"), ask("Deploy to us?"), ask("Deploy to ap?")
	q := func(r dialog.Request, id string) *question { return newQuestion(key, r, nil, id, 5000) }
	ms := []message{claim(eu, "eu", 100, 5000), claim(us, "us", 100, 5000), claim(ap, "ap", 100, 5000)}
	for _, tc := range []struct {
		r      dialog.Request
		id     string
		newest bool
		others int
	}{{eu, "eu", false, 2}, {us, "us", false, 2}, {ap, "ap", true, 2}} {
		if newest, others := newest(q(tc.r, tc.id), ms); newest != tc.newest || len(others) != tc.others {
			t.Errorf("%s: newest %v with %d others, want %v with %d", tc.id, newest, len(others), tc.newest, tc.others)
		}
	}
	// A second eu claim, stored last: eu is the newest question, and
	// both eu machines are of it.
	more := append(ms, claim(eu, "eu2", 100, 5000))
	if newest, _ := newest(q(eu, "eu"), more); !newest {
		t.Error("the first eu claim is not of the newest question")
	}
	if newest, _ := newest(q(ap, "ap"), more); newest {
		t.Error("ap is the newest though an eu claim came after it")
	}
	// The last claim closed before ap's was stamped, or was superseded:
	// ap is the newest.
	closed := append(ms, claim(us, "us2", 101, 100))
	if newest, _ := newest(q(ap, "ap"), closed); !newest {
		t.Error("a claim that closed before counts as open")
	}
	ended := append(ms, claim(us, "us2", 101, 5000), message{Time: 101, Message: recordBody(key, us.Identity(), "us2", recSupersede)})
	if newest, _ := newest(q(ap, "ap"), ended); !newest {
		t.Error("a superseded claim counts as open")
	}
}

// A person revoked after a request was put on the phones counts for
// nothing on it, whenever their taps are dated; on a request put on the
// phones after the revocation (the person added again), they count.
func TestRevokedVotesCountForNothing(t *testing.T) {
	r := confirmRequest("Migrate?")
	people := []person{{name: "Alice"}, {name: "Bob"}, {name: "Carol"}}
	bs, err := newButtons(r, people)
	if err != nil {
		t.Fatal(err)
	}
	approve := func(name string, at int64) tapped {
		for _, bt := range bs {
			if bt.by == name && bt.choice == "approve" {
				return tapped{bt: bt, at: at}
			}
		}
		t.Fatalf("no button of %s", name)
		return tapped{}
	}
	taps := []tapped{approve("Bob", 10), approve("Carol", 20)}
	for _, tc := range []struct {
		name    string
		asked   int64
		revoked map[string]int64
		decided bool
	}{
		{"none revoked", 5, nil, true},
		{"Bob revoked after it was asked", 5, map[string]int64{voterID("Bob"): 15}, false},
		{"Bob revoked in the second it was asked", 5, map[string]int64{voterID("bob"): 5}, false},
		{"Bob revoked before it was asked", 8, map[string]int64{voterID("Bob"): 7}, true},
		{"asked at an unknown time", 0, map[string]int64{voterID("Bob"): 7}, false},
	} {
		q := &question{buttons: bs, people: people, approvals: 2, revoked: tc.revoked, askedAt: tc.asked}
		bt, votes := q.tally(taps)
		if (bt != nil) != tc.decided {
			t.Errorf("%s: decided %v (%+v), want %v", tc.name, bt != nil, votes, tc.decided)
		}
		if !tc.decided && (len(votes) != 1 || votes[0].By != "Carol") {
			t.Errorf("%s: votes %+v, want Carol's alone", tc.name, votes)
		}
	}
}
