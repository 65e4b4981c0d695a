//go:build unix

package cmd

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// setPeople records a phone setup of the people named, asked as mode
// says by default, for f's app.
func (f *cliFixture) setPeople(mode string, names ...string) {
	f.t.Helper()
	c := remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer", Name: names[0]}
	for _, n := range names[1:] {
		c.Approvers = append(c.Approvers, remote.Approver{Name: n, Topic: "requests-" + strings.ToLower(n)})
	}
	path := filepath.Join(filepath.Dir(filepath.Dir(f.paths.DB)), "config", "remote.json")
	if err := remote.Save(path, remote.Settings{Config: c, Mode: mode}); err != nil {
		f.t.Fatal(err)
	}
}

// What --approvers and --approvals cannot ask exits 2 with a hint, on
// stderr or in --json's one object; choose and input have neither flag.
func TestApproversUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		people []string
		mode   string
		args   []string
		says   string // in the error
		hint   string
	}{
		{name: "no phone set up", args: []string{"--approvers", "alice"}, says: "no phone is set up", hint: "remote approver add"},
		{name: "an unknown name", people: []string{"alice", "bob", "carol"}, mode: "also", args: []string{"--approvers", "alice,dave"}, says: `"dave", who is not set up (set up: alice, bob and carol)`, hint: "remote approver list"},
		{name: "approvals above the approvers", people: []string{"alice", "bob", "carol"}, mode: "also", args: []string{"--approvers", "alice,bob", "--approvals", "3"}, says: "--approvals: 3 is outside 1 to 2", hint: "--help"},
		{name: "approvals above everyone set up", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvals", "3"}, says: "--approvals: 3 is outside 1 to 2", hint: "--help"},
		{name: "approvals of 0", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvals", "0"}, says: "--approvals: 0 is below 1", hint: "--help"},
		{name: "the phone off", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers", "bob", "--remote", "off"}, says: "--remote off asks no phone", hint: "--remote also"},
		{name: "a name twice", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers", "bob,Bob"}, says: `names "bob" twice`, hint: "--help"},
		// An empty variable in a script: never everyone set up.
		{name: "an empty value", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers", ""}, says: "--approvers: is empty, which names nobody", hint: "--help"},
		{name: "an empty value with =", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers="}, says: "--approvers: is empty, which names nobody", hint: "--help"},
		{name: "an empty name", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers", "alice,"}, says: "--approvers: name 2 of 2 is empty", hint: "--help"},
		{name: "a blank name", people: []string{"alice", "bob"}, mode: "also", args: []string{"--approvers", "alice, ,bob"}, says: "--approvers: name 2 of 3 is empty", hint: "--help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCLIFixture(t)
			if tc.people != nil {
				f.setPeople(tc.mode, tc.people...)
			}
			args := append([]string{"--message", "Deploy?", "--no-terminal"}, tc.args...)
			r := f.run(args...)
			f.expectCode(r, lifecycle.ExitUsage)
			if !strings.Contains(r.stderr, "ask-confirm: error: ") || !strings.Contains(r.stderr, tc.says) || !strings.Contains(r.stderr, "ask-confirm: hint: ") || !strings.Contains(r.stderr, tc.hint) {
				t.Fatalf("stderr says\n%s\nwant an error saying %q and a hint saying %q", r.stderr, tc.says, tc.hint)
			}
			r = f.run(append(args, "--json")...)
			f.expectCode(r, lifecycle.ExitUsage)
			if r.res.Status != lifecycle.StatusError || !strings.Contains(r.res.Message, tc.says) {
				t.Fatalf("--json: %+v", r.res)
			}
			if n := f.spawnCount(); n != 0 {
				t.Fatalf("%d holders started", n)
			}
		})
	}
	for _, cmd := range []string{"choose", "input"} {
		f := newCLIFixture(t)
		f.setPeople("also", "alice", "bob")
		args := []string{cmd, "--message", "Which?", "--approvers", "alice"}
		if cmd == "choose" {
			args = append(args, "--option", "a", "--option", "b")
		}
		r := f.runRaw(args...)
		f.expectCode(r, lifecycle.ExitUsage)
		if !strings.Contains(r.stderr, "unknown flag: --approvers") {
			t.Fatalf("%s --approvers: %s", cmd, r.stderr)
		}
	}
}

// A request of several approvers that nobody has answered yet is pending,
// with how many approvals it has and needs, in words and in --json; the
// approvers, typed in any case and order, name one request.
func TestApproversPendingResult(t *testing.T) {
	f := newCLIFixture(t)
	f.setPeople("only", "alice", "Bob", "carol")
	r := f.run("--message", "Deploy?", "--approvals", "2", "--wait", "0", "--json")
	f.expectCode(r, lifecycle.ExitPending)
	if !slices.Equal(r.res.Approvers, []string{"alice", "Bob", "carol"}) || r.res.Approvals == nil || *r.res.Approvals != 0 || r.res.ApprovalsNeeded != 2 {
		t.Fatalf("the pending result: %+v", r.res)
	}
	rec := f.record(r.res.Key)
	if !slices.Equal(rec.Approvers, []string{"alice", "Bob", "carol"}) || rec.Approvals != 2 || rec.Phone != "only" {
		t.Fatalf("the record: approvers %q, approvals %d, phone %q", rec.Approvers, rec.Approvals, rec.Phone)
	}
	// Its holder lives, and Bob's vote comes in, as the holder records it.
	lock, ok, err := platform.TryLock(f.paths.LockFile(r.res.Key))
	if err != nil || !ok {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	defer lock.Release()
	at := time.Now().UTC().Truncate(time.Second)
	if _, err := f.store.Update(r.res.Key, func(rec *store.Record, _ bool) (bool, error) {
		rec.Status, rec.Votes = store.Shown, []store.Vote{{By: "Bob", Approved: true, At: at}}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	again := f.run("--message", "Deploy?", "--approvers", "CAROL,bob,Alice", "--approvals", "2", "--wait", "0")
	f.expectCode(again, lifecycle.ExitPending)
	if !strings.Contains(again.stderr, "pending: 1 of 2 approvals so far (Bob approved)") {
		t.Fatalf("the pending line: %s", again.stderr)
	}
	if n := f.spawnCount(); n != 1 {
		t.Fatalf("the same approvers typed otherwise started %d holders", n)
	}
	st := f.runRaw("status", r.res.Key, "--json")
	var res lifecycle.Result
	if err := json.Unmarshal([]byte(st.stdout), &res); err != nil || *res.Approvals != 1 || len(res.Votes) != 1 || res.Votes[0] != (lifecycle.Vote{By: "Bob", Vote: "approve", At: at}) {
		t.Fatalf("status --json: %v\n%s", err, st.stdout)
	}
	if list := f.runRaw("list"); !strings.Contains(list.stdout, "pending (1 of 2)") {
		t.Fatalf("list:\n%s", list.stdout)
	}
	// Other approvers, or another number of approvals, are another request.
	f.run("--message", "Deploy?", "--approvers", "alice,bob", "--approvals", "2", "--wait", "0")
	f.run("--message", "Deploy?", "--wait", "0")
	if n := f.spawnCount(); n != 3 {
		t.Fatalf("%d holders started, want 3: other approvers are another request", n)
	}
}

// With one person set up and no flags, a request is what it always was:
// no approvers, the same identity as with no phone at all.
func TestOnePersonChangesNothing(t *testing.T) {
	f := newCLIFixture(t)
	none := f.run("--message", "Deploy?", "--wait", "0", "--json")
	f.setPeople("only", "alice")
	one := f.run("--message", "Deploy?", "--wait", "0", "--json", "--remote", "only")
	if none.res.Key != one.res.Key || one.res.Approvers != nil || one.res.Approvals != nil || strings.Contains(one.stdout, "approv") {
		t.Fatalf("one person set up: %s\nno phone: %s", one.stdout, none.stdout)
	}
	if rec := f.record(one.res.Key); rec.Approvers != nil || rec.Approvals != 0 {
		t.Fatalf("the record of one person's request: %+v", rec)
	}
}

// history shows each vote, and who decided, in its table and its JSON.
func TestHistoryShowsVotes(t *testing.T) {
	f := newCLIFixture(t)
	at := time.Now().UTC()
	base := store.Event{Time: at, Identity: strings.Repeat("a", 64), Title: "Deploy", Approvers: []string{"alice", "bob", "carol"}, Approvals: 2}
	vote, denied := base, base
	vote.Event, vote.Outcome, vote.By, vote.VotedAt = "vote", "approved", "alice", at
	denied.Event, denied.Outcome, denied.ApprovedBy, denied.DeniedBy = "answered", "denied", []string{"alice"}, []string{"carol"}
	for _, ev := range []store.Event{vote, denied} {
		if err := store.AppendEvent(f.paths.History, ev); err != nil {
			t.Fatal(err)
		}
	}
	r := f.runRaw("history")
	if !strings.Contains(r.stdout, "vote") || !strings.Contains(r.stdout, "alice approved") || !strings.Contains(r.stdout, "denied (alice approved, carol denied)") {
		t.Fatalf("history:\n%s", r.stdout)
	}
	r = f.runRaw("history", "--json")
	for _, want := range []string{`"by":"alice"`, `"voted_at":`, `"approved_by":["alice"]`, `"denied_by":["carol"]`, `"approvals":2`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("history --json lacks %s:\n%s", want, r.stdout)
		}
	}
}

// A team gates an agent's calls: the hook's --approvers and --approvals
// name the request's approvers; what they decide is the host's answer,
// in their names; too few approvals within --wait deny the call, never
// hand it back to the host's own prompt, which one person answers; and
// approvers that cannot be asked block the call (exit 2).
func TestHookApprovers(t *testing.T) {
	team := []string{"--approvers", "alice,BOB,carol", "--approvals", "2"}
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			f.setPeople("only", "alice", "bob", "carol")
			payload := hookPayload(t, c.file)
			req := hookRequest(t, c.host, payload)
			req.Approvers, req.Approvals = []string{"alice", "bob", "carol"}, 2
			at := time.Now().UTC()

			// Alice alone approves within the wait: denied.
			closed := f.liveHolder(req)
			_, err := f.store.Update(req.Identity(), func(rec *store.Record, _ bool) (bool, error) {
				rec.Approvers, rec.Approvals = req.Approvers, req.Approvals
				rec.Votes = []store.Vote{{By: "alice", Approved: true, At: at}}
				return true, nil
			})
			must(t, err)
			verdict, reason := hookVerdict(t, f.runHook(payload, append([]string{c.host, "--wait", "300ms"}, team...)...))
			if verdict != "deny" || reason != "ask-confirm: 1 of the 2 approvals needed came within 300ms; it was not run, and proposing it again asks again" {
				t.Fatalf("%s %q, want a denial saying 1 of 2", verdict, reason)
			}
			if got := closed(); got != store.Withdrawn {
				t.Fatalf("the request was closed as %q", got)
			}

			// Alice and Bob approve: allowed, in their names.
			f.startHolder = func(argv []string, _ platform.Lock) error {
				_, err := f.store.Update(argv[2], func(rec *store.Record, _ bool) (bool, error) {
					rec.Status, rec.EndedAt = store.Approved, time.Now()
					rec.Votes = []store.Vote{{By: "alice", Approved: true, At: at}, {By: "bob", Approved: true, At: at}}
					return true, nil
				})
				return err
			}
			verdict, reason = hookVerdict(t, f.runHook(payload, append([]string{c.host, "--wait", "10s"}, team...)...))
			if verdict != "allow" || strings.Contains(c.file, "pretooluse") && reason != "approved by alice and bob (2 of 2 approvals)" {
				t.Fatalf("%s %q, want allow by alice and bob", verdict, reason)
			}
			if rec := f.record(req.Identity()); !slices.Equal(rec.Approvers, req.Approvers) || rec.Approvals != 2 {
				t.Fatalf("the request's approvers: %q, %d", rec.Approvers, rec.Approvals)
			}

			// Approvers that cannot be asked: the set-up is broken, and blocks.
			for _, bad := range [][]string{{"--approvers", "dave"}, {"--approvals", "4"}, {"--approvals", "0"}} {
				r := f.runHook(payload, append([]string{c.host, "--wait", "10s"}, bad...)...)
				if r.code != int(lifecycle.ExitUsage) || r.stdout != "" || !strings.Contains(r.stderr, "ask-confirm: hint: ") {
					t.Fatalf("hook %q: exit %d, stdout %q, stderr %s", bad, r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}
