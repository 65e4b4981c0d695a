//go:build unix

package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// askWire is the ask tool's structured content as the protocol carries it.
type askWire struct {
	wireOutput
	Answer any  `json:"answer"`
	Other  bool `json:"other"`
}

// ask calls the ask tool and decodes its structured content.
func (ts *testServer) ask(args map[string]any) (toolCall, askWire) {
	ts.env.t.Helper()
	return ts.callAsk("ask", args)
}

// callAsk calls a tool whose structured content is ask's.
func (ts *testServer) callAsk(tool string, args map[string]any) (toolCall, askWire) {
	t := ts.env.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ts.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	c := toolCall{res: res}
	if len(res.Content) != 1 {
		t.Fatalf("ask: %d content blocks", len(res.Content))
	}
	c.text = res.Content[0].(*mcp.TextContent).Text
	var w askWire
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatal(err)
		}
		c.out = w.wireOutput
	}
	return c, w
}

// answerWith records the person's answer to the open request id, with
// what they chose or typed, as its holder would.
func (env *testEnv) answerWith(id string, values []string, typed bool) {
	env.t.Helper()
	_, err := store.New(env.paths.DB).Update(id, func(r *store.Record, found bool) (bool, error) {
		r.Status, r.EndedAt, r.Uncollected = store.Approved, time.Now(), true
		r.Answers, r.Typed = values, typed
		return true, nil
	})
	if err != nil {
		env.t.Fatal(err)
	}
	if h := env.holders.live(id); h != nil {
		<-h.done
	}
}

var deploy = map[string]any{
	"message": "Deploy to?",
	"options": []any{map[string]any{"label": "staging", "description": "the staging cluster"}, map[string]any{"label": "production"}},
}

func with(args map[string]any, more ...any) map[string]any {
	m := map[string]any{}
	for k, v := range args {
		m[k] = v
	}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i].(string)] = more[i+1]
	}
	return m
}

// choose, multi-choose, free text and an answer of the person's own: each
// pending first, then collected by the same call again, with the answer
// in the structured content and a sentence that reads naturally.
func TestAskPendingThenCollect(t *testing.T) {
	cases := []struct {
		name   string
		args   map[string]any
		values []string
		typed  bool
		answer any
		text   string
	}{
		{"choose", deploy, []string{"staging"}, false, "staging", "The person chose: staging."},
		{"several", with(deploy, "multiple", true), []string{"staging", "production"}, false, []any{"staging", "production"}, "The person chose: staging, production."},
		{"free text", map[string]any{"message": "Name of the release?", "default": "v2"}, []string{"v2.1 «rc»"}, false, "v2.1 «rc»", `The person answered: "v2.1 «rc»".`},
		{"their own", with(deploy, "allow_other", true), []string{"canary"}, true, "canary", `The person gave an answer of their own instead of an option: "canary".`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t).holding()
			ts := env.connect(0)
			c, w := ts.ask(tc.args)
			expectResult(t, c, lifecycle.StatusPending, mcpAskPending)
			if !w.ShouldRetry || w.Answer != nil {
				t.Fatalf("pending: %+v", w)
			}
			env.holders.awaitHeld(w.Key)
			if n := env.holders.count(); n != 1 {
				t.Fatalf("%d holders", n)
			}
			env.answerWith(w.Key, tc.values, tc.typed)
			c, w = ts.ask(tc.args)
			if c.res.IsError || w.Status != lifecycle.StatusApproved || !reflect.DeepEqual(w.Answer, tc.answer) || w.Other != tc.typed {
				t.Fatalf("collected: %q %+v, want answer %#v", c.text, w, tc.answer)
			}
			// Answered while no call waited: a remembered answer, as
			// confirm says of one.
			if !strings.HasPrefix(c.text, tc.text+" (A remembered answer, given at ") {
				t.Fatalf("text %q, want %q and when it was given", c.text, tc.text)
			}
			// Remembered for the same call, within --remember.
			c, w = ts.ask(tc.args)
			if !w.Remembered || !reflect.DeepEqual(w.Answer, tc.answer) || !strings.Contains(c.text, "remembered answer") {
				t.Fatalf("again: %q %+v", c.text, w)
			}
			if n := env.holders.count(); n != 1 {
				t.Fatalf("%d holders, want the one", n)
			}
		})
	}
}

// The options in another order are another question; a cancelled one has
// no answer.
func TestAskAnswersOnlyTheSameQuestion(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	_, w := ts.ask(deploy)
	env.holders.awaitHeld(w.Key)
	env.answerWith(w.Key, []string{"production"}, false)
	if _, w2 := ts.ask(deploy); w2.Answer != "production" {
		t.Fatalf("%+v", w2)
	}
	reordered := with(deploy, "options", []any{map[string]any{"label": "production"}, map[string]any{"label": "staging", "description": "the staging cluster"}})
	c, w2 := ts.ask(reordered)
	expectResult(t, c, lifecycle.StatusPending, mcpAskPending)
	if w2.Key == w.Key || env.holders.count() != 2 {
		t.Fatalf("the reordered question shares %s, or started no dialog (%d)", w.Key, env.holders.count())
	}
	env.holders.awaitHeld(w2.Key)
	env.answer(w2.Key, store.Denied)
	c, w2 = ts.ask(reordered)
	expectResult(t, c, lifecycle.StatusDenied, "")
	if !strings.HasPrefix(c.text, mcpAskCancelled) {
		t.Fatalf("text %q", c.text)
	}
	if w2.Answer != nil {
		t.Fatalf("a cancelled question has an answer: %+v", w2)
	}
}

// Arguments that cannot be asked are tool errors naming the argument, and
// start nothing.
func TestAskInvalidArgumentsAreToolErrors(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	opt := func(l string) any { return map[string]any{"label": l} }
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"message": "m", "options": []any{opt("a"), opt("a")}}, `options 2: "a" is given twice`},
		{map[string]any{"message": "m", "options": []any{opt("a")}}, "at least 2 options"},
		{map[string]any{"message": "m", "options": []any{opt("a"), opt("-rf")}}, "options 2"},
		{map[string]any{"message": "m", "options": []any{opt("a"), opt("b\nc")}}, "options 2"},
		{map[string]any{"message": "m", "options": []any{opt("a"), opt("b")}, "default": "c"}, `"c" is not one of the options`},
		{map[string]any{"message": "m", "options": []any{opt("a"), opt("Other…")}, "allow_other": true}, "options 2"},
		{map[string]any{"message": "m", "default": "two\nlines"}, "default"},
	} {
		c, _ := ts.ask(tc.args)
		expectToolError(t, c, tc.want)
	}
	if n := env.holders.count(); n != 0 {
		t.Fatalf("%d holders started for invalid calls", n)
	}
}

// Where nobody can be asked, and with --ask-with elicitation (a form asks
// yes or no only), an ask call is headless: no answer, and the model is
// told not to guess one.
func TestAskHeadless(t *testing.T) {
	env := newTestEnv(t).headless()
	c, w := env.connect(0).ask(deploy)
	if c.res.IsError || w.Status != lifecycle.StatusHeadless || w.Answer != nil || !strings.Contains(c.text, "Do not guess the answer") {
		t.Fatalf("headless: %q %+v", c.text, w)
	}
	env = newTestEnv(t)
	env.askWith = askElicitation
	c, w = env.connect(0).ask(deploy)
	if w.Status != lifecycle.StatusHeadless || !strings.Contains(c.text, "--ask-with elicitation") || !strings.Contains(c.text, "Do not guess the answer") || env.holders.count() != 0 {
		t.Fatalf("elicitation only: %q %+v", c.text, w)
	}
}
