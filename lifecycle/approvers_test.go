//go:build unix

package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// setPeople records a phone setup of the people named, the first one's
// phone first (an empty first name: a setup without names), asked as
// mode says by default.
func (te *testEngine) setPeople(mode string, names ...string) {
	te.t.Helper()
	c := remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer", Name: names[0]}
	for _, n := range names[1:] {
		c.Approvers = append(c.Approvers, remote.Approver{Name: n, Topic: "requests-" + strings.ToLower(n)})
	}
	if err := remote.Save(te.remoteFile, remote.Settings{Config: c, Mode: mode}); err != nil {
		te.t.Fatal(err)
	}
}

// Who a yes/no question asks, resolved before its identity: everybody set
// up where several people are and the call names nobody; the names given,
// in the setup's spelling and order; nothing new with one person set up
// and no flags. What cannot be asked so is a usage error with a hint.
func TestWithApprovers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		people    []string // nil: no phone set up
		mode      string
		remote    string
		approvers []string
		approvals int
		kind      string
		onePerson bool
		want      []string
		wantN     int
		code      ExitCode // of a refusal
		hint      string   // in the refusal's hint
	}{
		{name: "no phone, no flags"},
		{name: "one person, no flags", people: []string{"alice"}, mode: "also"},
		{name: "one unnamed person, no flags", people: []string{""}, mode: "also"},
		{name: "three people, no flags: all of them, one approval", people: []string{"alice", "bob", "carol"}, mode: "also", want: []string{"alice", "bob", "carol"}, wantN: 1},
		{name: "three people, two approvals", people: []string{"alice", "bob", "carol"}, mode: "fallback", approvals: 2, want: []string{"alice", "bob", "carol"}, wantN: 2},
		{name: "names in any case and order", people: []string{"Alice", "Bob", "Carol"}, mode: "also", approvers: []string{"carol", " ALICE"}, want: []string{"Alice", "Carol"}, wantN: 1},
		{name: "one person, named", people: []string{"alice"}, mode: "only", approvers: []string{"Alice"}, want: []string{"alice"}, wantN: 1},
		{name: "a name twice stays for Validate", people: []string{"alice", "bob"}, mode: "also", approvers: []string{"bob", "alice", "Bob"}, want: []string{"alice", "bob", "bob"}, wantN: 1},
		{name: "several people, phone off by the call", people: []string{"alice", "bob"}, mode: "also", remote: "off"},
		{name: "several people, phone off by the setup", people: []string{"alice", "bob"}, mode: "off"},
		{name: "several people, a choice", people: []string{"alice", "bob"}, mode: "also", kind: dialog.Choose},
		{name: "several people, one person's question", people: []string{"alice", "bob"}, mode: "also", onePerson: true},
		{name: "one person's question, named", people: []string{"alice", "bob"}, mode: "also", onePerson: true, approvers: []string{"bob"}, want: []string{"bob"}, wantN: 1},
		{name: "named on a choice: Validate refuses", people: []string{"alice", "bob"}, mode: "also", kind: dialog.Choose, approvers: []string{"bob"}, want: []string{"bob"}},
		{name: "an unknown name", people: []string{"alice", "bob"}, mode: "also", approvers: []string{"dave"}, code: ExitUsage, hint: "remote approver list"},
		{name: "no phone, named", approvers: []string{"alice"}, code: ExitUsage, hint: "remote setup --name"},
		{name: "no phone, approvals", approvals: 2, code: ExitUsage, hint: "remote setup --name"},
		{name: "named, --remote off", people: []string{"alice", "bob"}, mode: "also", remote: "off", approvers: []string{"alice"}, code: ExitUsage, hint: "--remote also"},
		{name: "named, the setup's mode off", people: []string{"alice", "bob"}, mode: "off", approvals: 1, code: ExitUsage, hint: "--remote also"},
		{name: "named, the setup's mode off, --remote only", people: []string{"alice", "bob"}, mode: "off", remote: "only", approvals: 2, want: []string{"alice", "bob"}, wantN: 2},
		{name: "approvals, a setup without names", people: []string{""}, mode: "also", approvals: 1, code: ExitUsage, hint: "--name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			if tc.people != nil {
				te.setPeople(tc.mode, tc.people...)
			}
			c := testCall("Deploy?")
			c.Remote, c.OnePerson = tc.remote, tc.onePerson
			c.Request.Approvers, c.Request.Approvals = tc.approvers, tc.approvals
			if tc.kind == dialog.Choose {
				c.Request.Kind, c.Request.OKLabel = dialog.Choose, "OK"
				c.Request.Options = []dialog.Option{{Label: "a"}, {Label: "b"}}
			}
			got, refused := te.withApprovers(c)
			if tc.code != 0 {
				if refused == nil || refused.ExitCode != tc.code || !strings.Contains(refused.Hint, tc.hint) || refused.Message == "" {
					t.Fatalf("withApprovers = %+v, %+v; want exit %d with a hint saying %q", got.Request, refused, tc.code, tc.hint)
				}
				return
			}
			if refused != nil {
				t.Fatalf("refused: %+v", refused)
			}
			wantN := tc.wantN
			if tc.want == nil {
				wantN = tc.approvals
			}
			if !slices.Equal(got.Request.Approvers, tc.want) || got.Request.Approvals != wantN {
				t.Fatalf("approvers %q, approvals %d; want %q, %d", got.Request.Approvers, got.Request.Approvals, tc.want, wantN)
			}
			if tc.want == nil && got.Request.Identity() != c.Request.Identity() {
				t.Fatal("a request of one person changed its identity")
			}
		})
	}
}

// The approvers and the approvals needed are part of the identity, with
// a --key too, however the names were typed; with one person set up and
// no flags, the identity is the one it always was.
func TestApproversInTheIdentity(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Deploy?")
	c.Request.Key = "deploy-42"
	before := c.Request.Identity()
	te.setPeople("also", "alice")
	one, _ := te.withApprovers(c)
	if one.Request.Identity() != before {
		t.Fatal("one person set up changed the identity")
	}
	te.setPeople("also", "alice", "bob", "carol")
	all, _ := te.withApprovers(c)
	c.Request.Approvers = []string{"Carol", "bob", "ALICE"}
	typed, _ := te.withApprovers(c)
	c.Request.Approvals = 2
	two, _ := te.withApprovers(c)
	c.Request.Approvers = []string{"alice", "bob"}
	fewer, _ := te.withApprovers(c)
	ids := []string{before, all.Request.Identity(), two.Request.Identity(), fewer.Request.Identity()}
	if typed.Request.Identity() != ids[1] {
		t.Fatal("the same approvers typed otherwise are another request")
	}
	for i := range ids {
		for j := range i {
			if ids[i] == ids[j] {
				t.Fatalf("identities %d and %d are the same: %q", j, i, ids)
			}
		}
	}
}

// A request of several approvers is asked on their phones whatever the
// mode; here too only where this machine's user is one of them, by a
// dialog or the terminal, never through a form another program answers;
// and a phone that cannot ask refuses it, --if-headless or not.
func TestPhoneForApprovers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		user    string
		here    bool
		mode    string
		remote  string
		channel *Channel
		input   bool
		noPhone bool
		want    string
		note    string
		code    ExitCode
	}{
		{name: "an approver at a dialog", user: "bob", here: true, mode: "also", want: phoneAlso},
		{name: "an approver, fallback mode", user: "Bob", here: true, mode: "fallback", want: phoneAlso},
		{name: "an approver, by full name", user: "Bob", here: true, mode: "also", want: phoneAlso},
		{name: "an approver at a terminal", user: "bob", here: true, mode: "also", channel: &Channel{Name: "terminal", Attached: true}, want: phoneAlso},
		{name: "an approver through a client's form", user: "bob", here: true, mode: "also", channel: &Channel{Name: "elicitation", Always: true}, want: phoneOnly, note: "elicitation"},
		{name: "not an approver", user: "dave", here: true, mode: "also", want: phoneOnly, note: "dave is not one of the approvers"},
		{name: "nobody here", user: "bob", mode: "also", want: phoneOnly},
		{name: "only, by the setup", user: "bob", here: true, mode: "only", want: phoneOnly},
		{name: "only, by the call", user: "bob", here: true, mode: "also", remote: "only", want: phoneOnly},
		{name: "no phone", user: "bob", here: true, noPhone: true, code: ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			if !tc.noPhone {
				te.setPeople(tc.mode, "alice", "Bob", "carol")
			}
			te.localUser = func() []string { return []string{"login-" + tc.user, tc.user} }
			c := testCall("Deploy?")
			c.Request.Approvers, c.Request.Approvals = []string{"alice", "Bob"}, 2
			c.Remote, c.Channel = tc.remote, tc.channel
			c.IfHeadless = IfHeadlessApprove
			got, refused, note := te.phoneForApprovers(c, tc.here)
			if tc.code != 0 {
				if refused == nil || refused.ExitCode != tc.code || refused.Hint == "" {
					t.Fatalf("phoneForApprovers = %q, %+v; want exit %d with a hint", got, refused, tc.code)
				}
				return
			}
			if refused != nil || got != tc.want || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Fatalf("phoneForApprovers = %q, %+v, note %q; want %q, note saying %q", got, refused, note, tc.want, tc.note)
			}
		})
	}
}

// votingPhone is the phone of a request of several approvers: it takes
// votes given here (dialog.Voter), tells the engine of each vote as the
// real one does (reports.Voted), and answers what the test says.
type votingPhone struct {
	te      *testEngine
	reports chan PhoneReports
	asked   chan dialog.Request
	votes   chan dialog.Vote
	answers chan dialog.Answer
	causes  chan error
}

func newVotingPhone(te *testEngine) *votingPhone {
	p := &votingPhone{te: te, reports: make(chan PhoneReports, 4), asked: make(chan dialog.Request, 4),
		votes: make(chan dialog.Vote, 4), answers: make(chan dialog.Answer, 1), causes: make(chan error, 4)}
	te.phone = func(_ remote.Config, r PhoneReports) dialog.Backend { p.reports <- r; return p }
	return p
}

func (p *votingPhone) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	p.asked <- r
	select {
	case a := <-p.answers:
		p.te.advance(2 * time.Second)
		go func() { <-ctx.Done(); p.causes <- context.Cause(ctx) }()
		return a, nil
	case <-ctx.Done():
		p.causes <- context.Cause(ctx)
		return dialog.Answer{}, ctx.Err()
	}
}

func (p *votingPhone) Vote(v dialog.Vote) { p.votes <- v }

// told is what the phone was told once the request ended.
func (p *votingPhone) told(t *testing.T) string {
	t.Helper()
	select {
	case err := <-p.causes:
		var closed *dialog.Closed
		if !errors.As(err, &closed) {
			t.Fatalf("the phone was closed with %v, not a dialog.Closed", err)
		}
		return closed.What
	case <-time.After(10 * time.Second):
		t.Fatal("the phone was never closed")
		return ""
	}
}

// fakeDialog is the dialog shown here, answered as the test says, after
// as long as a person takes.
type fakeDialog struct {
	te      *testEngine
	asked   chan dialog.Request
	answers chan bool
}

func newFakeDialog(te *testEngine) *fakeDialog {
	return &fakeDialog{te: te, asked: make(chan dialog.Request, 4), answers: make(chan bool, 1)}
}

func (d *fakeDialog) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	d.asked <- r
	select {
	case approved := <-d.answers:
		d.te.advance(2 * time.Second)
		return dialog.Answer{Approved: approved}, nil
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
}

// holdInCall makes the holder this engine starts show its request by
// dialog through d in the starting goroutine, until the request ends: the
// caller's lock stays held meanwhile, as a detached holder's would.
func (te *testEngine) holdInCall(d dialog.Backend) {
	te.start = func(argv []string) error {
		return te.show(context.Background(), argv[2], argv[3], holding{backend: d})
	}
}

// approversCase sets up te for a request of alice and bob, asked here by
// dialog (d) beside their phones (the phone), with this machine's user
// set up as user, and returns the call.
func approversCase(t *testing.T, user string, approvals int) (*testEngine, *fakeDialog, *votingPhone, Call) {
	te := newTestEngine(t)
	te.setPeople("also", "alice", "bob")
	te.localUser = func() []string { return []string{user} }
	d, phone := newFakeDialog(te), newVotingPhone(te)
	te.holdInCall(d)
	c := testCall("Deploy v2?")
	c.Request.Approvals = approvals
	c.Wait = time.Minute
	// The holder's deadline is a real timer: the test clock starts now.
	te.clock.Store(time.Now().UnixNano())
	return te, d, phone, c
}

// waitFor polls until cond holds, or fails the test after a long while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// In also mode, a click in the dialog is the vote of the person set up
// under this machine's user's name, and the dialog says so. An approval
// there does not decide a request of two approvals: the request stays
// open, 1 of 2, until the phone's tally decides, here with Bob's vote.
// The record, the result and the history name each vote once.
func TestApproveHereAndOnePhoneApproveTwoOfTwo(t *testing.T) {
	te, d, phone, c := approversCase(t, "Alice", 2)
	var reports PhoneReports
	bob := dialog.Vote{By: "bob", Approved: true}
	go func() {
		req := <-d.asked
		if req.Note != "Your answer counts as alice's vote; 2 of 2 approvals needed" {
			t.Errorf("the dialog's note: %q", req.Note)
		}
		if shown, _ := req.Shown(dialog.Screen, time.Time{}, time.Time{}); !strings.Contains(shown, req.Note) {
			t.Errorf("the dialog shows %q", shown)
		}
		if r := <-phone.asked; r.Note != "" || !slices.Equal(r.Approvers, []string{"alice", "bob"}) || r.Approvals != 2 {
			t.Errorf("the phone was asked %+v", r)
		}
		reports = <-phone.reports
		d.answers <- true
	}()
	var done = make(chan Result, 1)
	go func() { done <- te.ask(c) }()
	alice := <-phone.votes
	if alice.By != "alice" || !alice.Approved {
		t.Fatalf("the vote given here: %+v", alice)
	}
	prepared, _ := te.withApprovers(c)
	id := prepared.Request.Identity()
	waitFor(t, "alice's vote on record", func() bool {
		rec, found, err := te.store.Get(id)
		return err == nil && found && len(rec.Votes) == 1
	})
	// Not the outcome: the request is still open, and says how far it is.
	rec := te.record(id)
	if rec.Status.Final() {
		t.Fatalf("one approval of two ended the request: %+v", rec)
	}
	st := te.statusOf(rec)
	if st.ExitCode != ExitPending || *st.Approvals != 1 || st.ApprovalsNeeded != 2 || !strings.Contains(st.Message, "1 of 2 approvals so far (alice approved)") {
		t.Fatalf("the open request's status: %+v", st)
	}
	// The phone's program counts alice's vote (and says so, again) and
	// Bob's, and its tally decides.
	reports.Voted(alice)
	bob.At = te.now()
	reports.Voted(bob)
	phone.answers <- dialog.Answer{Approved: true, Votes: []dialog.Vote{alice, bob}}
	r := <-done
	if r.ExitCode != ExitApproved || !slices.Equal(r.ApprovedBy, []string{"alice", "bob"}) || r.DeniedBy != nil || *r.Approvals != 2 || r.ApprovalsNeeded != 2 {
		t.Fatalf("2 of 2: %+v", r)
	}
	if len(r.Votes) != 2 || r.Votes[0].By != "alice" || r.Votes[0].Vote != VoteApprove || r.Votes[1].By != "bob" || !r.Votes[1].At.Equal(bob.At) {
		t.Fatalf("the votes: %+v", r.Votes)
	}
	if r.Message != "approved by alice and bob (2 of 2 approvals)" {
		t.Fatalf("the message: %q", r.Message)
	}
	if got := phone.told(t); got != "Approved by alice and bob on the phone" {
		t.Fatalf("the phone was told %q", got)
	}
	var votes []string
	events, _, _ := te.Events(0, r.Key)
	for _, ev := range events {
		switch ev.Event {
		case "vote":
			votes = append(votes, ev.By+" "+ev.Outcome)
		case "answered":
			if !slices.Equal(ev.ApprovedBy, []string{"alice", "bob"}) || !slices.Equal(ev.Approvers, []string{"alice", "bob"}) || ev.Approvals != 2 {
				t.Fatalf("the answered event: %+v", ev)
			}
		}
	}
	if !slices.Equal(votes, []string{"alice approved", "bob approved"}) {
		t.Fatalf("the history's votes: %q", votes)
	}
	js, _ := json.Marshal(r)
	for _, want := range []string{`"approved_by":["alice","bob"]`, `"approvals":2`, `"approvals_needed":2`, `"votes":[{"by":"alice","vote":"approve"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("--json lacks %s: %s", want, js)
		}
	}
}

// A deny in the dialog is its person's deny, which decides at once: the
// request ends denied by them, and the phone is given the vote and told.
func TestDenyHereDenies(t *testing.T) {
	te, d, phone, c := approversCase(t, "bob", 2)
	go func() { <-d.asked; <-phone.asked; <-phone.reports; d.answers <- false }()
	r := te.ask(c)
	if r.ExitCode != ExitDenied || !slices.Equal(r.DeniedBy, []string{"bob"}) || r.ApprovedBy != nil || r.Message != "denied by bob (0 of 2 approvals)" {
		t.Fatalf("a deny here: %+v", r)
	}
	if v := <-phone.votes; v.By != "bob" || v.Approved {
		t.Fatalf("the phone was given %+v", v)
	}
	if got := phone.told(t); got != "Already denied by bob in the dialog" {
		t.Fatalf("the phone was told %q", got)
	}
	if rec := te.record(r.Key); len(rec.Votes) != 1 || rec.Votes[0].By != "bob" || rec.Votes[0].Approved {
		t.Fatalf("the record's votes: %+v", rec.Votes)
	}
}

// Where this machine's user is not one of the approvers, no dialog is
// shown here: the request is asked on their phones only, and the history
// says why.
func TestNoDialogForANonApprover(t *testing.T) {
	te, d, phone, c := approversCase(t, "dave", 1)
	go func() {
		<-phone.asked
		phone.answers <- dialog.Answer{Approved: true, Votes: []dialog.Vote{{By: "alice", Approved: true}}}
	}()
	r := te.ask(c)
	if r.ExitCode != ExitApproved || !slices.Equal(r.ApprovedBy, []string{"alice"}) {
		t.Fatalf("approved on alice's phone: %+v", r)
	}
	select {
	case req := <-d.asked:
		t.Fatalf("a dialog was shown to a non-approver: %+v", req)
	default:
	}
	if rec := te.record(r.Key); rec.Phone != phoneOnly {
		t.Fatalf("asked on the phone as %q", rec.Phone)
	}
	events, _, _ := te.Events(0, r.Key)
	if len(events) == 0 || events[0].Event != "requested" || !strings.Contains(events[0].Reason, "dave is not one of the approvers (alice and bob)") {
		t.Fatalf("the history: %+v", events)
	}
}

// The engine records no approval of a request of several approvers that
// the phone's votes do not make: too few, or by somebody not asked.
func TestApprovalWithoutTheVotesFails(t *testing.T) {
	for name, votes := range map[string][]dialog.Vote{
		"no votes":       nil,
		"one of two":     {{By: "alice", Approved: true}},
		"a stranger":     {{By: "alice", Approved: true}, {By: "mallory", Approved: true}},
		"the same twice": {{By: "alice", Approved: true}, {By: "alice", Approved: true}},
	} {
		t.Run(name, func(t *testing.T) {
			te, _, phone, c := approversCase(t, "dave", 2)
			// A failure is shown again, and nobody would answer that.
			c.Retries = 0
			go func() { <-phone.asked; phone.answers <- dialog.Answer{Approved: true, Votes: votes} }()
			if r := te.ask(c); r.ExitCode != ExitFailed || !strings.Contains(r.Message, "does not answer the question") {
				t.Fatalf("an approval with votes %+v: %+v", votes, r)
			}
		})
	}
}

// What a result says of a request of several approvers, open or ended.
func TestVoteMessages(t *testing.T) {
	at := time.Unix(1e9, 0).UTC()
	alice, carol := store.Vote{By: "Alice", Approved: true, At: at}, store.Vote{By: "Carol", At: at}
	for _, tc := range []struct {
		status store.Status
		votes  []store.Vote
		want   string
	}{
		{store.Shown, nil, "pending: 0 of 2 approvals so far; run the same command again to collect the answer"},
		{store.Shown, []store.Vote{alice}, "pending: 1 of 2 approvals so far (Alice approved); run the same command again to collect the answer"},
		{store.Denied, []store.Vote{alice, carol}, "denied by Carol, though Alice approved: one deny decides"},
		{store.Expired, []store.Vote{alice}, "nobody answered before --timeout; this counts as a deny (1 of 2 approvals: Alice approved)"},
		{store.Cancelled, nil, "denied: the request was cancelled with ask-confirm cancel (0 of 2 approvals)"},
	} {
		rec := store.Record{Status: tc.status, Approvers: []string{"Alice", "Bob", "Carol"}, Approvals: 2, Votes: tc.votes, EndedAt: at}
		r := fromRecord(rec, false, at)
		if r.Message != tc.want || r.ApprovalsNeeded != 2 || *r.Approvals != min(len(tc.votes), 1) {
			t.Errorf("%s with %d votes: %q, %+v; want %q", tc.status, len(tc.votes), r.Message, r, tc.want)
		}
		if final := tc.status.Final(); final != (r.ApprovedBy != nil || r.DeniedBy != nil) && len(tc.votes) > 0 {
			t.Errorf("%s: approved_by %q, denied_by %q", tc.status, r.ApprovedBy, r.DeniedBy)
		}
	}
	// A request of one person says nothing of votes.
	if r := fromRecord(store.Record{Status: store.Approved}, false, at); r.Approvals != nil || r.Votes != nil || r.Message != msgApproved {
		t.Errorf("one person's approval: %+v", r)
	}
}

// status, history and list find a request of several approvers by its
// --key, though its identity is not the key's alone.
func TestKeyFindsARequestOfSeveralApprovers(t *testing.T) {
	te, _, phone, c := approversCase(t, "dave", 1)
	c.Request.Key = "deploy-42"
	go func() {
		<-phone.asked
		phone.answers <- dialog.Answer{Approved: true, Votes: []dialog.Vote{{By: "bob", Approved: true}}}
	}()
	r := te.ask(c)
	if r.ExitCode != ExitApproved {
		t.Fatalf("the request: %+v", r)
	}
	s, err := te.Find("deploy-42")
	if err != nil || s.Identity != r.Key {
		t.Fatalf("Find by --key: %+v, %v; want %s", s, err, r.Key)
	}
	events, _, err := te.Events(0, "deploy-42")
	if err != nil || len(events) < 3 {
		t.Fatalf("history by --key: %+v, %v", events, err)
	}
	for _, ev := range events {
		if ev.Identity != r.Key {
			t.Fatalf("history by --key holds another request's event: %+v", ev)
		}
	}
}

// The votes given in the second that decided a request reach the history
// as its record has them: Bob approves and Carol denies in one second,
// and the deny ends the request before Bob's vote is taken as it comes;
// the end brings both, and the history names every vote once, as the
// outcome and --json do. A person whose two taps differ is recorded as
// their deny, in place of the approval recorded before. On 3481494 the
// history missed the votes the end brought.
func TestVotesOfTheDecidingSecondAreInTheHistory(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Run the production migration?")
	c.Request.Approvers, c.Request.Approvals = []string{"alice", "bob", "carol", "dave"}, 2
	id, content := c.Request.Identity(), c.Request.ContentHash()
	rec, ok, err := te.spawn(c, nil, "", sighting{}, content, 1, "")
	if err != nil || !ok {
		t.Fatalf("spawn: %v %v", ok, err)
	}
	at := te.now()
	te.recordVote(rec, dialog.Vote{By: "alice", Approved: true, At: at})
	te.recordVote(rec, dialog.Vote{By: "dave", Approved: true, At: at})
	second := at.Add(time.Second)
	decided := []dialog.Vote{
		{By: "carol", At: second},
		{By: "dave", At: second},
		{By: "alice", Approved: true, At: at},
		{By: "bob", Approved: true, At: second},
	}
	if _, wrote, err := te.end(id, content, 0, ending{status: store.Denied, votes: decided}); !wrote || err != nil {
		t.Fatalf("end: %v %v", wrote, err)
	}
	events, _, err := te.Events(0, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		if e.Event == "vote" || e.Event == "answered" {
			got = append(got, e.Event+" "+e.By+" "+e.Outcome)
		}
	}
	want := []string{"vote alice approved", "vote dave approved", "vote carol denied", "vote dave denied", "vote bob approved", "answered  denied"}
	if !slices.Equal(got, want) {
		t.Fatalf("the history says\n%q\nwant\n%q", got, want)
	}
	var votes []string
	for _, v := range te.record(id).Votes {
		votes = append(votes, v.By+map[bool]string{true: "+", false: "-"}[v.Approved])
	}
	if strings.Join(votes, " ") != "alice+ dave- carol- bob+" {
		t.Fatalf("the record's votes: %v", votes)
	}
}
