//go:build e2e && unix

package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// A server with no display and a phone set up asks the phone, through
// the engine, with nothing of its own: the tool call waits for the tap,
// and the history names the phone.
func TestMCPAsksThePhone(t *testing.T) {
	s := ntfytest.New(t)
	h := e2e.NewMCPHarness(t)
	phone := h.SetUpPhone(s, "fallback")
	sess := h.MCPConnect("--wait", "2m")
	done := sess.Start("confirm", map[string]any{"title": "Deploy", "message": "Ship v2 from the agent?"})
	m := phone.Await(1)
	if m.Title != "Deploy" || !strings.HasPrefix(m.Message, "Ship v2 from the agent?") {
		t.Fatalf("the phone shows %+v", m)
	}
	phone.Tap(m, "Approve")
	c := e2e.AwaitCall(t, done, 90*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "")
	found := false
	for _, e := range h.History() {
		if e["event"] == "answered" {
			found = e["answered_by"] == "phone" && e["phone"] == "only"
		}
	}
	if !found {
		t.Fatalf("the history does not say the phone answered: %v", h.History())
	}
	if f := phone.Await(2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("the follow-up: %q", f.Message)
	}
}
