package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Asking through the client: where no dialog can be shown (or always, with
// --ask-with elicitation), the engine asks the person through a form the
// client shows (MCP elicitation). The engine runs the form's Backend in a
// goroutine of this process that holds the request's lock, records the
// answer as a holder would, and reads an answer faster than a person can
// as "not shown". The Backend is one of two, by protocol version:
//
//   - sessionForm, below 2026-07-28: it sends elicitation/create over the
//     session itself, so the form may outlive the tool call that asked.
//   - relayedForm, from 2026-07-28 on, where a server may ask for input only
//     in a tool call's result: it poses the form in questions, which the
//     confirm tool returns as an input request and to which the client's
//     retry of the call brings the answer.
//
// Either way only an explicit "approve" in the form's required field is
// an approval; anything unexpected is an error, which fails the request.

// The values of --ask-with.
const (
	askDialog      = "dialog"
	askElicitation = "elicitation"
	askAuto        = "auto"
)

// channelName is the name the engine records a form's requests under, in
// the store and the history.
const channelName = "elicitation"

// The form's one field and its two values.
const (
	decisionField   = "decision"
	decisionApprove = "approve"
	decisionDeny    = "deny"
)

// multiRoundTripVersion is the first protocol version in which a server
// asks a client for input only through a tool call's result (SEP-2322).
// Versions are dates, so they compare as strings.
const multiRoundTripVersion = "2026-07-28"

// canElicit reports whether a client with caps shows forms: it declared
// elicitation, and not only its URL mode. Before 2025-11-25 an empty
// elicitation capability meant forms.
func canElicit(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// multiRoundTrip reports whether ss speaks 2026-07-28 or later, where the
// server may not send elicitation/create itself. A session that never
// initialized (2026-07-28 needs no initialize) counts as the latest, as
// the SDK counts it.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= multiRoundTripVersion
}

// formFor is the form that asks r: its title and message, and one required
// choice between approve and deny with no default, so that a host that
// submits forms unread submits nothing that approves.
func formFor(r dialog.Request) *mcp.ElicitParams {
	if r.Kind != dialog.Confirm {
		return questionForm(r)
	}
	// A title shows its invisible characters as markers, as the text does.
	title := dialog.Literal(r.Title, false)
	if title == "" {
		title = dialog.DefaultTitle
	}
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: fmt.Sprintf(formMessage, title, formText(r)),
		RequestedSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				decisionField: {
					Type:        "string",
					Title:       formDecisionTitle,
					Description: fmt.Sprintf(formDecisionHelp, decisionApprove, r.OKLabel, decisionDeny, r.CancelLabel),
					// Deny first: a choice list that preselects its first
					// entry, sent unread or with Enter, denies.
					Enum: []any{decisionDeny, decisionApprove},
					// The button labels the request asked for, where the
					// host shows titled choices.
					Extra: map[string]any{"enumNames": []any{r.CancelLabel, r.OKLabel}},
				},
			},
			Required: []string{decisionField},
		},
	}
}

// readDecision turns the client's answer to a form into a Backend's: true
// only for accept with decision "approve"; false for accept with "deny",
// decline and cancel; an error for anything else.
func readDecision(res mcp.InputResponse) (bool, error) {
	r, ok := res.(*mcp.ElicitResult)
	if !ok || r == nil {
		return false, fmt.Errorf(msgFormNotAnswer, res)
	}
	switch r.Action {
	case "accept":
	case "decline", "cancel":
		return false, nil
	default:
		return false, fmt.Errorf(msgFormAction, r.Action)
	}
	v, found := r.Content[decisionField]
	switch {
	case !found:
		return false, errors.New(msgFormNoDecision)
	case v == decisionApprove:
		return true, nil
	case v == decisionDeny:
		return false, nil
	default:
		return false, fmt.Errorf(msgFormDecision, v)
	}
}

// sessionForm is the Backend that asks through a client below 2026-07-28,
// by sending it elicitation/create on session.
type sessionForm struct{ session *mcp.ServerSession }

// Ask implements dialog.Backend.
func (f sessionForm) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	res, err := f.session.Elicit(ctx, formFor(r))
	switch {
	case ctx.Err() != nil:
		return dialog.Answer{}, ctx.Err()
	case err != nil:
		return dialog.Answer{}, fmt.Errorf(msgFormFailed, err)
	}
	return readForm(r, res)
}

// readForm reads the client's answer to r's form.
func readForm(r dialog.Request, res mcp.InputResponse) (dialog.Answer, error) {
	if r.Kind != dialog.Confirm {
		return readAnswer(r, res)
	}
	ok, err := readDecision(res)
	return dialog.Answer{Approved: ok}, err
}

// relayedForm is the Backend that asks through a client at 2026-07-28 or
// later: it poses the form in questions and waits for a tool call to bring
// the answer.
type relayedForm struct{ questions *questions }

// Ask implements dialog.Backend.
func (f relayedForm) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	res, err := f.questions.pose(ctx, r)
	if err != nil {
		return dialog.Answer{}, err
	}
	return readForm(r, res)
}

// questions are the forms relayedForm has posed and no call has answered
// yet, at most one per request identity: only the goroutine that holds an
// identity's lock poses its form. They are filed under the request as the
// tool call makes it (asked), not as the engine asks it through the form,
// which names its way of asking (dialog.Request.Via): so a call finds its
// form without knowing how the engine will ask.
type questions struct {
	mu   sync.Mutex
	open map[string]*question
	// posed is closed, and replaced, whenever a form is posed.
	posed chan struct{}
}

// asked is r as the tool call made it, before the engine chose to ask it
// through the client's form: its identity and content hash.
func asked(r dialog.Request) (id, content string) {
	r.Via = ""
	return r.Identity(), r.ContentHash()
}

// question is one posed form.
type question struct {
	content string // the content hash of the request as asked
	// token is the request state the input request carries, which the
	// client's retry brings back with the answer: random, so only a client
	// that was sent this form can answer it.
	token  string
	form   *mcp.ElicitParams
	answer chan formAnswer // buffered: the one answer
	// sent is when a call last returned the form to the client (under
	// questions.mu): an answer sooner than the engine's HumanAnswer after it is no
	// person's, however long ago the form was first posed.
	sent time.Time
}

// formAnswer is what a call brings to a posed form: the client's answer,
// or that it came too soon after the form was sent to be a person's.
type formAnswer struct {
	res     mcp.InputResponse
	tooSoon bool
}

func newQuestions() *questions {
	return &questions{open: map[string]*question{}, posed: make(chan struct{})}
}

// pose puts r's form to the client, through the next confirm call for r,
// and waits for the answer that a call brings, or for ctx to end.
func (qs *questions) pose(ctx context.Context, r dialog.Request) (mcp.InputResponse, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	id, content := asked(r)
	q := &question{content: content, token: token, form: formFor(r), answer: make(chan formAnswer, 1)}
	qs.mu.Lock()
	qs.open[id] = q
	close(qs.posed)
	qs.posed = make(chan struct{})
	qs.mu.Unlock()
	defer qs.withdraw(id, q)
	select {
	case a := <-q.answer:
		if a.tooSoon {
			return nil, errors.New(msgFormTooSoon)
		}
		return a.res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// withdraw forgets q, unless a call has taken it already.
func (qs *questions) withdraw(id string, q *question) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if qs.open[id] == q {
		delete(qs.open, id)
	}
}

// pending returns r's open form, if any, and a channel that is closed when
// the next form is posed.
func (qs *questions) pending(r dialog.Request) (*question, <-chan struct{}) {
	id, content := asked(r)
	qs.mu.Lock()
	defer qs.mu.Unlock()
	q := qs.open[id]
	if q != nil && q.content != content {
		// Another question under the same --key, which this call replaces.
		q = nil
	}
	return q, qs.posed
}

// take returns the answer a call brings in p to r's open form, when p's
// request state is that form's token, for the call to hand over once it
// follows the request (lifecycle.Call.Joined); the form is no longer open
// to other calls. It returns nil for anything else, which the call ignores
// as a retry of a form that has ended.
//
// The engine's human-answer threshold applies to each sending of the form:
// a host that answers a form the instant it is sent again did not show it
// to anyone. e's clock times it.
func (qs *questions) take(e *lifecycle.Engine, r dialog.Request, p *mcp.CallToolParamsRaw) *handover {
	if p.RequestState == "" {
		return nil
	}
	id, content := asked(r)
	qs.mu.Lock()
	defer qs.mu.Unlock()
	q := qs.open[id]
	if q == nil || q.content != content || subtle.ConstantTimeCompare([]byte(q.token), []byte(p.RequestState)) != 1 {
		return nil
	}
	delete(qs.open, id)
	return &handover{q: q, answer: formAnswer{res: p.InputResponses[decisionField], tooSoon: e.Now().Sub(q.sent) < e.HumanAnswer()}}
}

// send returns the tool result that puts q's form to the client, and
// notes when it was sent.
func (qs *questions) send(e *lifecycle.Engine, q *question) *mcp.CallToolResult {
	qs.mu.Lock()
	q.sent = e.Now()
	qs.mu.Unlock()
	return q.inputRequest()
}

// handover is the client's answer to a form, on its way to the Backend
// that posed it.
type handover struct {
	once   sync.Once
	q      *question
	answer formAnswer
}

// deliver hands the answer over; only the first call does anything.
func (h *handover) deliver() {
	h.once.Do(func() { h.q.answer <- h.answer })
}

// inputRequest is the tool result that puts q's form to the client.
func (q *question) inputRequest() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{decisionField: q.form},
		RequestState:  q.token,
	}
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf(msgFormToken, err)
	}
	return hex.EncodeToString(b), nil
}

// askOrRelay asks c, whose Channel is a relayedForm, as engine.Ask does;
// but when the request's form is posed (or already open) before the engine
// has an outcome, it returns the form instead, for the client to fill in
// and bring back in its retry of the call. The engine's goroutine keeps
// waiting for that answer after this call returns.
func (s *server) askOrRelay(ctx context.Context, c lifecycle.Call) (lifecycle.Result, *question, error) {
	askCtx, stop := context.WithCancel(ctx)
	defer stop()
	type outcome struct {
		r   lifecycle.Result
		err error
	}
	asked := make(chan outcome, 1)
	go func() {
		r, err := s.engine.Ask(askCtx, c)
		asked <- outcome{r, err}
	}()
	for {
		q, posed := s.questions.pending(c.Request)
		if q != nil {
			stop()
			// Stopped, the engine reports the request as it stands, and
			// leaves any answer for the next call: a final one wins over
			// the form.
			o := <-asked
			if o.err != nil || o.r.Status != lifecycle.StatusPending {
				return o.r, nil, o.err
			}
			return lifecycle.Result{}, q, nil
		}
		select {
		case o := <-asked:
			if o.err == nil && o.r.Status == lifecycle.StatusPending {
				// The wait ran out just as the form was posed.
				if q, _ := s.questions.pending(c.Request); q != nil {
					return lifecycle.Result{}, q, nil
				}
			}
			return o.r, nil, o.err
		case <-posed:
		}
	}
}

// formText is the message as a client's form shows it: fitted as a phone
// shows it (dialog.Fit), its padding and invisible characters written as
// markers and, when too long, its head and its tail with a first line
// saying it is not shown whole. A form has no default answer to change.
func formText(r dialog.Request) string {
	text, _ := dialog.Fit(r.Message, dialog.Form)
	return text
}
