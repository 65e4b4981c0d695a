//go:build unix

package mcpserver

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func acceptAnswer(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// Where no dialog can be shown, ask's questions go to the client's form at
// every protocol version: a choice, several, the person's own answer and a
// text, each read back as the answer; nothing is chosen in advance.
func TestAskThroughTheForm(t *testing.T) {
	opts := []any{map[string]any{"label": "staging", "description": "the staging cluster"}, map[string]any{"label": "production"}}
	cases := []struct {
		name   string
		args   map[string]any
		reply  map[string]any
		answer any
		other  bool
	}{
		{"one", map[string]any{"message": "Deploy to?", "options": opts}, map[string]any{"answer": "production"}, "production", false},
		{"several", map[string]any{"message": "Deploy to?", "options": opts, "multiple": true},
			map[string]any{"answer": []any{"production", "staging"}}, []any{"staging", "production"}, false},
		{"their own", map[string]any{"message": "Deploy to?", "options": opts, "allow_other": true},
			map[string]any{"other": "canary"}, "canary", true},
		{"their own is a label", map[string]any{"message": "Deploy to?", "options": opts, "allow_other": true},
			map[string]any{"other": "staging"}, "staging", false},
		{"text", map[string]any{"message": "Name of the release?", "default": "v2"}, map[string]any{"answer": "v2.1"}, "v2.1", false},
	}
	for _, version := range formVersions {
		for _, tc := range cases {
			t.Run(version+" "+tc.name, func(t *testing.T) {
				t.Parallel()
				env := newTestEnv(t).headless()
				// A map of its own: the client's SDK writes defaults into
				// the content it validates, and the subtests run at once.
				p := answering(t, readingTime, acceptAnswer(maps.Clone(tc.reply)))
				ts := env.connectClient(20*time.Second, p.client(version))
				c, w := ts.ask(tc.args)
				if c.res.IsError || w.Status != lifecycle.StatusApproved || !reflect.DeepEqual(w.Answer, tc.answer) || w.Other != tc.other {
					t.Fatalf("%q %+v, want answer %#v", c.text, w, tc.answer)
				}
				if p.shown() != 1 {
					t.Fatalf("%d forms", p.shown())
				}
				schema := decodeSchema(t, p.forms[0].RequestedSchema)
				for name, prop := range schema.Properties {
					if prop.Default != nil {
						t.Errorf("the form chooses %s in advance: %+v", name, prop)
					}
				}
				if _, ok := schema.Properties["answer"]; !ok || (tc.args["allow_other"] == true) != (schema.Properties["other"].Type == "string") {
					t.Errorf("form schema: %+v", schema)
				}
				// A single choice's list starts with an entry that chooses
				// nothing, for a host that preselects the first.
				if answer := schema.Properties["answer"]; tc.args["options"] != nil && tc.args["multiple"] == nil && (len(answer.Enum) == 0 || answer.Enum[0] != noChoice) {
					t.Errorf("a single choice's first entry: %+v", answer)
				}
				expectAskedByForm(t, ts, w.Key)
				// status reads it as ask's answer.
				st, sw := ts.callStatus(w.Key)
				if !reflect.DeepEqual(sw.Answer, tc.answer) || !strings.HasPrefix(st.text, "The person ") || strings.Contains(st.text, "approved") {
					t.Fatalf("status: %q %+v", st.text, sw)
				}
			})
		}
	}
}

// callStatus calls the status tool and decodes its structured content.
func (ts *testServer) callStatus(key string) (toolCall, askWire) {
	ts.env.t.Helper()
	return ts.callAsk("status", map[string]any{"key": key})
}

// readAnswer takes only what a question's form asked for.
func TestReadAnswer(t *testing.T) {
	choice := dialog.Request{Kind: dialog.Choose, Options: []dialog.Option{{Label: "a"}, {Label: "b"}}}
	several := choice
	several.Multiple = true
	other := choice
	other.Other = true
	text := dialog.Request{Kind: dialog.Input}
	for _, tc := range []struct {
		name  string
		r     dialog.Request
		res   mcp.InputResponse
		want  []string
		typed bool
		err   string
	}{
		{"one", choice, acceptAnswer(map[string]any{"answer": "a"}), []string{"a"}, false, ""},
		{"the list's first entry, no option", choice, acceptAnswer(map[string]any{"answer": noChoice}), nil, false, "without a choice"},
		{"the first entry and their own", other, acceptAnswer(map[string]any{"answer": noChoice, "other": "c"}), []string{"c"}, true, ""},
		{"decline", choice, &mcp.ElicitResult{Action: "decline"}, nil, false, ""},
		{"cancel", text, &mcp.ElicitResult{Action: "cancel"}, nil, false, ""},
		{"nothing", choice, acceptAnswer(nil), nil, false, "without a choice"},
		{"a list for one", choice, acceptAnswer(map[string]any{"answer": []any{"a"}}), nil, false, "not what it asked for"},
		{"a number", choice, acceptAnswer(map[string]any{"answer": 1}), nil, false, "not what it asked for"},
		{"null", choice, acceptAnswer(map[string]any{"answer": nil}), nil, false, "not what it asked for"},
		{"a field not asked for", choice, acceptAnswer(map[string]any{"answer": "a", "decision": "approve"}), nil, false, "did not ask for"},
		{"other where none was offered", choice, acceptAnswer(map[string]any{"other": "x"}), nil, false, "did not ask for"},
		{"several, in the options' order", several, acceptAnswer(map[string]any{"answer": []any{"b", "a"}}), []string{"a", "b"}, false, ""},
		{"a string for several", several, acceptAnswer(map[string]any{"answer": "a"}), nil, false, "not what it asked for"},
		{"a number among several", several, acceptAnswer(map[string]any{"answer": []any{"a", 2}}), nil, false, "not what it asked for"},
		{"none of several", several, acceptAnswer(map[string]any{"answer": []any{}}), nil, false, "without a choice"},
		{"their own", other, acceptAnswer(map[string]any{"other": "c"}), []string{"c"}, true, ""},
		{"their own and a label", other, acceptAnswer(map[string]any{"answer": "a", "other": "c"}), nil, false, "both"},
		{"their own, blank", other, acceptAnswer(map[string]any{"other": "  "}), nil, false, "without a choice"},
		{"their own, not text", other, acceptAnswer(map[string]any{"other": 3}), nil, false, "not what it asked for"},
		{"text", text, acceptAnswer(map[string]any{"answer": "v2"}), []string{"v2"}, false, ""},
		{"empty text", text, acceptAnswer(map[string]any{"answer": ""}), []string{""}, false, ""},
		{"no text", text, acceptAnswer(nil), nil, false, "not what it asked for"},
		{"unknown action", text, &mcp.ElicitResult{Action: "approve"}, nil, false, "unknown action"},
		{"not a form", text, &mcp.ListRootsResult{}, nil, false, "not a form's result"},
	} {
		ans, err := readAnswer(tc.r, tc.res)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && (!reflect.DeepEqual(ans.Values, tc.want) || ans.Typed != tc.typed || ans.Approved != (tc.want != nil)):
			t.Errorf("%s: %+v, want %q typed %v", tc.name, ans, tc.want, tc.typed)
		case err != nil && ans.Approved:
			t.Errorf("%s: an error with an approval", tc.name)
		}
	}
}
