package lifecycle

import (
	"errors"
	"fmt"
	"os/user"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// A yes/no question may need several people, each asked on a phone of
// their own (dialog.Request.Approvers): it is approved once Approvals of
// them approved, and denied as soon as one of them denied. The phone's
// program keeps the tally; the engine names the people, records each vote
// as it counts, and, where the person set up under this machine's user's
// name is one of them, counts the dialog here as that person's vote.

// withApprovers returns c with its request's approvers resolved against
// the people set up (remote.Config.People), as its identity must be
// before anything looks for it: every person set up, where more than one
// is and the call named nobody; the names the call gave, matched without
// case, in the setup's spelling and order; and Approvals 1 where the call
// gave none. A call that named nobody, with one person set up (or none,
// or the phone off, or a setup that cannot be read), or that is one
// person's (Call.OnePerson), is returned as it is: a request of one
// person, as before named approvers. A call that named approvers (or
// approvals) that cannot be asked so is refused: where no phone can be
// asked, where the setup names nobody, or a name nobody is set up under
// (exit 2, with a hint), or where the setup cannot be read (exit 6). A
// choice or a text is left to Validate, which refuses approvers on it.
func (e *Engine) withApprovers(c Call) (Call, *Result) {
	r := c.Request
	named := len(r.Approvers) > 0 || r.Approvals != 0
	if r.Kind != dialog.Confirm || c.OnePerson && !named {
		return c, nil
	}
	refuse := func(code ExitCode, hint, format string, args ...any) (Call, *Result) {
		res := ErrorResult(r.Identity(), code, fmt.Errorf(format, args...))
		res.Hint = hint
		return c, &res
	}
	if c.Remote == remote.ModeOff {
		if named {
			return refuse(ExitUsage, hintApproversRemote, msgApproversRemoteOff)
		}
		return c, nil
	}
	s, err := e.loadRemote()
	switch {
	case err != nil && !named:
		// One person, as far as can be told: phoneFor says what is wrong
		// with the settings, where it matters.
		return c, nil
	case errors.Is(err, remote.ErrNotConfigured):
		return refuse(ExitUsage, hintApproversSetup, msgApproversNoSetup)
	case err != nil:
		return refuse(ExitFailed, "", msgApproversUnread, err)
	case (c.Remote == "" && s.Mode == remote.ModeOff) && named:
		return refuse(ExitUsage, hintApproversRemote, msgApproversModeOff)
	case c.Remote == "" && s.Mode == remote.ModeOff, !named && len(s.Approvers) == 0:
		return c, nil
	}
	people := s.People()
	var names []string
	if len(r.Approvers) == 0 {
		for _, p := range people {
			if p.Name == "" {
				return refuse(ExitUsage, hintApproversName, msgApproversUnnamed)
			}
			names = append(names, p.Name)
		}
	} else {
		for _, given := range r.Approvers {
			p, ok := s.Person(strings.TrimSpace(given))
			if !ok {
				return refuse(ExitUsage, hintApproversList, msgApproverUnknown, given, setUpNames(people))
			}
			names = append(names, p.Name)
		}
		// In the order of the setup, which every machine of a fleet
		// shares; a name given twice stays twice, for Validate to refuse.
		slices.SortStableFunc(names, func(a, b string) int { return personIndex(people, a) - personIndex(people, b) })
	}
	c.Request.Approvers = names
	if c.Request.Approvals == 0 {
		c.Request.Approvals = 1
	}
	return c, nil
}

func personIndex(people []remote.Approver, name string) int {
	return slices.IndexFunc(people, func(p remote.Approver) bool { return p.Name == name })
}

// setUpNames lists the people set up, for an error: "alice, bob and
// carol", or a word that says nobody is named.
func setUpNames(people []remote.Approver) string {
	var names []string
	for _, p := range people {
		if p.Name != "" {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return msgNobodyNamed
	}
	return dialog.Names(names)
}

// phoneForApprovers is phoneFor for c, a request of several approvers,
// who are reached on their phones alone: the phone is asked whatever the
// mode says (a gate of two people never becomes one click because a
// dialog can be shown here), and a phone that cannot be asked refuses the
// request, whatever --if-headless says. Beside the phone, this machine
// asks only where its user is one of the approvers (the person set up
// under their name, as remote setup recorded it), and by a dialog or on
// its terminal, never through a Channel another program answers (an MCP
// client's form): then their answer here counts as their vote (ballot).
// note says why this machine does not ask, where it does not.
func (e *Engine) phoneForApprovers(c Call, here bool) (way string, refusal *Result, note string) {
	s, err := e.loadRemote()
	if err == nil {
		err = remote.Fits(c.Request)
	}
	if err != nil {
		r := ErrorResult(c.Request.Identity(), ExitFailed, fmt.Errorf(msgApproversNoPhone, err))
		if errors.Is(err, remote.ErrNotConfigured) || errors.Is(err, remote.ErrNotForPhone) {
			r.ExitCode, r.Hint = ExitUsage, hintApproversSetup
		}
		return phoneNo, &r, ""
	}
	switch {
	case !here:
		return phoneOnly, nil, ""
	case c.Remote == remote.ModeOnly || c.Remote == "" && s.Mode == remote.ModeOnly:
		return phoneOnly, nil, ""
	case c.Channel != nil && !c.Channel.Attached:
		return phoneOnly, nil, fmt.Sprintf(msgNoVoteThrough, c.Channel.Name)
	}
	if _, ok := e.localApprover(s.Config, c.Request.Approvers); !ok {
		return phoneOnly, nil, fmt.Sprintf(msgNotAnApprover, e.localNames(), dialog.Names(c.Request.Approvers))
	}
	return phoneAlso, nil, ""
}

// localApprover returns the name, as c spells it, of the person set up
// under the name of this machine's user (Config.LocalUser), and whether
// that person is one of approvers.
func (e *Engine) localApprover(c remote.Config, approvers []string) (string, bool) {
	for _, n := range e.localUser() {
		if p, ok := c.Person(n); ok {
			return p.Name, slices.Contains(approvers, p.Name)
		}
	}
	return "", false
}

// localNames says who this machine's user is, for a note: their login
// name, or "this machine's user" where it cannot be told.
func (e *Engine) localNames() string {
	if names := e.localUser(); len(names) > 0 {
		return names[0]
	}
	return msgUnknownUser
}

// osUser is the real Config.LocalUser: the login name (without a Windows
// domain), then the full name where it differs.
func osUser() []string {
	u, err := user.Current()
	if err != nil {
		return nil
	}
	login := u.Username
	if i := strings.LastIndexByte(login, '\\'); i >= 0 {
		login = login[i+1:]
	}
	names := []string{login}
	if u.Name != "" && u.Name != login {
		names = append(names, u.Name)
	}
	return names
}

// ballot is how a request of several approvers counts the answer given
// here: as the vote of the person set up under this machine's user's
// name (by), given on the way named way, which the phone (voter) counts
// as that person's tap, and which is recorded as it is cast (record).
type ballot struct {
	way    string
	by     string
	voter  dialog.Voter
	record func(dialog.Vote)
}

// cast counts rp, the answer of b's way, as b's person's vote: it is
// recorded and handed to the phone. It reports whether the request goes
// on: after an approval, which the phone's tally decides with the other
// votes; a deny decides at once, and rp, then the request's outcome,
// carries the vote.
func (b *ballot) cast(rp *reply, now time.Time) (goesOn bool) {
	v := dialog.Vote{By: b.by, Approved: rp.Approved, For: rp.For, At: now}
	b.record(v)
	b.voter.Vote(v)
	if v.Approved {
		return true
	}
	rp.Votes = []dialog.Vote{v}
	return false
}

// ballotFor returns the ballot of a request of several approvers asked
// also here (req), whose way here is named own and whose phone is phone;
// or why this machine cannot count a vote after all (its user is no
// longer one of the approvers, or the phone takes no vote given here), in
// which case the way here must not ask.
func (e *Engine) ballotFor(c remote.Config, req dialog.Request, own string, phone dialog.Backend, record func(dialog.Vote)) (*ballot, error) {
	voter, ok := phone.(dialog.Voter)
	if !ok {
		return nil, errors.New(msgNoVoter)
	}
	by, ok := e.localApprover(c, req.Approvers)
	if !ok {
		return nil, fmt.Errorf(msgNotAnApprover, e.localNames(), dialog.Names(req.Approvers))
	}
	return &ballot{way: own, by: by, voter: voter, record: record}, nil
}

// voteNote is what the dialog here says under the question of a request
// of several approvers: whose vote a click is, and how many are needed.
func voteNote(by string, req dialog.Request) string {
	return fmt.Sprintf(msgVoteNote, by, req.Approvals, len(req.Approvers))
}

// voteLog records the votes of one request of several approvers as they
// count, in the order they came: each in the record (once per person:
// a second vote counts for nothing) and as a vote event in the history.
// add never blocks, as PhoneReports.Voted must not: a goroutine writes.
type voteLog struct {
	e       *Engine
	rec     store.Record
	mu      sync.Mutex
	pending []dialog.Vote
	wake    chan struct{}
	stopped chan struct{}
	done    chan struct{}
	once    sync.Once
}

// logVotes starts the vote log of rec's request, req, where it is asked
// of several approvers; nil otherwise, which logs nothing.
func (e *Engine) logVotes(rec store.Record, req dialog.Request) *voteLog {
	if len(req.Approvers) == 0 {
		return nil
	}
	l := &voteLog{e: e, rec: rec, wake: make(chan struct{}, 1), stopped: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

// voted is what the phone tells of each vote: nil for a request of one
// person.
func (l *voteLog) voted() func(dialog.Vote) {
	if l == nil {
		return nil
	}
	return l.add
}

func (l *voteLog) add(v dialog.Vote) {
	l.mu.Lock()
	l.pending = append(l.pending, v)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stop writes the votes added so far and ends the log: called before the
// request's end is recorded, so that every vote is on record before it.
func (l *voteLog) stop() {
	if l == nil {
		return
	}
	l.once.Do(func() { close(l.stopped) })
	<-l.done
}

func (l *voteLog) run() {
	defer close(l.done)
	for {
		select {
		case <-l.wake:
			l.write()
		case <-l.stopped:
			l.write()
			return
		}
	}
}

func (l *voteLog) write() {
	l.mu.Lock()
	votes := l.pending
	l.pending = nil
	l.mu.Unlock()
	for _, v := range votes {
		l.e.recordVote(l.rec, v)
	}
}

// recordVote adds v to the record of rec's request, while it is open and
// v's person has not voted, and then to the history.
func (e *Engine) recordVote(rec store.Record, v dialog.Vote) {
	if v.Removed {
		e.removeVote(rec, v)
		return
	}
	wrote := false
	now, err := e.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != rec.ContentHash || r.Status.Final() || voted(r.Votes, v.By) {
			return false, nil
		}
		r.Votes = append(r.Votes, storeVote(v))
		wrote = true
		return true, nil
	})
	if err != nil {
		e.warn(fmt.Errorf(msgRecordVote, v.By, err))
		return
	}
	if wrote {
		e.logEventOrWarn("vote", now, voteWord(v.Approved), "", func(ev *store.Event) { ev.By, ev.VotedAt = v.By, v.At.UTC() })
	}
}

// removeVote drops the vote of v's person, removed from the setup since
// rec's request was asked, from its record while it is open, and says so
// in the history.
func (e *Engine) removeVote(rec store.Record, v dialog.Vote) {
	wrote := false
	now, err := e.store.Update(rec.Identity, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != rec.ContentHash || r.Status.Final() || !voted(r.Votes, v.By) {
			return false, nil
		}
		r.Votes = slices.DeleteFunc(r.Votes, func(x store.Vote) bool { return x.By == v.By })
		wrote = true
		return true, nil
	})
	if err != nil {
		e.warn(fmt.Errorf(msgRecordVote, v.By, err))
		return
	}
	if wrote {
		e.logEventOrWarn("vote", now, voteRemoved, msgVoteRemoved, func(ev *store.Event) { ev.By = v.By })
	}
}

// voteRemoved is the history's outcome of a vote that no longer counts,
// its person removed from the setup.
const voteRemoved = "removed"

// voted reports whether by has a vote among votes.
func voted(votes []store.Vote, by string) bool {
	return slices.ContainsFunc(votes, func(v store.Vote) bool { return v.By == by })
}

func storeVote(v dialog.Vote) store.Vote {
	return store.Vote{By: v.By, Approved: v.Approved, For: v.For, At: v.At}
}

// dialogVotes is votes as the ways of asking take them; nil for none.
func dialogVotes(votes []store.Vote) []dialog.Vote {
	var out []dialog.Vote
	for _, v := range votes {
		out = append(out, dialog.Vote{By: v.By, Approved: v.Approved, For: v.For, At: v.At})
	}
	return out
}

// mergeVotes is recorded with the votes of decided, the votes that
// decided the request, in place of a person's vote recorded before where
// it differs (a person's two different buttons are their deny), and after
// it where the person had none. It returns the votes it added or changed,
// which the history has yet to hold.
func mergeVotes(recorded []store.Vote, decided []dialog.Vote) (out []store.Vote, added []dialog.Vote) {
	out = slices.Clone(recorded)
	for _, v := range decided {
		i := slices.IndexFunc(out, func(r store.Vote) bool { return r.By == v.By })
		switch {
		case i < 0:
			out = append(out, storeVote(v))
		case out[i].Approved != v.Approved:
			out[i] = storeVote(v)
		default:
			continue
		}
		added = append(added, v)
	}
	return out, added
}

// historyVotes records votes, added to rec's request as it ended, in the
// history.
func (e *Engine) historyVotes(rec store.Record, votes []dialog.Vote) {
	for _, v := range votes {
		e.logEventOrWarn("vote", rec, voteWord(v.Approved), "", func(ev *store.Event) { ev.By, ev.VotedAt = v.By, v.At.UTC() })
	}
}

// voteWord is how a vote reads in the history's outcome: approved or
// denied.
func voteWord(approved bool) string {
	if approved {
		return string(store.Approved)
	}
	return string(store.Denied)
}

// tally returns who approved and who denied among votes, each person by
// their first vote, in the order they voted.
func tally(votes []store.Vote) (approvedBy, deniedBy []string) {
	seen := map[string]bool{}
	for _, v := range votes {
		if seen[v.By] {
			continue
		}
		seen[v.By] = true
		if v.Approved {
			approvedBy = append(approvedBy, v.By)
		} else {
			deniedBy = append(deniedBy, v.By)
		}
	}
	return approvedBy, deniedBy
}

// checkVotes reports an approval of a request of several approvers that
// its votes do not make: fewer approvals than it needs, a deny among
// them, or a vote by somebody not asked. The phone's program keeps the
// tally; the engine records no approval it cannot account for.
func checkVotes(req dialog.Request, ans dialog.Answer) error {
	for _, v := range ans.Votes {
		if !slices.Contains(req.Approvers, v.By) {
			return fmt.Errorf(msgBadAnswer, fmt.Sprintf("a vote by %q, who was not asked", v.By))
		}
	}
	if decided, approved := dialog.Voted(ans.Votes, req.Approvals); !decided || !approved {
		return fmt.Errorf(msgBadAnswer, fmt.Sprintf(msgVotesShort, dialog.Progress(ans.Votes, req.Approvals)))
	}
	return nil
}
