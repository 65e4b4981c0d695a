//go:build e2e && unix

package cmd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The MCP ask tool with real dialogs: the server as a subprocess, GNOME
// zenity under Xvfb answered with xdotool.

// answerOf is the answer in a tool result's structured content.
func answerOf(t *testing.T, c toolCall) any {
	t.Helper()
	var out struct {
		Answer any `json:"answer"`
	}
	b, err := json.Marshal(c.res.StructuredContent)
	must(t, err)
	must(t, json.Unmarshal(b, &out))
	return out.Answer
}

func TestMCPRealAsk(t *testing.T) {
	h := newRealHarness(t)
	s := h.mcpConnect("--wait", "30s")

	// Choose one: type to find the option, Enter picks it.
	title := h.title("MCP-ask-one")
	done := s.start("ask", map[string]any{"title": title, "message": "Deploy to?", "options": []any{
		map[string]any{"label": "staging", "description": "the staging cluster"}, map[string]any{"label": "production"}}})
	h.typeInto(title, "prod", false)
	h.key(title, "Return")
	c := awaitCall(t, done, 40*time.Second)
	expectResult(t, c, lifecycle.StatusApproved, "The person chose: production.")
	if a := answerOf(t, c); a != "production" {
		t.Fatalf("answer %#v", a)
	}

	// Choose several: tick the boxes, OK.
	title = h.title("MCP-ask-several")
	done = s.start("ask", map[string]any{"title": title, "message": "Run which checks?", "multiple": true, "options": []any{
		map[string]any{"label": "lint"}, map[string]any{"label": "unit"}, map[string]any{"label": "e2e"}}})
	// The MCP server shows who asks; this client's name makes the origin
	// line one line more, so the rows start a line lower.
	h.tickFrom(title, 46+rowBelowOrigin, 1, 2)
	h.click(title, "approve")
	c = awaitCall(t, done, 40*time.Second)
	expectResult(t, c, lifecycle.StatusApproved, "The person chose: unit, e2e.")
	if a := answerOf(t, c); !reflect.DeepEqual(a, []any{"unit", "e2e"}) {
		t.Fatalf("answer %#v", a)
	}

	// Free text.
	title = h.title("MCP-ask-text")
	done = s.start("ask", map[string]any{"title": title, "message": "Name of the release?", "default": "v2"})
	h.typeInto(title, "v2.1", true)
	h.key(title, "Return")
	c = awaitCall(t, done, 40*time.Second)
	expectResult(t, c, lifecycle.StatusApproved, `The person answered: "v2.1".`)
	if a := answerOf(t, c); a != "v2.1" {
		t.Fatalf("answer %#v", a)
	}
}

// Pending, then the person answers, then the same call collects it.
func TestMCPRealAskPendingThenCollect(t *testing.T) {
	h := newRealHarness(t)
	s := h.mcpConnect("--wait", "2s")
	title := h.title("MCP-ask-pending")
	args := map[string]any{"title": title, "message": "Tag name?"}
	c := s.call("ask", args)
	expectResult(t, c, lifecycle.StatusPending, "Call ask again with exactly the same arguments")
	h.typeInto(title, "v3", true)
	h.key(title, "Return")
	h.waitNoWindow(title, 30*time.Second)
	h.answeredAt(c.out.Key)
	c = s.call("ask", args)
	expectResult(t, c, lifecycle.StatusApproved, `The person answered: "v3".`)
	if a := answerOf(t, c); a != "v3" || !c.out.Remembered || !strings.Contains(c.text, "remembered answer") {
		t.Fatalf("collected: %#v %+v", a, c.out)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs requested, want 1", n)
	}
}
