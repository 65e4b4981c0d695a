//go:build e2e && unix

package cmd_test

import (
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
)

// addPeople names the first phone of h's setup first, and adds the other
// people, each on a topic of their own, as remote setup --name and remote
// approver add record them.
func addPeople(t *testing.T, h *e2e.Harness, first string, others ...string) {
	t.Helper()
	path := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")
	s, err := remote.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Name = first
	for _, n := range others {
		s.Approvers = append(s.Approvers, remote.Approver{Name: n, Topic: s.Topic + "-" + n})
	}
	if err := remote.Save(path, s); err != nil {
		t.Fatal(err)
	}
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

// Under a real X server, a request of two approvals of which this
// machine's user is one: the real zenity dialog is shown beside the
// phones, and Cancel there is that person's deny, which denies at once:
// the caller exits 1 naming them, the history records the vote, and the
// phone is told.
func TestApproversDenyInTheRealDialog(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := ntfytest.New(t)
	phone := phoneSetUp(t, h, s, "also")
	me := localUser(t)
	addPeople(t, h, me, "bob")

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
	expectFollowUp(t, phone, 2, "Already denied by "+me+" in the dialog at ")
}

// Where this machine's user is none of the approvers, no dialog is shown
// here, even under an X server with the phone beside the dialog: only the
// phones are asked, the caller's pending result says how far the votes
// are, and the history says why nothing was shown here.
func TestApproversNoDialogForANonApprover(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := ntfytest.New(t)
	phone := phoneSetUp(t, h, s, "also")
	addPeople(t, h, "alice", "bob", "carol")
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
