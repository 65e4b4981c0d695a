package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/padding"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// These tests ask through the client's form (MCP elicitation): the SDK's
// client, with an elicitation handler that stands in for the person, at
// each protocol version that asks differently. Below 2026-07-28 the server
// sends elicitation/create itself; from 2026-07-28 on it returns the form
// as an input request, which the client's SDK answers and retries.

// formVersions are the protocol versions a form is tested at: before and
// after forms were a capability of their own, and the first version where
// the server asks through the tool's result.
var formVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// readingTime is how long the scripted person takes to answer: longer
// than the engine's 400 ms, under which an answer is no person's.
const readingTime = 450 * time.Millisecond

// person answers the server's forms as a test scripts it, and keeps
// every form it was shown.
type person struct {
	t     *testing.T
	reply func(ctx context.Context, n int) (*mcp.ElicitResult, error)

	mu    sync.Mutex
	forms []*mcp.ElicitParams
}

// answering is a person who gives res to every form after delay.
func answering(t *testing.T, delay time.Duration, res *mcp.ElicitResult) *person {
	return &person{t: t, reply: func(ctx context.Context, _ int) (*mcp.ElicitResult, error) {
		select {
		case <-time.After(delay):
			return res, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
}

// nobody is a person whom no form may reach.
func nobody(t *testing.T) *person {
	return &person{t: t, reply: func(context.Context, int) (*mcp.ElicitResult, error) {
		t.Errorf("the client was asked to show a form")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
}

func (p *person) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	p.forms = append(p.forms, req.Params)
	n := len(p.forms)
	p.mu.Unlock()
	return p.reply(ctx, n)
}

// shown is how many forms the person was shown.
func (p *person) shown() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.forms)
}

// client is the person's client, at version.
func (p *person) client(version string) testClient {
	return testClient{version: version, elicit: p.elicit}
}

func accept(decision any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}
}

// expectForm checks that a form asks the request it was posed for, and
// that only an explicit choice in its one required field can answer it.
func expectForm(t *testing.T, form *mcp.ElicitParams, title, message string) {
	t.Helper()
	if !strings.HasPrefix(form.Message, title+"\n\n"+message+"\n\n") || !strings.Contains(form.Message, "ask-confirm") {
		t.Errorf("form message %q does not ask %q: %q", form.Message, title, message)
	}
	if form.Mode != "" && form.Mode != "form" {
		t.Errorf("form mode %q", form.Mode)
	}
	schema := decodeSchema(t, form.RequestedSchema)
	decision := schema.Properties["decision"]
	if schema.Type != "object" || !reflect.DeepEqual(schema.Required, []string{"decision"}) || len(schema.Properties) != 1 ||
		decision.Type != "string" || !reflect.DeepEqual(decision.Enum, []string{"deny", "approve"}) || decision.Default != nil {
		t.Errorf("form schema: %+v", schema)
	}
}

// expectAskedByForm checks that request id was asked through the form and
// never by a dialog: no holder, and the record and every history event
// name the channel. It returns the history's event kinds.
func expectAskedByForm(t *testing.T, ts *testServer, id string) []string {
	t.Helper()
	env := ts.env
	if n := env.holders.count(); n != 0 {
		t.Fatalf("%d dialog holders started for a form", n)
	}
	if rec := env.record(id); rec.Channel != "elicitation" || rec.HolderPID != 0 {
		t.Fatalf("record: channel %q, holder %d", rec.Channel, rec.HolderPID)
	}
	events, _, err := ts.s.engine.Events(0, id)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev.Event)
		if ev.Channel != "elicitation" {
			t.Errorf("history event %s names channel %q", ev.Event, ev.Channel)
		}
	}
	return kinds
}

// Where no dialog can be shown, a client that shows forms asks the person
// through one, at every protocol version: only accept with "approve"
// approves; deny, decline and cancel deny; an answer faster than a person
// reads means the form was not shown to one, and fails; an accept without
// a decision fails. The answer is recorded in the store and history as a
// dialog's, under the channel's name.
func TestFormWhereNoDialogCanBeShown(t *testing.T) {
	for _, version := range formVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name   string
				delay  time.Duration
				answer *mcp.ElicitResult
				status string
				text   string
				forms  int
				// latest: only at the latest version; the others read the
				// answer the same way (TestReadDecision).
				latest bool
			}{
				{"approve", readingTime, accept("approve"), lifecycle.StatusApproved, mcpApproved, 1, false},
				{"decline", readingTime, &mcp.ElicitResult{Action: "decline"}, lifecycle.StatusDenied, mcpDenied, 1, false},
				// Shown again (--retries 2), as a dialog that did not render is.
				{"instant decline", 0, &mcp.ElicitResult{Action: "decline"}, lifecycle.StatusFailed, "sooner than a person can read it, so it was not shown to one", 3, false},
				{"instant approve", 0, accept("approve"), lifecycle.StatusFailed, "sooner than a person can read it, so it was not shown to one", 3, false},
				{"deny", readingTime, accept("deny"), lifecycle.StatusDenied, mcpDenied, 1, true},
				{"cancel", readingTime, &mcp.ElicitResult{Action: "cancel"}, lifecycle.StatusDenied, mcpDenied, 1, true},
				{"accept without content", readingTime, &mcp.ElicitResult{Action: "accept"}, lifecycle.StatusFailed, "the form was accepted without a decision", 3, true},
			} {
				if tc.latest && version != multiRoundTripVersion {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					env := newTestEnv(t).headless()
					if tc.delay == 0 {
						// An instant answer is one sooner than the
						// threshold, however slow the machine: put the
						// threshold out of any test's reach.
						env.humanAnswer = time.Hour
					}
					p := answering(t, tc.delay, tc.answer)
					ts := env.connectClient(20*time.Second, p.client(version))
					title, message := "Deploy", "Ship v2 to production? ("+tc.name+")"
					c := ts.call("confirm", map[string]any{"title": title, "message": message})
					expectResult(t, c, tc.status, "")
					if !strings.Contains(c.text, tc.text) || c.out.Remembered {
						t.Fatalf("text %q (remembered %v), want it to contain %q", c.text, c.out.Remembered, tc.text)
					}
					if n := p.shown(); n != tc.forms {
						t.Fatalf("the person was shown %d forms, want %d", n, tc.forms)
					}
					expectForm(t, p.forms[0], title, message)
					kinds := expectAskedByForm(t, ts, c.out.Key)
					rec := env.record(c.out.Key)
					if tc.status == lifecycle.StatusFailed {
						if rec.Status != store.Failed || rec.Attempt != tc.forms {
							t.Fatalf("record %s after attempt %d", rec.Status, rec.Attempt)
						}
						return
					}
					if string(rec.Status) != tc.status || rec.Uncollected {
						t.Fatalf("record %s, uncollected %v", rec.Status, rec.Uncollected)
					}
					if got := strings.Join(kinds, " "); got != "requested shown answered collected" {
						t.Fatalf("history %q", got)
					}
					// The answer is the store's, as a dialog's is.
					st := ts.call("status", map[string]any{"key": c.out.Key})
					expectResult(t, st, tc.status, "")
					if !st.out.Remembered {
						t.Fatalf("status: %+v", st.out)
					}
				})
			}
		})
	}
}

// Where a dialog can be shown, auto asks by dialog even a client that
// shows forms: the agent's host cannot click a dialog.
func TestAutoAsksByDialogWhereOneCanBeShown(t *testing.T) {
	for _, version := range formVersions {
		t.Run(version, func(t *testing.T) {
			env := newTestEnv(t).holding()
			p := nobody(t)
			ts := env.connectClient(0, p.client(version))
			c := ts.call("confirm", map[string]any{"message": "Rotate the keys?"})
			expectResult(t, c, lifecycle.StatusPending, mcpPending)
			env.holders.awaitHeld(c.out.Key)
			if n := env.holders.count(); n != 1 {
				t.Fatalf("%d dialog holders started, want 1", n)
			}
			if rec := env.record(c.out.Key); rec.Channel != "" {
				t.Fatalf("a dialog's request names channel %q", rec.Channel)
			}
			expectResult(t, ts.call("confirm", map[string]any{"message": "Rotate the keys?"}), lifecycle.StatusPending, mcpPending)
			if n := p.shown(); n != 0 {
				t.Fatalf("the person was shown %d forms besides the dialog", n)
			}
		})
	}
}

// --ask-with dialog never asks through the client, even where no dialog
// can be shown.
func TestAskWithDialogNeverUsesTheForm(t *testing.T) {
	env := newTestEnv(t).headless()
	env.askWith = askDialog
	p := nobody(t)
	ts := env.connectClient(time.Second, p.client("2025-06-18"))
	c := ts.call("confirm", map[string]any{"message": "Anyone there?"})
	expectResult(t, c, lifecycle.StatusHeadless, "Nobody can be asked: no display in this test. "+mcpHeadlessHint)
	if p.shown() != 0 || env.holders.count() != 0 {
		t.Fatalf("%d forms and %d dialogs", p.shown(), env.holders.count())
	}
}

// --ask-with elicitation asks through the form even where a dialog could
// be shown.
func TestAskWithElicitationAlwaysUsesTheForm(t *testing.T) {
	for _, version := range formVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t)
			env.askWith = askElicitation
			p := answering(t, readingTime, accept("approve"))
			ts := env.connectClient(20*time.Second, p.client(version))
			c := ts.call("confirm", map[string]any{"message": "Tag v2?"})
			expectResult(t, c, lifecycle.StatusApproved, mcpApproved)
			if p.shown() != 1 {
				t.Fatalf("the person was shown %d forms", p.shown())
			}
			expectAskedByForm(t, ts, c.out.Key)
		})
	}
}

// --ask-with elicitation, from a client that shows no forms: nobody is
// asked (no dialog either, even where one could be shown), the result
// says why, and nothing approves.
func TestAskWithElicitationFromAClientWithoutForms(t *testing.T) {
	env := newTestEnv(t)
	env.askWith = askElicitation
	ts := env.connect(10 * time.Second)
	args := map[string]any{"message": "Anyone there?"}
	for range 2 {
		c := ts.call("confirm", args)
		expectResult(t, c, lifecycle.StatusHeadless,
			"Nobody can be asked: --ask-with elicitation, but the client did not declare the elicitation capability. "+mcpNoForm)
		if c.out.Key != ts.identityOf("Anyone there?") {
			t.Fatalf("key %s", c.out.Key)
		}
	}
	if n := env.holders.count(); n != 0 {
		t.Fatalf("%d dialog holders started", n)
	}
	if recs, err := store.New(env.paths.DB).List(); err != nil || len(recs) != 0 {
		t.Fatalf("%d records stored (%v)", len(recs), err)
	}
	// Invalid arguments are still tool errors.
	expectToolError(t, ts.call("confirm", map[string]any{"message": "Go?", "ok_label": "Same", "cancel_label": "Same"}), "invalid argument ok_label")
}

// A person slower than the call's --wait: the call returns pending with
// the form still open in the client; the answer given later is recorded,
// the status tool sees it, and the next identical call collects it without
// a second form.
func TestFormAnsweredAfterTheCallReturnedPending(t *testing.T) {
	for _, version := range formVersions[:2] {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t).headless()
			released := make(chan struct{})
			p := &person{t: t, reply: func(ctx context.Context, _ int) (*mcp.ElicitResult, error) {
				select {
				case <-released:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				time.Sleep(readingTime)
				return accept("approve"), nil
			}}
			ts := env.connectClient(300*time.Millisecond, p.client(version))
			args := map[string]any{"message": "Merge the release branch?"}
			c := ts.call("confirm", args)
			expectResult(t, c, lifecycle.StatusPending, mcpPending)
			// The form goes out while the call waits, and reaches the
			// client when it does: on a loaded machine maybe only after
			// the call's short wait.
			eventuallyWithin(t, 30*time.Second, "the form shown", func() bool { return p.shown() > 0 })
			if p.shown() != 1 {
				t.Fatalf("%d forms shown", p.shown())
			}
			close(released)
			eventually(t, "the late answer recorded", func() bool { return env.record(c.out.Key).Status.Final() })
			if rec := env.record(c.out.Key); rec.Status != store.Approved {
				t.Fatalf("record %s (%s)", rec.Status, rec.Reason)
			}

			st := ts.call("status", map[string]any{"key": c.out.Key})
			expectResult(t, st, lifecycle.StatusApproved, "")
			if rec := env.record(c.out.Key); !rec.Uncollected {
				t.Fatalf("status collected the answer: %+v", rec)
			}
			got := ts.call("confirm", args)
			expectResult(t, got, lifecycle.StatusApproved, "")
			if !got.out.Remembered || got.out.Key != c.out.Key {
				t.Fatalf("collected: %+v", got.out)
			}
			if p.shown() != 1 {
				t.Fatalf("%d forms shown, want the one", p.shown())
			}
			kinds := expectAskedByForm(t, ts, c.out.Key)
			if got := strings.Join(kinds, " "); got != "requested shown answered collected" {
				t.Fatalf("history %q", got)
			}
		})
	}
}

// An accept whose content fails the form's schema (here: no decision at
// all) never approves. Below 2026-07-28 the client refuses it, the server's
// form fails, and the request fails after being shown again; from
// 2026-07-28 on the client's SDK refuses it before the server hears of it,
// so the call fails and the form stays open, and the next call brings the
// same form rather than a second one.
func TestFormAcceptedWithEmptyContentNeverApproves(t *testing.T) {
	for _, version := range formVersions {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t).headless()
			p := answering(t, readingTime, &mcp.ElicitResult{Action: "accept", Content: map[string]any{}})
			ts := env.connectClient(20*time.Second, p.client(version))
			args := map[string]any{"message": "Drop the table?"}
			id := ts.formIdentityOf("Drop the table?")
			if version < multiRoundTripVersion {
				c := ts.call("confirm", args)
				expectResult(t, c, lifecycle.StatusFailed, "")
				if !strings.Contains(c.text, "asking through the client's form") || p.shown() != 3 {
					t.Fatalf("text %q after %d forms", c.text, p.shown())
				}
				if rec := env.record(id); rec.Status != store.Failed {
					t.Fatalf("record %s", rec.Status)
				}
				return
			}
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				res, err := ts.cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: args})
				cancel()
				if err == nil {
					t.Fatalf("an empty accept returned a result: %+v", res)
				}
			}
			if rec := env.record(id); rec.Status.Final() || rec.Attempt != 1 {
				t.Fatalf("record %s at attempt %d, want the one form still open", rec.Status, rec.Attempt)
			}
			if p.shown() != 2 {
				t.Fatalf("%d forms shown", p.shown())
			}
			if kinds := expectAskedByForm(t, ts, id); kinds[0] != "requested" || strings.Count(strings.Join(kinds, " "), "requested") != 1 {
				t.Fatalf("history %v", kinds)
			}
		})
	}
}

// From 2026-07-28 on the form travels in the tool's result, with a random
// token as its request state: every call for the request gets the same
// form until one brings its answer with that token. A retry with another
// token, or with this token for another request, answers nothing.
func TestFormRelayedThroughTheToolResult(t *testing.T) {
	env := newTestEnv(t).headless()
	ts := env.connectClient(10*time.Second, testClient{version: multiRoundTripVersion, elicit: nobody(t).elicit, manual: true})
	args := map[string]any{"message": "Publish v2?"}
	id := ts.formIdentityOf("Publish v2?")
	first := ts.relayed(args, nil, "")
	expectForm(t, first.form, dialog.DefaultTitle, "Publish v2?")
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(first.token) {
		t.Fatalf("request state %q is not a random token", first.token)
	}
	if again := ts.relayed(args, nil, ""); again.token != first.token {
		t.Fatalf("a second call got another form (token %s, first %s)", again.token, first.token)
	}

	other := map[string]any{"message": "Publish v3?"}
	second := ts.relayed(other, nil, "")
	if second.token == first.token {
		t.Fatal("two requests share a token")
	}
	// The first request's token does not answer the second's form, nor a
	// made-up token the first's.
	if got := ts.relayed(other, accept("approve"), first.token); got.token != second.token {
		t.Fatalf("another request's token answered the form: %+v", got)
	}
	if got := ts.relayed(args, accept("approve"), strings.Repeat("0", 64)); got.token != first.token {
		t.Fatalf("a made-up token answered the form: %+v", got)
	}
	for _, key := range []string{id, ts.formIdentityOf("Publish v3?")} {
		if rec := env.record(key); rec.Status.Final() || rec.Attempt != 1 {
			t.Fatalf("record of %s: %s at attempt %d", key, rec.Status, rec.Attempt)
		}
	}

	time.Sleep(readingTime)
	c := ts.callWith(&mcp.CallToolParams{Name: "confirm", Arguments: args,
		InputResponses: mcp.InputResponseMap{"decision": accept("approve")}, RequestState: first.token})
	expectResult(t, c, lifecycle.StatusApproved, mcpApproved)
	if c.out.Key != id {
		t.Fatalf("key %s, want %s", c.out.Key, id)
	}
	// The answered form is gone: its token answers nothing again.
	expectResult(t, ts.callWith(&mcp.CallToolParams{Name: "confirm", Arguments: args,
		InputResponses: mcp.InputResponseMap{"decision": accept("deny")}, RequestState: first.token}), lifecycle.StatusApproved, "")
	c = ts.callWith(&mcp.CallToolParams{Name: "confirm", Arguments: other,
		InputResponses: mcp.InputResponseMap{"decision": accept("deny")}, RequestState: second.token})
	expectResult(t, c, lifecycle.StatusDenied, mcpDenied)
}

// relayedCall is the form a call returned as an input request.
type relayedCall struct {
	form  *mcp.ElicitParams
	token string
}

// relayed calls confirm with args, bringing answer under token when
// answer is not nil, and expects the form in the result, which it returns.
func (ts *testServer) relayed(args map[string]any, answer *mcp.ElicitResult, token string) relayedCall {
	t := ts.env.t
	t.Helper()
	p := &mcp.CallToolParams{Name: "confirm", Arguments: args, RequestState: token}
	if answer != nil {
		p.InputResponses = mcp.InputResponseMap{"decision": answer}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ts.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("confirm %v: %v", args, err)
	}
	form, ok := res.InputRequests["decision"].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok || len(res.InputRequests) != 1 || len(res.Content) != 0 || res.StructuredContent != nil {
		b, _ := json.Marshal(res)
		t.Fatalf("confirm %v: %s, want one form", args, b)
	}
	return relayedCall{form: form, token: res.RequestState}
}

// A server that stops ends the forms it asks: the engine's goroutines are
// drained (the package's leak check would fail otherwise), and the request
// ends failed, so the next server asks again.
func TestServerStopEndsItsForms(t *testing.T) {
	for _, version := range formVersions[:2] {
		t.Run(version, func(t *testing.T) {
			env := newTestEnv(t).headless()
			left := make(chan struct{})
			p := &person{t: t, reply: func(ctx context.Context, _ int) (*mcp.ElicitResult, error) {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-left:
					return nil, errors.New("the person left")
				}
			}}
			ts := env.connectClient(100*time.Millisecond, p.client(version))
			// Before the client closes, which waits for its handlers.
			t.Cleanup(func() { close(left) })
			c := ts.call("confirm", map[string]any{"message": "Still there?"})
			expectResult(t, c, lifecycle.StatusPending, mcpPending)
			if rec := env.record(c.out.Key); rec.Status.Final() {
				t.Fatalf("record %s before the server stopped", rec.Status)
			}
			ts.stop()
			eventually(t, "the form's request to end", func() bool { return env.record(c.out.Key).Status.Final() })
			if rec := env.record(c.out.Key); rec.Status != store.Failed {
				t.Fatalf("record %s", rec.Status)
			}
		})
	}
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

// eventuallyWithin is eventually, waiting at most timeout.
func eventuallyWithin(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// The form's wording and the decision it reads.
func TestReadDecision(t *testing.T) {
	for _, tc := range []struct {
		res      mcp.InputResponse
		approved bool
		err      string
	}{
		{accept("approve"), true, ""},
		{accept("deny"), false, ""},
		{&mcp.ElicitResult{Action: "decline"}, false, ""},
		{&mcp.ElicitResult{Action: "cancel"}, false, ""},
		{&mcp.ElicitResult{Action: "accept"}, false, "without a decision"},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, false, "without a decision"},
		{accept("Approve"), false, "neither approve nor deny"},
		{accept("yes"), false, "neither approve nor deny"},
		{accept(true), false, "neither approve nor deny"},
		{accept(""), false, "neither approve nor deny"},
		{&mcp.ElicitResult{Action: "approve", Content: map[string]any{"decision": "approve"}}, false, "unknown action"},
		{&mcp.ElicitResult{Action: ""}, false, "unknown action"},
		{(*mcp.ElicitResult)(nil), false, "not a form's result"},
		{nil, false, "not a form's result"},
		{&mcp.ListRootsResult{}, false, "not a form's result"},
	} {
		approved, err := readDecision(tc.res)
		if approved != tc.approved || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("readDecision(%s) = %v, %v; want %v and an error containing %q", fmt.Sprintf("%#v", tc.res), approved, err, tc.approved, tc.err)
		}
	}
}

// The instructions and the confirm tool say how the person is asked, by
// --ask-with: a model must not take a form for something to fill in.
func TestDescriptionsSayHowThePersonIsAsked(t *testing.T) {
	for askWith, want := range map[string]string{askDialog: mcpAsksDialog, askAuto: mcpAsksAuto, askElicitation: mcpAsksElicitation} {
		env := newTestEnv(t)
		env.askWith = askWith
		ts := env.connect(40 * time.Second)
		init := ts.cs.InitializeResult()
		list, err := ts.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var confirm *mcp.Tool
		for _, tool := range list.Tools {
			if tool.Name == "confirm" {
				confirm = tool
			}
		}
		if !strings.Contains(init.Instructions, "approve or cancel an action, "+want+".") || !strings.Contains(init.Instructions, "never fill it in") ||
			!strings.Contains(confirm.Description, "approve or cancel an action, "+want+". Returns within 40s.") {
			t.Errorf("--ask-with %s: instructions %q, confirm %q", askWith, init.Instructions, confirm.Description)
		}
		if mentions := strings.Contains(confirm.Description, "elicitation"); mentions != (askWith != askDialog) {
			t.Errorf("--ask-with %s: confirm %q", askWith, confirm.Description)
		}
	}
}

// The threshold holds for each sending of a relayed form: a host that
// answers a form the instant it is sent again, long after it was first
// posed, did not show it to anyone, and approves nothing.
func TestFormAnsweredAtOnceAfterResendingIsNotShown(t *testing.T) {
	env := newTestEnv(t).headless()
	// The engine's clock runs with the wall clock plus a skew the test
	// moves: the form was first posed twice the threshold ago, and is
	// answered at once (well within the threshold of 10 s, however slow
	// the machine) after it was sent again.
	var skew atomic.Int64
	env.humanAnswer = 10 * time.Second
	env.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	ts := env.connectClient(10*time.Second, testClient{version: multiRoundTripVersion, elicit: nobody(t).elicit, manual: true})
	args := map[string]any{"message": "Rotate the keys?"}
	first := ts.relayed(args, nil, "")
	skew.Add(int64(2 * env.humanAnswer))
	again := ts.relayed(args, nil, "")
	if again.token != first.token {
		t.Fatalf("the form was posed anew (token %s, first %s)", again.token, first.token)
	}
	// The engine shows the form again, as it does a dialog that did not
	// render: a new form, not an approval.
	if next := ts.relayed(args, accept("approve"), again.token); next.token == again.token {
		t.Fatal("the instant answer was not taken")
	}
	rec := env.record(ts.formIdentityOf("Rotate the keys?"))
	if rec.Status == store.Approved || rec.Attempt != 2 {
		t.Fatalf("the record says %s at attempt %d", rec.Status, rec.Attempt)
	}
	events, _, err := ts.s.engine.Events(0, rec.Identity)
	if err != nil {
		t.Fatal(err)
	}
	var failed bool
	for _, e := range events {
		failed = failed || (e.Event == "failed" && strings.Contains(e.Reason, "sooner than a person can read"))
	}
	if !failed {
		t.Fatalf("no failed event for the instant answer: %+v", events)
	}
}

// The client's form shows a message padded with blank lines, spaces or
// line separators with its padding as a marker, so its tail is in view.
func TestFormCompactsPadding(t *testing.T) {
	for _, c := range padding.Cases {
		r := dialog.Request{Title: "Deploy", Message: padding.Head + c.Pad + padding.Tail, OKLabel: "Approve", CancelLabel: "Cancel"}
		for _, form := range []*mcp.ElicitParams{formFor(r), questionForm(r)} {
			if !strings.HasPrefix(form.Message, "Deploy\n\n"+padding.Head) || !strings.Contains(form.Message, padding.Tail) || len(form.Message) > 600 || strings.Count(form.Message, "\n") > 10 {
				t.Errorf("%s: the form's message is %d bytes: %.300q", c.Name, len(form.Message), form.Message)
			}
		}
	}
}
