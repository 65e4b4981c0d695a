package ntfy

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// A request of several approvers (dialog.Request.Approvers) is a vote.
// Each person gets a message of their own, on their own topic, with
// buttons of their own: capabilities made for them, and a MAC that names
// them, so that a tap counts once, for the person it was sent to. Their
// buttons write the one reply topic, as any request's do, with who the
// person is (voter=V, voterID of their name: not their place among the
// approvers, which two machines' copies of a setup may list in other
// orders):
//
//	a vote:  req=ID voter=V cap=CAPABILITY mac=MAC(identity, ID, choice, closes, person)
//
// and a vote given on a machine (a click in the local dialog, as the
// person set up under the local user's name) is the fleet's record of an
// answer, with the person's voter and MAC (rec=answer ... voter=V).
//
// The votes decide the request, whoever reads them, in whatever order
// they came (tally): a person's taps of one button count once, two
// different ones are their deny; the request is approved once Approvals
// different people approved, and denied by any deny. The approvals of one
// second are read together.

// person is one of a vote's approvers: their name as the setup spells it,
// and the topic their phone reads.
type person struct {
	name, topic string
}

// voters are the people r asks, with their topics in c; nil for a
// request of one person, who is asked on c.Topic.
func voters(c remote.Config, r dialog.Request) ([]person, error) {
	if len(r.Approvers) == 0 {
		return nil, nil
	}
	var ps []person
	for _, name := range r.Approvers {
		p, ok := c.Person(name)
		if !ok {
			return nil, &unknownApprover{name}
		}
		ps = append(ps, person{name: p.Name, topic: p.Topic})
	}
	return ps, nil
}

type unknownApprover struct{ name string }

func (e *unknownApprover) Error() string {
	return "no phone is set up for " + strconv.Quote(e.name) + " (ask-confirm remote approver list)"
}

// voting reports whether q is a vote of several approvers.
func (q *question) voting() bool { return len(q.people) > 0 }

// personButtons makes each person's own buttons, from template: the same
// choices and labels, a capability each.
func personButtons(people []person, template []*button) []*button {
	var bs []*button
	for i, p := range people {
		for _, t := range template {
			bs = append(bs, &button{choice: t.choice, label: t.label, by: p.name, voter: i})
		}
	}
	return bs
}

// voterField is the voter=V a person's button sends, or "" for a request
// of one person.
func (bt *button) voterField() string {
	if bt.by == "" {
		return ""
	}
	return " voter=" + voterID(bt.by)
}

// voterID names the person called name on the reply topic, whatever
// their place in a machine's copy of the setup: the first 48 bits of a
// SHA-256 of the name, without regard to case, as --approvers compares
// names (a name may hold spaces, which a field may not).
func voterID(name string) string {
	h := sha256.Sum256([]byte("ask-confirm/2 voter\x00" + strings.ToLower(name)))
	return hex.EncodeToString(h[:6])
}

// sameVoter reports whether f, a reply's fields, names bt's person where
// bt is a person's: a capability or a MAC presented under another
// person's name is no vote.
func sameVoter(f map[string]string, bt *button) bool {
	return bt.by == "" && f["voter"] == "" || bt.by != "" && f["voter"] == voterID(bt.by)
}

// revocationsWithin bounds the read of the fleet's revocations as a vote
// is counted: where it takes longer, those read before count.
const revocationsWithin = 2 * time.Second

// ignoredAsAnother is why a person's button presented as another's is
// ignored; ignoredAgain why a person's second vote is.
const ignoredAsAnother = "a vote whose button is one person's, presented as another's (forged, or replayed)"

func ignoredAgain(name string) string {
	return "a second vote by " + name + ", the same as their first: it counts once"
}

// tally is what the taps of a vote decide, as every machine reads them,
// whenever, in whatever order (outcome says why a tap's time cannot order
// it): each person's vote is the button all their taps name, and a deny
// where two of them differ; a deny, whenever it came, denies; else the
// approvals decide once there are enough of them, in the order of their
// times, each second's read together. A person revoked since the request
// was asked counts for nothing (revokedIn). It returns the outcome (a button
// standing for it, with the votes that decided it, denies first) or nil
// while undecided, and the votes counted.
func (q *question) tally(taps []tapped) (*button, []dialog.Vote) {
	taps = q.notRevoked(taps)
	first := map[string]tapped{}
	for _, t := range taps {
		if t.bt.by == "" {
			continue
		}
		f, ok := first[t.bt.by]
		switch {
		case !ok:
			first[t.bt.by] = t
			continue
		case t.bt.choice != f.bt.choice && f.bt.choice != "deny":
			// Their deny, as of the tap that differs, the later.
			f.bt = &button{choice: "deny", by: f.bt.by, voter: f.bt.voter}
			f.at = max(f.at, t.at)
		case t.bt.choice == f.bt.choice:
			f.at = min(f.at, t.at)
		}
		first[t.bt.by] = f
	}
	var ts []tapped
	for _, t := range first {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b tapped) int {
		// Denies first: the votes then read, in their order, as they
		// decide (dialog.Voted).
		return cmp.Or(cmp.Compare(denies(b.bt), denies(a.bt)), cmp.Compare(a.at, b.at), cmp.Compare(strings.ToLower(a.bt.by), strings.ToLower(b.bt.by)))
	})
	var votes []dialog.Vote
	for _, t := range ts {
		v := dialog.Vote{By: t.bt.by, Approved: t.bt.choice != "deny", At: time.Unix(t.at, 0).UTC()}
		if t.bt.choice == "approve-for" {
			v.For = q.approveFor
		}
		votes = append(votes, v)
	}
	if len(ts) > 0 && denies(ts[0].bt) == 1 {
		return &button{choice: "deny", votes: votes}, votes
	}
	approvals, needed := 0, max(q.approvals, 1)
	var lowest time.Duration
	for i, v := range votes {
		if approvals == 0 || v.For < lowest {
			lowest = v.For
		}
		approvals++
		if i+1 < len(ts) && ts[i+1].at == ts[i].at {
			// The second's every vote is read before it decides.
			continue
		}
		if approvals >= needed {
			choice := "approve"
			if lowest > 0 {
				choice = "approve-for"
			}
			return &button{choice: choice, votes: votes[:i+1], forDur: lowest}, votes
		}
	}
	return nil, votes
}

func denies(bt *button) int {
	if bt.choice == "deny" {
		return 1
	}
	return 0
}

// decide is what taps give q: for a vote, its tally; for a request of one
// person, the outcome of its taps. Nil while undecided.
func (q *question) decide(taps []tapped) *button {
	if !q.voting() {
		return outcome(taps)
	}
	bt, _ := q.tally(taps)
	return bt
}

// votesText says how a vote ended: "Approved by Alice and Bob", "Denied
// by Carol".
func votesText(bt *button) string {
	var names []string
	for _, v := range bt.votes {
		if v.Approved == (bt.choice != "deny") {
			names = append(names, v.By)
		}
	}
	if bt.choice == "deny" {
		return "Denied by " + dialog.Names(names)
	}
	return "Approved by " + dialog.Names(names)
}

// progressOf matches a progressText: a follow-up that ends nothing.
var progressOf = regexp.MustCompile(`^.+( approved( for \S+)?|'s vote no longer counts \(removed from the setup\)); [0-9]+ of [0-9]+$`)

// removedText is the follow-up of a vote withdrawn, its person removed
// from the setup since the request was asked: "Bob's vote no longer counts
// (removed from the setup); 0 of 2".
func removedText(name string, votes []dialog.Vote, approvals int) string {
	return name + "'s vote no longer counts (removed from the setup); " + dialog.Progress(votes, approvals)
}

// progressText is the follow-up after a vote that did not decide: "Alice
// approved; 1 of 2".
func progressText(v dialog.Vote, votes []dialog.Vote, approvals int) string {
	what := " approved"
	if v.For > 0 {
		what += " for " + dialog.ShortDuration(v.For)
	}
	return v.By + what + "; " + dialog.Progress(votes, approvals)
}

// awaitVotes waits for the votes of q, a vote put on the phones or
// joined, until they decide it, or ctx ends, or the fleet ends it. Each
// person's first vote is told to Voted, and, where it does not decide,
// to every person's phone ("Alice approved; 1 of 2"). again says the
// request q joined ended without a decision, on the machine that asked
// it, and q is to be asked anew.
func (b *Backend) awaitVotes(ctx context.Context, cl client, r dialog.Request, q *question, sub *subscription, asked time.Time) (ans dialog.Answer, err error, again bool) {
	v := &votesSeen{told: map[string]bool{}}
	if q.joined() {
		// Votes given before the join were read as another request's.
		ended, taps, taken := b.votesOnRecord(ctx, cl, q)
		if ended != "" {
			return b.fleetEnded(ctx, cl, r, q, asked, ended, v)
		}
		// A vote decided before this machine asked, which its look-up
		// did not read (the server streams a tap before it stores it),
		// is collected by the look-up's rule, or else asked anew.
		if bt, _ := q.tally(taps); bt != nil {
			at, id := decidedBy(bt, taps)
			if !b.collects(ctx, sub, at, id, taken) {
				return b.fleetEnded(ctx, cl, r, q, asked, recEnd, v)
			}
		}
		for _, t := range taps {
			if bt, done := b.count(cl, r, q, v, t); done {
				return b.decided(ctx, cl, r, q, asked, v, bt), nil, false
			}
		}
	}
	for {
		var t tapped
		select {
		case rp := <-sub.replies:
			switch {
			case ctx.Err() != nil:
				b.tellWhenClosed(ctx, cl, r, q, asked, ending{progress: v.progress(q)})
				return dialog.Answer{}, ctx.Err(), false
			case rp.ended != "":
				return b.fleetEnded(ctx, cl, r, q, asked, rp.ended, v)
			case rp.err != nil:
				return dialog.Answer{}, rp.err, false
			}
			t = tapped{bt: rp.b, at: rp.at, recorded: rp.elsewhere}
		case vote := <-b.Votes:
			var ok bool
			if t, ok = b.localVote(cl, q, vote); !ok {
				continue
			}
		case <-ctx.Done():
			// A vote given here as the request closed (a deny in the
			// dialog, which ends it here at once) still counts, and
			// reaches the fleet.
			for more := true; more; {
				select {
				case vote := <-b.Votes:
					if t, ok := b.localVote(cl, q, vote); ok {
						b.count(cl, r, q, v, t)
					}
				default:
					more = false
				}
			}
			e := ending{progress: v.progress(q)}
			if bt, _ := q.tally(v.taps); bt != nil {
				e = ending{tapped: tappedText(bt, false), byRecord: true}
			}
			b.tellWhenClosed(ctx, cl, r, q, asked, e)
			return dialog.Answer{}, ctx.Err(), false
		}
		if bt, done := b.count(cl, r, q, v, t); done {
			return b.decided(ctx, cl, r, q, asked, v, bt), nil, false
		}
	}
}

// votesSeen are the taps a vote's waiting has counted, and whose votes
// were told (to Voted, and to the phones).
type votesSeen struct {
	taps []tapped
	told map[string]bool
	// removed are the people whose votes were told, then voided by
	// their removal from the setup (revoke.go).
	removed map[string]bool
}

// progress is where the votes seen stand: "1 of 2".
func (v *votesSeen) progress(q *question) string {
	_, votes := q.tally(v.taps)
	return dialog.Progress(votes, q.approvals)
}

// count takes t, a verified tap of one of q's people, and reports what the
// taps so far decide. A person's tap of the button they tapped before is
// told to Ignored, and changes nothing; a different one makes their vote a
// deny (tally). Each person's vote is told to Voted, and, where it does not
// decide, to the phones.
func (b *Backend) count(cl client, r dialog.Request, q *question, v *votesSeen, t tapped) (*button, bool) {
	// A person removed from the setup since: their taps, this one and
	// those counted before, count for nothing from now on (tally).
	rctx, cancel := context.WithTimeout(context.Background(), revocationsWithin)
	b.withRevocations(rctx, cl, q)
	cancel()
	for _, seen := range v.taps {
		// A vote told before, of a person removed since: it is told
		// again, as no vote.
		if by := seen.bt.by; len(q.notRevoked([]tapped{seen})) == 0 && !v.removed[by] {
			if v.removed == nil {
				v.removed = map[string]bool{}
			}
			v.removed[by] = true
			if b.Voted != nil {
				b.Voted(dialog.Vote{By: by, Removed: true, At: b.now().UTC()})
			}
			b.tellRemoved(cl, q, r, by, v)
		}
	}
	if len(q.notRevoked([]tapped{t})) == 0 {
		b.ignored(ignoredRevoked(t.bt.by))
		return nil, false
	}
	for _, seen := range v.taps {
		switch {
		case seen.bt == t.bt && t.recorded && seen.recorded:
			// A vote given here, counted at once, back from the fleet's
			// record.
			return nil, false
		case seen.bt == t.bt:
			b.ignored(ignoredAgain(t.bt.by))
			return nil, false
		}
	}
	v.taps = append(v.taps, t)
	decision, votes := q.tally(v.taps)
	for _, vote := range votes {
		// A person's vote is told again where it changed: two
		// different buttons are their deny.
		said := vote.By + map[bool]string{true: "+", false: "-"}[vote.Approved]
		if v.told[said] {
			continue
		}
		v.told[said] = true
		if b.Voted != nil {
			b.Voted(vote)
		}
		if decision == nil {
			b.tellProgress(cl, q, r, vote, votes)
		}
	}
	return decision, decision != nil
}

// decided returns the answer of a vote that bt, its votes' outcome,
// decided: as every machine reads it, once the second of the deciding
// vote is over (settleVotes); and has the phones told.
func (b *Backend) decided(ctx context.Context, cl client, r dialog.Request, q *question, asked time.Time, v *votesSeen, bt *button) dialog.Answer {
	final := b.settleVotes(ctx, cl, q, v.taps, bt)
	b.took(cl, q)
	b.tellWhenClosed(ctx, cl, r, q, asked, ending{tapped: tappedText(final, false), byRecord: true})
	return answerFor(r, final)
}

// settleVotes returns what a vote's taps decide, as every machine reads
// them: once the second of bt's deciding vote is over, from a poll of the
// request's taps beside those seen. Without a fleet, or where the poll
// fails, it is bt.
func (b *Backend) settleVotes(ctx context.Context, cl client, q *question, seen []tapped, bt *button) *button {
	if q.key == nil {
		return bt
	}
	ms, ok := b.afterTheSecond(ctx, cl, q, "all")
	if !ok {
		return bt
	}
	b.withRevocations(ctx, cl, q)
	if final, _ := q.tally(append(q.allTaps(ms), seen...)); final != nil {
		return final
	}
	return bt
}

// fleetEnded ends a vote the fleet's record ended: cancelled or
// superseded on another machine, or, for a request q joined, left by its
// asker, which asks it anew.
func (b *Backend) fleetEnded(ctx context.Context, cl client, r dialog.Request, q *question, asked time.Time, ended string, v *votesSeen) (dialog.Answer, error, bool) {
	if ended == recCancel || ended == recSupersede {
		b.tellWhenClosed(ctx, cl, r, q, asked, ending{fleet: ended})
		return dialog.Answer{}, &remote.EndedError{Status: map[string]string{recCancel: remote.EndedCancelled, recSupersede: remote.EndedSuperseded}[ended]}, false
	}
	fresh, err := newRequestID()
	if err != nil {
		return dialog.Answer{}, err, false
	}
	q.leave(fresh)
	return dialog.Answer{}, nil, true
}

// votesOnRecord reads the fleet's record of the request q joined: how it
// ended without a decision, if it did, its verified taps, and whether a
// machine took its outcome (as lookUp reads it).
func (b *Backend) votesOnRecord(ctx context.Context, cl client, q *question) (string, []tapped, bool) {
	ms, err := b.pollRecord(ctx, cl, q, "all")
	if err != nil {
		return "", nil, false
	}
	b.withRevocations(ctx, cl, q)
	id, closes, _ := q.current()
	if ended := endingIn(q, id, ms); ended != "" {
		return ended, nil, false
	}
	taps := q.taps(ms, closes)
	slices.SortStableFunc(taps, func(a, b tapped) int { return cmp.Compare(a.at, b.at) })
	taken := takenIn(q, id, taps, ms)
	return "", taps, taken
}

// localVote takes vote, given on this machine by one of q's people (the
// local dialog's click), as their tap here and now, by this machine's
// clock, and, for a fleet, records it as the person's answer on the reply
// topic, from which every other machine counts it, by the server's clock.
// ok is false for a vote of a person who is not one of q's.
func (b *Backend) localVote(cl client, q *question, vote dialog.Vote) (t tapped, ok bool) {
	bt := q.personButton(vote)
	if bt == nil {
		b.ignored("a vote given on this machine for " + strconv.Quote(vote.By) + ", who is not one of this request's approvers")
		return tapped{}, false
	}
	if q.key != nil {
		id, closes, _ := q.current()
		b.followUps.Add(1)
		go func() {
			defer b.followUps.Done()
			b.publishRecord(cl, q, answerBody(q, id, closes, bt), "answer")
		}()
	}
	return tapped{bt: bt, at: b.now().Unix(), recorded: true}, true
}

// personButton is the button of vote's person that stands for its
// answer, or nil where the person is not one of q's.
func (q *question) personButton(vote dialog.Vote) *button {
	choice := "deny"
	switch {
	case vote.Approved && vote.For > 0:
		choice = "approve-for"
	case vote.Approved:
		choice = "approve"
	}
	for _, bt := range q.buttons {
		if bt.by != "" && strings.EqualFold(bt.by, vote.By) && bt.choice == choice {
			return bt
		}
	}
	return nil
}

// tellRemoved tells every person's phone that the vote of name, counted
// before, is withdrawn (revoke.go), and where the votes stand now. For a
// fleet, once.
func (b *Backend) tellRemoved(cl client, q *question, r dialog.Request, name string, v *votesSeen) {
	_, votes := q.tally(v.taps)
	b.tellVoters(cl, q, r, removedText(name, votes, q.approvals), "-removed-"+voterID(name))
}

// tellProgress tells every person's phone of vote, which did not decide
// the vote: "Alice approved; 1 of 2". For a fleet, once (tellOnce).
func (b *Backend) tellProgress(cl client, q *question, r dialog.Request, vote dialog.Vote, votes []dialog.Vote) {
	b.tellVoters(cl, q, r, progressText(vote, votes, q.approvals), "-"+voterID(vote.By))
}

// tellVoters sends text, a follow-up that ends nothing, to every person's
// phone, without waiting; for a fleet, once fleet-wide, its told records
// under the request's id and suffix.
func (b *Backend) tellVoters(cl client, q *question, r dialog.Request, text, suffix string) {
	owner := !q.joined()
	id, _, _ := q.current()
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		if q.key == nil {
			b.followUp(cl, q, r, text)
			return
		}
		b.tellOnceAs(cl, q, r, text, owner, id+suffix)
	}()
}
