// Package mcpserver is ask-confirm's Model Context Protocol server, the
// program ask-confirm-mcp: the confirm command served to AI agents over
// stdio with the official Go SDK.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The MCP server serves the confirm command to AI agents. It is a thin
// translation: every tool call becomes a call of the request engine (lifecycle), which goes
// through the same lifecycle, store, identity and history as the command
// line. Only a person's answer approves (a click in the dialog, or an
// explicit approve in the client's form); the server has no --if-headless
// approve, and nothing an agent can send changes that.

// server answers tool calls through the request engine.
type server struct {
	engine *lifecycle.Engine
	// base is what a call leaves out: the command line's request defaults,
	// the server's wait, timeout, remember and collect-within, the
	// server's working directory as the scope, and, for confirm, the
	// approvers and approvals (--approvers, --approvals), which no call
	// can change. When nobody can be asked nobody is (IfHeadlessFail):
	// only a person's answer approves.
	base lifecycle.Call
	// askWith is --ask-with: askDialog, askElicitation or askAuto.
	askWith string
	// questions are the forms posed to clients at 2026-07-28 or later.
	questions *questions
	// life ends when the server stops, and with it every form it asks.
	life   context.Context
	stderr io.Writer
}

// newServer checks the server's settings, bounded exactly as a call's are,
// and makes its engine. Warnings go to stderr.
func newServer(base lifecycle.Call, askWith string, stderr io.Writer) (*server, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf(msgNoWorkDir, err)
	}
	base.Request.Scope = wd
	base.IfHeadless = lifecycle.IfHeadlessFail
	probe := base
	probe.Request.Message = "?"
	// Who is asked is the engine's to resolve, against the people set up,
	// at each call: the setup may change while the server runs.
	probe.Request.Approvers, probe.Request.Approvals = nil, 0
	if err := probe.Validate(); err != nil {
		return nil, lifecycle.Usage(err)
	}
	switch askWith {
	case askDialog, askElicitation, askAuto:
	default:
		return nil, lifecycle.Usage(&dialog.InvalidError{Field: "--ask-with", Reason: fmt.Sprintf(msgAskWith, askWith)})
	}
	s := &server{base: base, askWith: askWith, questions: newQuestions(), life: context.Background(), stderr: stderr}
	s.engine = lifecycle.New(lifecycle.Config{Warn: s.warn})
	return s, nil
}

func (s *server) warn(err error) { fmt.Fprintf(s.stderr, msgWarning+"\n", err) }

// serve answers requests on t until the client goes away or ctx ends. Only
// the transport writes to stdout. The forms it asks end with it: a request
// asked through one ends failed, and the next call asks again.
func (s *server) serve(ctx context.Context, t mcp.Transport) error {
	life, stop := context.WithCancel(ctx)
	s.life = life
	defer s.engine.Drain()
	defer stop()
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcp.NewServer(&mcp.Implementation{Name: "ask-confirm", Title: "ask-confirm", Version: lifecycle.Version()}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf(mcpInstructions, s.asks(), dialog.ShortDuration(s.base.Wait), dialog.ShortDuration(max(s.base.CollectWithin, s.base.Remember)), dialog.ShortDuration(s.base.Remember)),
		Logger:       logger,
		// The server sends no log messages; stderr carries them.
		Capabilities: &mcp.ServerCapabilities{},
	})
	mcp.AddTool(srv, s.confirmTool(), s.confirm)
	mcp.AddTool(srv, s.askTool(), s.ask)
	mcp.AddTool(srv, s.statusTool(), s.status)
	mcp.AddTool(srv, s.cancelTool(), s.cancel)
	err := srv.Run(ctx, t)
	if ctx.Err() != nil {
		// Stopped by a signal: the dialogs stay up for the next server.
		return nil
	}
	return err
}

// request turns a confirm call's arguments into the request and timeout of
// one confirm invocation; timeout is the server's unless the call gives one.
func request(in confirmArgs, timeout time.Duration) (dialog.Request, time.Duration, error) {
	req := dialog.Request{
		Title:          in.Title,
		Message:        in.Message,
		OKLabel:        in.OKLabel,
		CancelLabel:    in.CancelLabel,
		Icon:           in.Icon,
		DefaultApprove: in.DefaultApprove,
		Scope:          in.Scope,
		Key:            in.Key,
	}
	if in.Timeout != "" {
		d, err := time.ParseDuration(in.Timeout)
		if err != nil {
			return req, 0, fmt.Errorf(mcpInvalid, "timeout", fmt.Sprintf(mcpBadDuration, in.Timeout))
		}
		timeout = d
	}
	return req, timeout, nil
}

// confirm is the confirm tool: one request, as the confirm command asks
// it. Invalid arguments and internal errors are tool errors; every outcome
// of the request, pending included, is a result. From protocol 2026-07-28
// on, a request asked through the client's form returns the form as an
// input request instead, and the client's retry brings the answer.
func (s *server) confirm(ctx context.Context, call *mcp.CallToolRequest, in confirmArgs) (*mcp.CallToolResult, *toolOutput, error) {
	req, timeout, err := request(in, s.base.Timeout)
	if err != nil {
		return nil, nil, err
	}
	req.Approvers, req.Approvals = s.base.Request.Approvers, s.base.Request.Approvals
	r, relay, err := s.run(ctx, call, req, timeout)
	switch {
	case err != nil:
		return nil, nil, s.invalid(err)
	case relay != nil:
		return relay, nil, nil
	}
	return s.answer(r, s.headlessText(r))
}

// run asks req for a call, as confirm and ask do, with the server's
// settings, its scope unless req names one, and timeout: by dialog, or
// through the client's form where --ask-with says so (s.channel). It returns the
// request's result; or, from protocol 2026-07-28 on, when the request is
// asked through the client's form, the tool result that puts the form to
// the client instead (relay), whose retry of the call brings the answer.
// An error is a call the engine refused to ask.
func (s *server) run(ctx context.Context, call *mcp.CallToolRequest, req dialog.Request, timeout time.Duration) (r lifecycle.Result, relay *mcp.CallToolResult, err error) {
	c := s.base
	c.Request, c.Timeout = req, timeout
	if c.Request.Scope == "" {
		c.Request.Scope = s.base.Request.Scope
	}
	c.Request.Origin = s.origin(call)
	ch, ok := s.channel(call)
	if !ok {
		if err := c.Validate(); err != nil {
			return r, nil, err
		}
		return noForm(c.Request.Identity()), nil, nil
	}
	c.Channel = ch
	if token := call.Params.GetProgressToken(); token != nil {
		c.Watch = &progressNotifier{ctx: ctx, session: call.Session, token: token, now: s.engine.Now, start: s.engine.Now(), total: s.base.Wait.Seconds()}
	}
	if _, relayed := backendOf(c.Channel).(relayedForm); relayed {
		if h := s.questions.take(s.engine, c.Request, call.Params); h != nil {
			// Handed over once this call follows the request, so that the
			// answer is this call's own; and in any case before it returns.
			c.Joined = h.deliver
			defer h.deliver()
		}
		var q *question
		if r, q, err = s.askOrRelay(ctx, c); q != nil {
			return r, s.questions.send(s.engine, q), nil
		}
		return r, nil, err
	}
	r, err = s.engine.Ask(ctx, c)
	return r, nil, err
}

// invalid is the tool error for a call the engine refused to ask: an
// argument's, or the server's own --approvers or --approvals, which no
// argument changes, and which its stderr reports for its operator too.
func (s *server) invalid(err error) error {
	var ie *dialog.InvalidError
	if errors.As(err, &ie) && (ie.Field == "--approvers" || ie.Field == "--approvals") {
		s.warn(err)
		return fmt.Errorf(mcpServerFlag, ie.Field, ie.Reason)
	}
	return invalid(err)
}

// invalid is the tool error for a call the engine refused to ask.
func invalid(err error) error {
	var ie *dialog.InvalidError
	if errors.As(err, &ie) {
		// --ok-label is the ok_label argument here, in the reason too.
		return fmt.Errorf(mcpInvalid, argumentName(ie.Field), flagName.ReplaceAllStringFunc(ie.Reason, argumentName))
	}
	return err
}

// origin is the line under the question that says who asks: the client's
// name from its initialize info, and the server's working directory.
func (s *server) origin(call *mcp.CallToolRequest) string {
	who := mcpUnknownClient
	if info := call.ClientInfo(); info != nil && info.Name != "" {
		who = info.Name
		if info.Title != "" {
			who = info.Title
		}
	}
	home, _ := os.UserHomeDir()
	return dialog.Origin(fmt.Sprintf(mcpOriginWho, who), s.base.Request.Scope, home)
}

// asks says how the server asks the person, by --ask-with.
func (s *server) asks() string {
	switch s.askWith {
	case askDialog:
		return mcpAsksDialog
	case askElicitation:
		return mcpAsksElicitation
	default:
		return mcpAsksAuto
	}
}

// channel returns the form a call may be asked through, for the engine to
// use where no dialog can be shown (or always, with --ask-with
// elicitation): nil when the call is asked by dialog only. ok is false when
// the call must be asked by form and its client shows none.
func (s *server) channel(call *mcp.CallToolRequest) (ch *lifecycle.Channel, ok bool) {
	if s.askWith == askDialog {
		return nil, true
	}
	if !canElicit(call.ClientCapabilities()) {
		return nil, s.askWith != askElicitation
	}
	var b dialog.Backend = sessionForm{call.Session}
	if multiRoundTrip(call.Session) {
		b = relayedForm{s.questions}
	}
	return &lifecycle.Channel{Name: channelName, Backend: b, Always: s.askWith == askElicitation, Context: s.life}, true
}

// backendOf is ch's Backend, or nil.
func backendOf(ch *lifecycle.Channel) dialog.Backend {
	if ch == nil {
		return nil
	}
	return ch.Backend
}

// noForm is the result of a call that only a form may ask, from a client
// that shows none: nobody is asked, and nothing approves.
func noForm(id string) lifecycle.Result {
	return lifecycle.Result{
		Status:   lifecycle.StatusHeadless,
		ExitCode: lifecycle.ExitHeadless,
		Key:      id,
		Message:  fmt.Sprintf(msgNobody, msgNoElicitation),
		Headless: true,
	}
}

// headlessText is what the model reads when nobody could be asked, with
// what would let the person be asked by --ask-with; empty (confirmText)
// for any other result, and for --ask-with dialog.
func (s *server) headlessText(r lifecycle.Result) string {
	switch {
	case r.Status != lifecycle.StatusHeadless || s.askWith == askDialog:
		return ""
	case s.askWith == askElicitation:
		return sentence(r.Message) + " " + mcpNoForm
	default:
		return sentence(r.Message) + " " + mcpHeadlessAuto
	}
}

// flagName matches a command-line flag's name in an error's text.
var flagName = regexp.MustCompile(`--[a-z][a-z-]*`)

// argumentName is the tool argument for a command-line flag: ok_label for
// --ok-label.
func argumentName(flag string) string {
	return strings.ReplaceAll(strings.TrimPrefix(flag, "--"), "-", "_")
}

// status is the status tool: what confirming the request again would give.
// A question asked with ask reads as ask's result, with its answer.
func (s *server) status(_ context.Context, _ *mcp.CallToolRequest, in keyArgs) (*mcp.CallToolResult, *askOutput, error) {
	rec, err := s.engine.Find(in.Key)
	if err != nil {
		return nil, nil, s.operatorError(err)
	}
	r := s.engine.StatusOf(rec)
	text := confirmText(r, s.engine.Now())
	if rec.Kind != dialog.Confirm {
		text = askText(r, rec.Kind, s.engine.Now())
	}
	switch {
	case r.Status != lifecycle.StatusStale:
	case rec.Status == lifecycle.StatusApproved || rec.Status == lifecycle.StatusDenied || rec.Status == lifecycle.StatusCancelled || rec.Status == lifecycle.StatusExpired:
		text = fmt.Sprintf(mcpStale, rec.Status)
	default:
		// A failure or a withdrawal was never an answer to grow old.
		text = fmt.Sprintf(mcpStaleNoAnswer, sentence(r.Message))
	}
	res, out, err := s.answer(r, text)
	if err != nil {
		return nil, nil, err
	}
	return res, withAnswer(out, r), nil
}

// cancel is the cancel tool: it closes the request's dialog as ask-confirm
// cancel does. It can only ever end a request as a denial.
func (s *server) cancel(_ context.Context, _ *mcp.CallToolRequest, in keyArgs) (*mcp.CallToolResult, *toolOutput, error) {
	rec, err := s.engine.Find(in.Key)
	if err != nil {
		return nil, nil, s.operatorError(err)
	}
	r, outcome := s.engine.Cancel(rec)
	switch outcome {
	case lifecycle.AlreadyEnded:
		return s.answer(r, fmt.Sprintf(mcpNothingOpen, rec.Status))
	case lifecycle.EndedOtherwise:
		// The person (or a newer request) got there first.
		return s.answer(r, fmt.Sprintf(mcpCancelTooLate, confirmText(r, s.engine.Now())))
	default:
		text := mcpCancelDone
		if r.ExitCode == lifecycle.ExitInternal {
			text = ""
		}
		return s.answer(r, text)
	}
}

// answer turns a result into the tool's result, with text as what the model
// reads (confirmText(r) when empty), or into a tool error for an internal
// error: those never read as an answer.
func (s *server) answer(r lifecycle.Result, text string) (*mcp.CallToolResult, *toolOutput, error) {
	if r.Status == lifecycle.StatusError || r.ExitCode == lifecycle.ExitInternal || r.ExitCode == lifecycle.ExitUsage {
		msg := r.Message
		if r.Hint != "" {
			msg += "; " + r.Hint
		}
		s.warn(errors.New(msg))
		return nil, nil, fmt.Errorf(mcpInternal, msg)
	}
	if text == "" {
		text = confirmText(r, s.engine.Now())
	}
	out := &toolOutput{
		Status:      r.Status,
		ShouldRetry: r.ShouldRetry,
		Key:         r.Key,
		Remembered:  r.Remembered,
		Message:     text,
	}
	if !r.AnsweredAt.IsZero() {
		out.AnsweredAt = r.AnsweredAt.UTC().Format(time.RFC3339)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Message}}}, out, nil
}

// operatorError turns a failure to find the request a status or cancel call
// names into a tool error.
func (s *server) operatorError(err error) error {
	if errors.Is(err, lifecycle.ErrUnknownKey) {
		return err
	}
	s.warn(err)
	return fmt.Errorf(mcpInternal, err)
}

// confirmText is the sentence a model reads for the result of a confirm
// call, read at now.
func confirmText(r lifecycle.Result, now time.Time) string {
	at := dialog.ClockSeconds(r.AnsweredAt.Local(), now)
	if r.ApprovalsNeeded > 0 && r.Approvals != nil {
		// A team's gate: how far its votes are, in the engine's words.
		switch r.Status {
		case lifecycle.StatusApproved:
			return sentence(r.Message)
		case lifecycle.StatusPending:
			return fmt.Sprintf(mcpPendingApprovers, *r.Approvals, r.ApprovalsNeeded)
		}
		return sentence(r.Message) + " " + mcpDoNotProceed
	}
	switch r.Status {
	case lifecycle.StatusApproved:
		if r.Remembered {
			return fmt.Sprintf(mcpApprovedAgain, at)
		}
		return mcpApproved
	case lifecycle.StatusDenied:
		if r.Remembered {
			return fmt.Sprintf(mcpDeniedAgain, at)
		}
		return mcpDenied
	case lifecycle.StatusCancelled:
		return mcpCancelled
	case lifecycle.StatusPending:
		return mcpPending
	case lifecycle.StatusExpired:
		return mcpExpired
	case lifecycle.StatusSuperseded:
		return mcpSuperseded
	case lifecycle.StatusHeadless:
		return sentence(r.Message) + " " + mcpHeadlessHint
	default:
		// failed, and anything newer: the CLI's message says why.
		return sentence(r.Message) + " " + mcpDoNotProceed
	}
}

// sentence capitalises a CLI message and ends it with a period.
func sentence(msg string) string {
	c, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(c)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// progressNotifier is the Watcher of a call whose client sent a
// progress token. Its notifications also keep the call alive in clients
// that restart their timeout on progress.
type progressNotifier struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	now     func() time.Time
	start   time.Time
	total   float64 // the call's wait, in seconds
	sent    bool
	last    float64
}

func (p *progressNotifier) Waiting(left time.Duration, until time.Time) {
	// Progress must grow with every notification.
	progress := min(p.now().Sub(p.start).Seconds(), p.total)
	if p.sent && progress <= p.last {
		return
	}
	p.sent, p.last = true, progress
	// A failed notification changes nothing about the request; a client
	// that went away ends the call through ctx.
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token,
		Progress:      progress,
		Total:         p.total,
		Message: fmt.Sprintf(mcpProgress,
			left.Round(time.Second), dialog.ClockSeconds(until.Local(), p.now())),
	})
}

func (p *progressNotifier) Done() {}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
