// Package mcpserver is ask-confirm's Model Context Protocol server, the
// program ask-confirm-mcp: the confirm command served to AI agents over
// stdio with the official Go SDK.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// The MCP server serves the confirm command to AI agents. It is a thin
// translation: every tool call becomes a call of the request engine (lifecycle), which goes
// through the same lifecycle, store, identity and history as the command
// line. Only a person's answer approves (a click in the dialog, or an
// explicit approve in the client's form); the server has no --if-headless
// approve, and nothing an agent can send changes that.

// Main runs ask-confirm-mcp with the process's arguments and returns its
// exit code. A holder started by the engine runs here too.
func Main() int {
	if code, ok := lifecycle.HolderMain(os.Args[1:], lifecycle.Config{}); ok {
		return code
	}
	return execute(NewCommand(), os.Args[1:], os.Stderr)
}

// execute runs c with args and returns the exit code, printing an error as
// ask-confirm does: a mistake in the command line exits 2, anything else 8.
func execute(c *cobra.Command, args []string, stderr io.Writer) int {
	if args == nil {
		// cobra reads os.Args for nil arguments; these are the whole input.
		args = []string{}
	}
	c.SetArgs(args)
	c.SetErr(stderr)
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	if err == nil {
		return int(lifecycle.ExitApproved)
	}
	fmt.Fprintf(stderr, msgError+"\n", err)
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, dialog.ErrInvalid) {
		fmt.Fprintln(stderr, msgHint+hintFlags)
		return int(lifecycle.ExitUsage)
	}
	return int(lifecycle.ExitInternal)
}

// usageError marks a mistake in the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// NewCommand is ask-confirm-mcp's command: the server.
func NewCommand() *cobra.Command {
	o := lifecycle.DefaultCall()
	o.Wait = 40 * time.Second
	askWith := askAuto
	c := &cobra.Command{
		Use:   "ask-confirm-mcp [flags]",
		Short: "Serve confirm, status and cancel to AI agents over the Model Context Protocol (stdio)",
		Long: `ask-confirm-mcp (also run as ask-confirm mcp) is a Model Context Protocol
server on stdin and stdout, for agent hosts to start. Its confirm tool asks
the person exactly as the ask-confirm command does: same dialog, answer
store, identity and history.

A confirm call returns within --wait (keep it below the host's tool-call
timeout, often 60s). While the dialog is open the call returns status
"pending"; calling confirm again with the same arguments collects the answer
or joins the same dialog. When the client sent a progress token, the server
sends a progress notification about once a second while it waits.

The scope of a request defaults to the server's working directory; a call
may give its own. --ask-with says how the person is asked: dialog, a native
dialog only; elicitation, always a form the client shows (MCP elicitation);
auto (the default), a dialog where one can be shown, since the agent's host
cannot click it, and else the client's form if the client declared the
elicitation capability. When nobody can be asked the call reports
"headless": nothing approves without a person. Stdout carries only protocol
messages; warnings and errors go to stderr.`,
		Example: `  {"mcpServers": {"ask-confirm": {"command": "ask-confirm", "args": ["mcp"]}}}`,
		Args: func(c *cobra.Command, args []string) error {
			if err := cobra.NoArgs(c, args); err != nil {
				return &usageError{err}
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := newServer(o, askWith, c.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return s.serve(ctx, newStdio(os.Stdin, os.Stdout))
		},
	}
	f := c.Flags()
	f.DurationVar(&o.Wait, "wait", o.Wait, "how long a call waits before it returns pending; below the client's timeout (0 to 24h)")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long a dialog stays open, unless the call says (above 0, at most 24h)")
	f.DurationVar(&o.Remember, "remember", o.Remember, "how long a received answer is reused (0 to 168h)")
	f.DurationVar(&o.CollectWithin, "collect-within", o.CollectWithin, "how long an answer nobody received is kept for a retry (0 to 168h)")
	f.StringVar(&askWith, "ask-with", askWith, "how to ask: dialog, elicitation (the client's form) or auto (a dialog, else the form)")
	f.SortFlags = false
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	return c
}

// server answers tool calls through the request engine.
type server struct {
	engine *lifecycle.Engine
	// base is what a call leaves out: the command line's request defaults,
	// the server's wait, timeout, remember and collect-within, and the
	// server's working directory as the scope. When nobody can be asked
	// nobody is (IfHeadlessFail): only a person's answer approves.
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
	if err := probe.Validate(); err != nil {
		return nil, &usageError{err}
	}
	switch askWith {
	case askDialog, askElicitation, askAuto:
	default:
		return nil, &usageError{&dialog.InvalidError{Field: "--ask-with", Reason: fmt.Sprintf(msgAskWith, askWith)}}
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

// confirmArgs are the arguments of the confirm tool. The schema fills in the
// defaults of whatever a call leaves out.
type confirmArgs struct {
	Title          string `json:"title"`
	Message        string `json:"message"`
	OKLabel        string `json:"ok_label"`
	CancelLabel    string `json:"cancel_label"`
	Icon           string `json:"icon"`
	DefaultApprove bool   `json:"default_approve"`
	Key            string `json:"key"`
	Scope          string `json:"scope"`
	Timeout        string `json:"timeout"`
}

// keyArgs are the arguments of the status and cancel tools.
type keyArgs struct {
	Key string `json:"key"`
}

// toolOutput is the structured content of every tool's result: the fields
// of ask-confirm --json that a caller acts on. Message is the same sentence
// as the text content.
type toolOutput struct {
	Status      string `json:"status" jsonschema:"approved is the only yes; pending means call confirm again with the same arguments; denied, cancelled, expired, headless, failed and superseded mean do not proceed"`
	ShouldRetry bool   `json:"should_retry" jsonschema:"true while the dialog is open: call confirm again with the same arguments"`
	Key         string `json:"key" jsonschema:"the request's identity, for the status and cancel tools"`
	Remembered  bool   `json:"remembered" jsonschema:"true when the answer was given before this call and returned from the store"`
	AnsweredAt  string `json:"answered_at,omitempty" jsonschema:"when the request ended, RFC 3339"`
	Message     string `json:"message" jsonschema:"what happened, in a sentence"`
}

func (s *server) confirmTool() *mcp.Tool {
	text := func(desc string, max int, def string) *jsonschema.Schema {
		p := &jsonschema.Schema{Type: "string", Description: desc, MaxLength: &max}
		if def != "" {
			p.Default = jsonString(def)
		}
		return p
	}
	one := 1
	icons := make([]any, len(dialog.Icons))
	for i, icon := range dialog.Icons {
		icons[i] = icon
	}
	base := s.base.Request
	return &mcp.Tool{
		Name:        "confirm",
		Title:       "Ask a person to approve",
		Description: fmt.Sprintf(mcpConfirmDescription, s.asks(), dialog.ShortDuration(s.base.Wait)),
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		InputSchema: &jsonschema.Schema{
			Type:     "object",
			Required: []string{"message"},
			Properties: map[string]*jsonschema.Schema{
				"message": func() *jsonschema.Schema {
					p := text(fmt.Sprintf("the question to ask, shown literally (never as markup); newlines and tabs allowed; at most %d bytes", dialog.MaxMessageBytes), dialog.MaxMessageBytes, "")
					p.MinLength = &one
					return p
				}(),
				"title":           text(fmt.Sprintf("window title, at most %d bytes", dialog.MaxTitleBytes), dialog.MaxTitleBytes, base.Title),
				"ok_label":        text(fmt.Sprintf("label of the approve button, at most %d bytes", dialog.MaxLabelBytes), dialog.MaxLabelBytes, base.OKLabel),
				"cancel_label":    text(fmt.Sprintf("label of the cancel button, at most %d bytes; must differ from ok_label", dialog.MaxLabelBytes), dialog.MaxLabelBytes, base.CancelLabel),
				"icon":            {Type: "string", Description: "dialog icon", Enum: icons, Default: jsonString(base.Icon)},
				"default_approve": {Type: "boolean", Description: "make the approve button the default, so Enter approves (default: cancel is the default button)", Default: []byte("false")},
				"key":             text(fmt.Sprintf("explicit identity of the request; a different question under the same key replaces the open dialog (at most %d bytes)", dialog.MaxKeyBytes), dialog.MaxKeyBytes, ""),
				"scope":           text(fmt.Sprintf("what separates identical questions asked for different things, such as a repository path (default: the server's working directory; at most %d bytes)", dialog.MaxScopeBytes), dialog.MaxScopeBytes, ""),
				"timeout":         text(fmt.Sprintf("how long the dialog stays open unanswered, as a duration such as 90s or 10m (above 0, at most %s)", dialog.ShortDuration(lifecycle.MaxTimeout)), 32, dialog.ShortDuration(s.base.Timeout)),
			},
			PropertyOrder:        []string{"message", "title", "ok_label", "cancel_label", "icon", "default_approve", "key", "scope", "timeout"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
	}
}

func keySchema(what string) *jsonschema.Schema {
	one := 1
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"key"},
		Properties: map[string]*jsonschema.Schema{
			"key": {Type: "string", MinLength: &one, Description: what + `: the key given to confirm, or the "key" field of its result (a unique prefix of at least 4 characters will do)`},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

func (s *server) statusTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "status",
		Title:       "Look at a confirmation request",
		Description: `Report what calling confirm (or ask) again for a request would return now, without waiting and without showing a dialog; for a question asked with ask, with its answer.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: keySchema("the request to look at"),
	}
}

func (s *server) cancelTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "cancel",
		Title:       "Withdraw a confirmation request",
		Description: `Close the open dialog of a request; it ends cancelled, which counts as a denial. A request that already ended is left as it is.`,
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
		InputSchema: keySchema("the request to withdraw"),
	}
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
	c := s.base
	c.Request, c.Timeout = req, timeout
	if c.Request.Scope == "" {
		c.Request.Scope = s.base.Request.Scope
	}
	c.Request.Origin = s.origin(call)
	r, relay, err := s.run(ctx, call, c)
	switch {
	case err != nil:
		return nil, nil, invalid(err)
	case relay != nil:
		return relay, nil, nil
	}
	return s.answer(r, s.headlessText(r))
}

// run asks c for a call, as confirm and ask do: by dialog, or through the
// client's form where --ask-with says so (s.channel). It returns the
// request's result; or, from protocol 2026-07-28 on, when the request is
// asked through the client's form, the tool result that puts the form to
// the client instead (relay), whose retry of the call brings the answer.
// An error is a call the engine refused to ask.
func (s *server) run(ctx context.Context, call *mcp.CallToolRequest, c lifecycle.Call) (r lifecycle.Result, relay *mcp.CallToolResult, err error) {
	ch, ok := s.channel(call)
	if !ok {
		if err := c.Validate(); err != nil {
			return r, nil, err
		}
		return noForm(c.Request.Identity()), nil, nil
	}
	c.Channel = ch
	// Decided here, not in Ask: a form's request has an identity of its
	// own (dialog.Request.Via), under which its open form is kept.
	c = s.engine.Prepare(c)
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
	text := confirmText(r)
	if rec.Kind != dialog.Confirm {
		text = askText(r, rec.Kind)
	}
	if r.Status == lifecycle.StatusPending && rec.Status.Final() {
		text = fmt.Sprintf(mcpStale, rec.Status)
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
		return s.answer(r, fmt.Sprintf(mcpCancelTooLate, confirmText(r)))
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
		text = confirmText(r)
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
// call.
func confirmText(r lifecycle.Result) string {
	at := r.AnsweredAt.Local().Format(time.TimeOnly)
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
			left.Round(time.Second), until.Local().Format(time.TimeOnly)),
	})
}

func (p *progressNotifier) Done() {}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// newStdio is the SDK's stdio transport behind a filter that answers a line
// the SDK cannot read with a JSON-RPC error, where the SDK would end the
// session (modelcontextprotocol/go-sdk#1209): one bad line from a client
// must not take down the server and drop the calls in flight. Lines that
// are JSON-RPC messages reach the SDK byte for byte.
func newStdio(in io.Reader, out io.Writer) mcp.Transport {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterLines(in, pw, w)) }()
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// lineWriter writes whole lines to stdout, one writer at a time: the SDK
// writes each message in one call, and so does filterLines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves stdout open: it is the process's, not the session's.
func (l *lineWriter) Close() error { return nil }

// filterLines copies the JSON-RPC messages among in's lines to sdk and
// answers every other line on out. It returns when in ends or sdk stops
// reading.
func filterLines(in io.Reader, sdk io.Writer, out io.Writer) error {
	r := bufio.NewReader(in)
	for {
		line, tooLong, err := readLine(r, mcp.DefaultMaxLineLength)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if reply := refuseLine(line, tooLong); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					return werr
				}
			} else if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// readLine returns the next line of r without its newline. A line longer
// than max is read to its end and dropped, and reported as tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > max {
				line, tooLong = nil, true
			}
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// refuseLine returns the JSON-RPC error that answers line, or nil when line
// is one JSON-RPC message, for the SDK.
func refuseLine(line []byte, tooLong bool) []byte {
	var id json.RawMessage // null unless the line names its request
	code, msg := jsonrpc.CodeInvalidRequest, ""
	switch trimmed := bytes.TrimSpace(line); {
	case tooLong:
		msg = fmt.Sprintf("message longer than %d bytes", mcp.DefaultMaxLineLength)
	case !json.Valid(trimmed):
		code, msg = jsonrpc.CodeParseError, "parse error: the line is not one JSON value"
	case trimmed[0] == '[':
		// MCP dropped batches in 2025-06-18, and the SDK ends the session
		// on one sent after negotiating that version or a later one.
		msg = "invalid request: JSON-RPC batches are not supported; send one message per line"
	default:
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			msg = "invalid request: " + err.Error()
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(trimmed, &probe) == nil && validID(probe.ID) {
				id = probe.ID
			}
		}
	}
	if msg == "" {
		return nil
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	reply, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	return append(reply, '\n')
}

// validID reports whether raw is a JSON-RPC request id: a string or a
// number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
