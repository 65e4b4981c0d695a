package hook

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// A question of several approvers is never handed back to a host's own
// prompt, which one person answers: whatever they did not decide is a
// deny, for every host and event, saying how far the votes got; what they
// decided is told in their names.
func TestApproversNeverHandBack(t *testing.T) {
	one := 1
	votes := func(r lifecycle.Result) lifecycle.Result {
		r.Approvers, r.Approvals, r.ApprovalsNeeded = []string{"alice", "bob", "carol"}, &one, 2
		return r
	}
	for _, h := range Hosts() {
		for _, ev := range h.Events {
			p := Payload{Host: h, Event: ev}
			s := DefaultSettings()
			for _, tc := range []struct {
				r       lifecycle.Result
				stopped Stop
				says    string
			}{
				{votes(unansweredResult), NotStopped, "1 of the 2 approvals needed came within 5m"},
				{votes(lifecycle.Result{Status: lifecycle.StatusPending, ExitCode: lifecycle.ExitPending}), NotStopped, "1 of the 2 approvals needed came within 5m"},
				{votes(unansweredResult), StoppedBySignal, "the hook was stopped"},
				{votes(lifecycle.Result{Status: lifecycle.StatusExpired, ExitCode: lifecycle.ExitExpired}), NotStopped, "timed out"},
				{votes(lifecycle.Result{Status: lifecycle.StatusFailed, ExitCode: lifecycle.ExitFailed, Message: "the phone could not ask"}), NotStopped, "the phone could not ask"},
			} {
				resp := p.Respond(tc.r, s, tc.stopped, time.Unix(1, 0))
				out := string(resp.Stdout)
				if !strings.Contains(out, `"deny"`) || !strings.Contains(out, tc.says) || !strings.Contains(out, "it was not run") {
					t.Errorf("%s %s, %s: %s; want a deny saying %q", h.Name, ev, tc.r.Status, out, tc.says)
				}
			}
			approved := votes(lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitApproved, Message: "approved by alice and bob (2 of 2 approvals)"})
			if out := string(p.Respond(approved, s, NotStopped, time.Unix(1, 0)).Stdout); !strings.Contains(out, `"allow"`) {
				t.Errorf("%s %s: an approval by the votes: %s", h.Name, ev, out)
			}
		}
	}
	// The approvers go into the request as the flags give them, for the
	// engine to resolve; Validate leaves that to it.
	s := DefaultSettings()
	s.Approvers = []string{"alice", "bob"}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if c := (Payload{Host: Hosts()[0], Event: EventPreToolUse, ToolName: "Bash"}).Call("", s); !slices.Equal(c.Request.Approvers, s.Approvers) || c.Request.Approvals != 0 {
		t.Fatalf("the call's approvers: %q, %d", c.Request.Approvers, c.Request.Approvals)
	}
	s.Approvals = -1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "--approvals") {
		t.Fatalf("Validate with --approvals below 1: %v", err)
	}
}
