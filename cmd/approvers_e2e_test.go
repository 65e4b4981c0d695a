//go:build e2e && unix

package cmd_test

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/platform"
)

// addPeople names the first phone of h's setup after people[0], and
// adds the other people, each on their own topic, as remote setup --name
// and remote approver add record them.
func addPeople(t *testing.T, h *e2e.Harness, people []ntfytest.Person) {
	t.Helper()
	e2e.AddPeople(t, h, people)
}

// localUser is the login name the holder finds for this machine's user.
func localUser(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Skipf("no user name here: %v", err)
	}
	return u.Username
}

// meAndBob is a harness under a real X server whose phone is set up beside
// the dialog, with two people: this machine's user, on the first phone,
// and bob, on his own.
func meAndBob(t *testing.T) (h *e2e.Harness, me string, mine, bobs *ntfytest.Phone) {
	t.Helper()
	h = e2e.NewRealHarness(t)
	me = localUser(t)
	s, people := ntfytest.NewWithPeople(t, me, "bob")
	mine = phoneSetUp(t, h, s, "also")
	bobs = ntfytest.NewPhoneOf(t, s, people[1])
	addPeople(t, h, people)
	return h, me, mine, bobs
}

// Under a real X server, a request of two approvals of which this
// machine's user is one: the real zenity dialog is shown beside the
// phones, and Cancel there is that person's deny, which denies at once:
// the caller exits 1 naming them, the history records the vote, and the
// phone is told.
func TestApproversDenyInTheRealDialog(t *testing.T) {
	h, me, phone, bobs := meAndBob(t)

	title := h.Title("RD-approvers")
	r := h.Start("--json", "--title", title, "--message", "Migrate the production database?", "--approvals", "2", "--wait", "2m")
	h.WaitWindow(title)
	phone.Await(1)
	h.Click(title, "cancel")
	o := r.Wait(90 * time.Second)
	h.Expect(o, 1, "denied")
	if !slices.Equal(o.Res.DeniedBy, []string{me}) || o.Res.ApprovedBy != nil || o.Res.ApprovalsNeeded != 2 || o.Res.Message != "denied by "+me+" (0 of 2 approvals)" {
		t.Fatalf("the deny in the dialog: %s", o.Stdout)
	}
	votes := eventsOf(h, "vote")
	if len(votes) != 1 || votes[0]["by"] != me || votes[0]["outcome"] != "denied" {
		t.Fatalf("the history's votes: %v", votes)
	}
	expectFollowUp(t, phone, 2, "Denied by "+me+" at ")
	if m := bobs.Await(1); len(m.Actions) != 2 {
		t.Fatalf("bob's phone was asked %+v", m)
	}
	expectFollowUp(t, bobs, 2, "Denied by "+me+" at ")
}

// Under a real X server, a request of two approvals of which this
// machine's user is one: Approve in the real zenity dialog is that
// person's vote, which every phone is told of, and decides nothing; bob's
// tap on his own phone is the second, and approves. The result names
// both, in order.
func TestApproversApproveInTheRealDialogAndOnAPhone(t *testing.T) {
	h, me, phone, bobs := meAndBob(t)

	title := h.Title("RD-approvers-both")
	r := h.Start("--json", "--title", title, "--message", "Promote the release?", "--approvals", "2", "--wait", "2m")
	h.WaitWindow(title)
	asked := bobs.Await(1)
	phone.Await(1)
	h.Click(title, "approve")
	expectFollowUp(t, bobs, 2, me+" approved; 1 of 2")
	expectFollowUp(t, phone, 2, me+" approved; 1 of 2")
	if code := bobs.Tap(asked, "Approve"); code != 200 {
		t.Fatalf("bob's tap got %d", code)
	}
	o := r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if !slices.Equal(o.Res.ApprovedBy, []string{me, "bob"}) || o.Res.ApprovalsNeeded != 2 {
		t.Fatalf("approved by the dialog and bob's phone: %s", o.Stdout)
	}
	// The click's record and bob's tap may share the server's second,
	// whose votes are named in the order of the names.
	if f := bobs.Await(3); !strings.HasPrefix(f.Message, "Approved by "+me+" and bob at ") && !strings.HasPrefix(f.Message, "Approved by bob and "+me+" at ") || len(f.Actions) != 0 {
		t.Fatalf("bob's phone's follow-up is %q with %d buttons, want it to name both approvals", f.Message, len(f.Actions))
	}
}

// Where this machine's user is none of the approvers, no dialog is shown
// here, even under an X server with the phone beside the dialog: only the
// phones are asked, the caller's pending result says how far the votes
// are, and the history says why nothing was shown here.
func TestApproversNoDialogForANonApprover(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s, people := ntfytest.NewWithPeople(t, "alice", "bob", "carol")
	phone := phoneSetUp(t, h, s, "also")
	addPeople(t, h, people)
	if me := localUser(t); slices.Contains([]string{"alice", "bob", "carol"}, strings.ToLower(me)) {
		t.Skipf("this machine's user is %s, one of the approvers", me)
	}

	title := h.Title("RD-not-an-approver")
	o := h.Run("--json", "--title", title, "--message", "Rotate the signing key?", "--approvers", "carol,ALICE", "--approvals", "2", "--wait", "5s")
	h.Expect(o, 3, "pending")
	if !slices.Equal(o.Res.Approvers, []string{"alice", "carol"}) || o.Res.ApprovalsNeeded != 2 || !strings.Contains(o.Res.Message, "pending: 0 of 2 approvals so far") {
		t.Fatalf("the pending result: %s", o.Stdout)
	}
	if m := phone.Await(1); m.Title != title {
		t.Fatalf("the phone shows %+v", m)
	}
	if w := h.Windows(title); len(w) != 0 {
		t.Fatalf("a dialog was shown to a non-approver: windows %v", w)
	}
	requested := eventsOf(h, "requested")
	if len(requested) != 1 || !strings.Contains(requested[0]["reason"].(string), "is not one of the approvers (alice and carol)") || requested[0]["phone"] != "only" {
		t.Fatalf("the history's requested event: %v", requested)
	}
	// Nobody votes here: the request is cancelled, and its holder ends.
	if c := h.Run("cancel", o.Res.Key); c.Code != 0 {
		t.Fatalf("cancel: exit %d\n%s%s", c.Code, c.Stdout, c.Stderr)
	}
	lock := filepath.Join(h.Dir, "state", "ask-confirm", "locks", o.Res.Key+".lock")
	Eventually(t, "the holder to end", func() bool { held, err := platform.LockHeld(lock); return err == nil && !held })
}

// A deploy gate of 2 of 3 across machines, with the real binary: the job
// exits 3 with how many approvals it has; a re-run on another machine of
// the fleet (the setup, people included, from remote export) joins the
// same request with the same votes, and puts nothing new on any phone;
// once the second person approved, a re-run collects the approval, naming
// both.
func TestApproversGateAcrossMachines(t *testing.T) {
	s, people := ntfytest.NewWithPeople(t, "Alice", "Bob", "Carol")
	first := headless(e2e.NewFakeHarness(t))
	first.SetUpPhone(s, "only")
	addPeople(t, first, people)
	// The setup as remote export prints it (one line of JSON), which the
	// harness would read as a result.
	exported, err := os.ReadFile(filepath.Join(first.Dir, "config", "ask-confirm", "remote.json"))
	if err != nil {
		t.Fatal(err)
	}
	phones := map[string]*ntfytest.Phone{}
	for _, p := range people {
		phones[p.Name] = ntfytest.NewPhoneOf(t, s, p)
	}
	gate := []string{"--json", "--approvers", "alice,bob,carol", "--approvals", "2", "--key", "deploy-1234567",
		"--timeout", "10m", "--collect-within", "10m", "--title", "Deploy", "--message", "Deploy 1234567 to production?"}

	r := first.Start(append(gate, "--wait", "20s")...)
	asked := map[string]ntfytest.Message{}
	for name, ph := range phones {
		asked[name] = ph.Await(1)
	}
	phones["Alice"].Tap(asked["Alice"], "Approve")
	for _, ph := range phones {
		expectFollowUp(t, ph, 2, "Alice approved; 1 of 2")
	}
	o := r.Wait(60 * time.Second)
	h := first
	h.Expect(o, 3, "pending")
	if o.Res.Approvals == nil || *o.Res.Approvals != 1 || o.Res.ApprovalsNeeded != 2 || !strings.Contains(o.Res.Message, "1 of 2 approvals") {
		t.Fatalf("the first job's pending result: %s", o.Stdout)
	}

	second := e2e.FleetMachine(t, string(exported))
	o = second.Run(append(gate, "--wait", "3s")...)
	second.Expect(o, 3, "pending")
	if o.Res.Approvals == nil || *o.Res.Approvals != 1 || o.Res.ApprovalsNeeded != 2 {
		t.Fatalf("the re-run elsewhere does not count Alice's vote: %s", o.Stdout)
	}
	for name, ph := range phones {
		if n := ph.Count(); n != 2 {
			t.Fatalf("%s's phone has %d messages after the re-run, want 2", name, n)
		}
	}
	phones["Bob"].Tap(asked["Bob"], "Approve")
	for _, ph := range phones {
		expectFollowUp(t, ph, 3, "Approved by Alice and Bob at ")
	}
	Eventually(t, "the re-run to collect the approval", func() bool {
		o = second.Run(append(gate, "--wait", "3s")...)
		return o.Code != 3
	})
	second.Expect(o, 0, "approved")
	if !slices.Equal(o.Res.ApprovedBy, []string{"Alice", "Bob"}) || len(o.Res.Votes) != 2 {
		t.Fatalf("the collected approval: %s", o.Stdout)
	}
}
