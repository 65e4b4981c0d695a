//go:build unix

package mcpserver

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// setPeople records a phone setup of the people named, asked on the phone
// only, for env's servers.
func (env *testEnv) setPeople(names ...string) {
	env.t.Helper()
	c := remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer", Name: names[0]}
	for _, n := range names[1:] {
		c.Approvers = append(c.Approvers, remote.Approver{Name: n, Topic: "requests-" + n})
	}
	path := filepath.Join(filepath.Dir(filepath.Dir(env.paths.DB)), "config", "remote.json")
	if err := remote.Save(path, remote.Settings{Config: c, Mode: remote.ModeOnly}); err != nil {
		env.t.Fatal(err)
	}
}

// The server's --approvers and --approvals make every confirm call a
// team's gate, which the call's arguments cannot change: its result says
// how far the votes are, and its description who decides. The ask tool's
// questions keep one person. What the server's flags cannot ask is a tool
// error naming them.
func TestConfirmApproversAreTheServers(t *testing.T) {
	env := newTestEnv(t).holding()
	env.setPeople("alice", "bob", "carol")
	env.approvers, env.approvals = []string{"Bob", "alice"}, 2
	ts := env.connect(0)
	tools, err := ts.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "confirm" && !strings.Contains(tool.Description, "decided by 2 of Bob and alice, each on their own phone") {
			t.Fatalf("confirm's description: %s", tool.Description)
		}
	}
	c := ts.call("confirm", map[string]any{"message": "Deploy?"})
	if c.out.Status != lifecycle.StatusPending || c.out.Message != "Still waiting: 0 of the 2 approvals needed so far, each approver on their own phone. Call confirm again with the same arguments to collect the answer." {
		t.Fatalf("the call: %+v %q", c.out, c.text)
	}
	rec := env.record(c.out.Key)
	if !slices.Equal(rec.Approvers, []string{"alice", "bob"}) || rec.Approvals != 2 || rec.Phone != "only" {
		t.Fatalf("the request's approvers %q, approvals %d, phone %q", rec.Approvers, rec.Approvals, rec.Phone)
	}
	expectToolError(t, ts.call("confirm", map[string]any{"message": "Deploy?", "approvals": 1}), "approvals")
	if ask, _ := ts.ask(deploy); ask.out.Status != lifecycle.StatusPending || env.record(ask.out.Key).Approvers != nil {
		t.Fatalf("the ask tool's question: %+v", ask.out)
	}

	env2 := newTestEnv(t)
	env2.setPeople("alice", "bob")
	env2.approvals = 3
	expectToolError(t, env2.connect(0).call("confirm", map[string]any{"message": "Deploy?"}), "the server's --approvals 3 is outside 1 to 2")

	var stderr bytes.Buffer
	if code := execute(NewCommand(), []string{"--approvals", "0"}, &stderr); code != int(lifecycle.ExitUsage) || !strings.Contains(stderr.String(), "--approvals: 0 is below 1") {
		t.Fatalf("ask-confirm-mcp --approvals 0: exit %d, %s", code, &stderr)
	}
}

// The server's --approvers given an empty value (an empty variable in the
// host's configuration) names nobody, and is refused: it never widens
// every call to everyone set up. So is an empty name in it.
func TestServerApproversEmptyIsRefused(t *testing.T) {
	for _, v := range []string{"", "alice,"} {
		var stderr bytes.Buffer
		if code := execute(NewCommand(), []string{"--approvers", v}, &stderr); code != int(lifecycle.ExitUsage) || !strings.Contains(stderr.String(), "--approvers: ") || !strings.Contains(stderr.String(), "empty") {
			t.Fatalf("ask-confirm-mcp --approvers %q: exit %d, %s", v, code, &stderr)
		}
	}
}

// What a team's gate tells the model: the votes, in the engine's words.
func TestConfirmTextOfATeamsGate(t *testing.T) {
	one, two := 1, 2
	now := time.Unix(1e9, 0)
	for _, tc := range []struct {
		r    lifecycle.Result
		want string
	}{
		{lifecycle.Result{Status: lifecycle.StatusApproved, Approvals: &two, ApprovalsNeeded: 2, Message: "approved by alice and bob (2 of 2 approvals)"}, "Approved by alice and bob (2 of 2 approvals)."},
		{lifecycle.Result{Status: lifecycle.StatusDenied, Approvals: &one, ApprovalsNeeded: 2, Message: "denied by carol (1 of 2 approvals)"}, "Denied by carol (1 of 2 approvals). Do not proceed."},
		{lifecycle.Result{Status: lifecycle.StatusPending, Approvals: &one, ApprovalsNeeded: 2}, "Still waiting: 1 of the 2 approvals needed so far, each approver on their own phone. Call confirm again with the same arguments to collect the answer."},
	} {
		if got := confirmText(tc.r, now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.r.Status, got, tc.want)
		}
	}
}
