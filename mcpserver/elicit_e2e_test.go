//go:build e2e && linux

package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/syncbuf"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// These tests drive ask-confirm mcp (the real ask-confirm-mcp, over stdio)
// with the SDK's client that shows forms (MCP elicitation), as an agent
// host with an elicitation handler does. With a display the server asks by
// a real dialog and never through the client; without one it asks through
// the client's form, and records the answer as a dialog's.

// formHost is a client's elicitation handler that answers every form with
// answer after a person's reading time, and counts the forms.
type formHost struct {
	answer *mcp.ElicitResult
	mu     sync.Mutex
	forms  []*mcp.ElicitParams
}

// readingTime is longer than the 400 ms under which an answer is no
// person's.
const readingTime = 700 * time.Millisecond

func (f *formHost) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	f.mu.Lock()
	f.forms = append(f.forms, req.Params)
	f.mu.Unlock()
	select {
	case <-time.After(readingTime):
		return f.answer, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *formHost) shown() []*mcp.ElicitParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), f.forms...)
}

// mcpConnectWithForms starts ask-confirm mcp with args and connects a
// client that shows forms through host, asking for protocol version (empty:
// the SDK's latest).
func mcpConnectWithForms(h *e2e.Harness, host *formHost, version string, args ...string) *e2e.MCPSession {
	h.T.Helper()
	s := &e2e.MCPSession{H: h, Stderr: &syncbuf.Buffer{}}
	cmd := h.Command(append([]string{"mcp"}, args...))
	cmd.Stderr = s.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ask-confirm-form-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: host.elicit})
	return h.MCPDial(s, cmd, client, &mcp.ClientSessionOptions{ProtocolVersion: version}, args)
}

// requestEvents returns the history's events for the request key.
func requestEvents(h *e2e.Harness, key string) []map[string]any {
	var events []map[string]any
	for _, e := range h.History() {
		if e["identity"] == key {
			events = append(events, e)
		}
	}
	return events
}

// With a display, auto asks by a real dialog even a client that shows
// forms: the agent's host cannot click it. The client is never asked.
func TestMCPElicitRealDialogFirst(t *testing.T) {
	h := e2e.NewRealHarness(t)
	host := &formHost{answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}}
	s := mcpConnectWithForms(h, host, "", "--wait", "30s")
	title := h.Title("MCP-elicit-dialog")
	done := s.Start("confirm", map[string]any{"title": title, "message": "Ship v2 with a dialog?"})
	h.Click(title, "approve")
	c := e2e.AwaitCall(t, done, 30*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "The person approved.")
	h.WaitNoWindow(title, 30*time.Second)
	if n := len(host.shown()); n != 0 {
		t.Fatalf("the client was asked %d forms besides the dialog", n)
	}
	for _, e := range requestEvents(h, c.Out.Key) {
		if _, ok := e["channel"]; ok {
			t.Fatalf("a dialog's history event names a channel: %v", e)
		}
	}
}

// Without a display, auto asks through the client's form: accept with
// "approve" approves, and the history's events name the channel; decline
// denies. ask-confirm status sees the answer; the same question asked by
// the command line never receives it. At 2026-07-28 (the SDK's default) the form travels in the tool's
// result; at 2025-06-18 the server sends it.
func TestMCPElicitWithoutDisplay(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		answer        *mcp.ElicitResult
		status, text  string
	}{
		{"approve", "2026-07-28", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}, lifecycle.StatusApproved, "The person approved."},
		{"decline", "2025-06-18", &mcp.ElicitResult{Action: "decline"}, lifecycle.StatusDenied, "The person denied. Do not proceed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := e2e.NewMCPHarness(t)
			host := &formHost{answer: tc.answer}
			for _, kv := range h.Command([]string{"mcp"}).Env {
				if strings.HasPrefix(kv, "DISPLAY=") || strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
					t.Fatalf("the server's environment has %s", kv)
				}
			}
			s := mcpConnectWithForms(h, host, tc.version, "--wait", "30s")
			if v := s.Cs.InitializeResult().ProtocolVersion; v != tc.version {
				t.Fatalf("protocol %s, want %s", v, tc.version)
			}
			message := "Ship v2 through the form (" + tc.name + ")?"
			c := s.Call("confirm", map[string]any{"title": "Deploy", "message": message})
			e2e.ExpectResult(t, c, tc.status, tc.text)
			forms := host.shown()
			if len(forms) != 1 || !strings.HasPrefix(forms[0].Message, "Deploy\n\n"+message) {
				t.Fatalf("the client was asked %d forms: %+v", len(forms), forms)
			}
			events := requestEvents(h, c.Out.Key)
			var kinds []string
			for _, e := range events {
				kinds = append(kinds, e["event"].(string))
				if e["channel"] != "elicitation" {
					t.Errorf("history event %v does not name the channel", e)
				}
			}
			if got := strings.Join(kinds, " "); got != "requested shown answered collected" {
				t.Fatalf("history %q", got)
			}
			// The answer is in the store, as a dialog's: ask-confirm
			// status sees it. But it is the form's: the command line
			// asking the same question by dialog is another request,
			// which never receives it (here nobody can be asked).
			if o := h.Run("status", c.Out.Key, "--json"); o.Res.Status != tc.status || o.Res.Key != c.Out.Key {
				t.Fatalf("ask-confirm status: %+v\nstderr: %s", o.Res, o.Stderr)
			}
			o := h.Run("--json", "--title", "Deploy", "--message", message)
			if o.Code != int(lifecycle.ExitHeadless) || o.Res.Key == c.Out.Key {
				t.Fatalf("the command line took the form's answer: exit %d, %+v", o.Code, o.Res)
			}
		})
	}
}
