//go:build e2e && linux

package mcpserver_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The MCP ask tool with real dialogs: the server as a subprocess, GNOME
// zenity under Xvfb answered with xdotool.

// answerOf is the answer in a tool result's structured content.
func answerOf(t *testing.T, c e2e.ToolCall) any {
	t.Helper()
	var out struct {
		Answer any `json:"answer"`
	}
	b, err := json.Marshal(c.Res.StructuredContent)
	e2e.Must(t, err)
	e2e.Must(t, json.Unmarshal(b, &out))
	return out.Answer
}

func TestMCPRealAsk(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "30s")

	// Choose one: End selects the last option, Enter picks it.
	title := h.Title("MCP-ask-one")
	done := s.Start("ask", map[string]any{"title": title, "message": "Deploy to?", "options": []any{
		map[string]any{"label": "staging", "description": "the staging cluster"}, map[string]any{"label": "production"}}})
	h.SelectLastRow(title)
	h.Key(title, "Return")
	c := e2e.AwaitCall(t, done, 40*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "The person chose: production.")
	if a := answerOf(t, c); a != "production" {
		t.Fatalf("answer %#v", a)
	}

	// Choose several: tick the boxes, OK.
	title = h.Title("MCP-ask-several")
	done = s.Start("ask", map[string]any{"title": title, "message": "Run which checks?", "multiple": true, "options": []any{
		map[string]any{"label": "lint"}, map[string]any{"label": "unit"}, map[string]any{"label": "e2e"}}})
	// The MCP server shows who asks: the rows start under its lines.
	h.TickBelowText(title, 1, 2)
	h.Click(title, "approve")
	c = e2e.AwaitCall(t, done, 40*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "The person chose: unit, e2e.")
	if a := answerOf(t, c); !reflect.DeepEqual(a, []any{"unit", "e2e"}) {
		t.Fatalf("answer %#v", a)
	}

	// Free text.
	title = h.Title("MCP-ask-text")
	done = s.Start("ask", map[string]any{"title": title, "message": "Name of the release?", "default": "v2"})
	h.TypeInto(title, "v2.1", true)
	h.Key(title, "Return")
	c = e2e.AwaitCall(t, done, 40*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, `The person answered: "v2.1".`)
	if a := answerOf(t, c); a != "v2.1" {
		t.Fatalf("answer %#v", a)
	}
}

// Pending, then the person answers, then the same call collects it.
func TestMCPRealAskPendingThenCollect(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "2s")
	title := h.Title("MCP-ask-pending")
	args := map[string]any{"title": title, "message": "Tag name?"}
	c := s.Call("ask", args)
	e2e.ExpectResult(t, c, lifecycle.StatusPending, "Call ask again with exactly the same arguments")
	h.TypeInto(title, "v3", true)
	h.Key(title, "Return")
	h.WaitNoWindow(title, 30*time.Second)
	h.AnsweredAt(c.Out.Key)
	c = s.Call("ask", args)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, `The person answered: "v3".`)
	if a := answerOf(t, c); a != "v3" || !c.Out.Remembered || !strings.Contains(c.Text, "remembered answer") {
		t.Fatalf("collected: %#v %+v", a, c.Out)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs requested, want 1", n)
	}
}
