package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/cmd"
	"github.com/ask-confirm/ask-confirm/internal/helpexample"
	"github.com/ask-confirm/ask-confirm/internal/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// These tests drive the server as an agent host does, with the SDK's own
// client, over the SDK's in-memory transport, against an engine whose files
// are in a temporary directory and whose holders are fakes: no display, no
// subprocess, no dialog. What a person does is simulated by writing the
// answer into the store, as a holder would. The real holder and real
// dialogs are the end-to-end tests beside these (mcp_e2e_test.go: go test -tags e2e -run MCP ./mcpserver).

// testEnv is one machine as the engine sees it: its files, whether a person
// can be asked, and the holders started there. Servers connected to one
// testEnv share its store, as two ask-confirm-mcp processes would.
type testEnv struct {
	t       *testing.T
	paths   store.Paths
	session platform.Session
	holders *fakeHolders
	askWith string // the servers' --ask-with
	// humanAnswer and now are the engines' Config.HumanAnswer and
	// Config.Now; zero takes the engine's own.
	humanAnswer time.Duration
	now         func() time.Time
	// approvers and approvals are the servers' --approvers and
	// --approvals; nil and 0 where not given.
	approvers []string
	approvals int
}

// newTestEnv returns an environment where a person can be asked and holders
// are only recorded: a started holder that does not hold its identity's
// lock is, to the engine, a holder that died at once.
func newTestEnv(t *testing.T) *testEnv {
	dir := t.TempDir()
	paths := store.Paths{
		DB:      filepath.Join(dir, "cache", "answers.db"),
		Locks:   filepath.Join(dir, "state", "locks"),
		History: filepath.Join(dir, "state", "history.jsonl"),
	}
	env := &testEnv{
		t:       t,
		paths:   paths,
		session: platform.Session{CanAsk: true, Kind: platform.KindX11, Backend: "zenity", Display: "DISPLAY=:99"},
		holders: &fakeHolders{t: t, paths: paths},
		askWith: askAuto,
	}
	t.Cleanup(env.holders.stopAll)
	return env
}

// holding makes the holders started from now on live: each keeps its
// identity's lock until its request ends, as lifecycle's holder does.
func (env *testEnv) holding() *testEnv {
	env.holders.mu.Lock()
	env.holders.hold = true
	env.holders.mu.Unlock()
	return env
}

// headless makes the session one where nobody can be asked.
func (env *testEnv) headless() *testEnv {
	env.session = platform.Session{CanAsk: false, Kind: platform.KindHeadless, Reason: "no display in this test"}
	return env
}

// testServer is one server of a testEnv, with a client connected to it.
type testServer struct {
	env    *testEnv
	s      *server
	cs     *mcp.ClientSession
	stderr *syncbuf.Buffer
	// stop stops the server, as a signal does.
	stop context.CancelFunc

	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

// testClient is how a test's client connects: the protocol version it
// asks for (empty: the SDK's latest) and its elicitation handler (nil: it
// declares no elicitation capability).
type testClient struct {
	version string
	elicit  func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// manual turns off the SDK's answering of input requests (protocol
	// 2026-07-28): the test sees them, and answers them itself.
	manual bool
}

// connect starts a server with the command line's defaults and wait, its
// engine on env, and connects a client to it. Both end with the test.
func (env *testEnv) connect(wait time.Duration) *testServer {
	env.t.Helper()
	return env.connectClient(wait, testClient{})
}

// connectClient is connect with the client tc.
func (env *testEnv) connectClient(wait time.Duration, tc testClient) *testServer {
	t := env.t
	t.Helper()
	base := lifecycle.DefaultCall()
	base.Wait = wait
	base.Request.Approvers, base.Request.Approvals = env.approvers, env.approvals
	ts := &testServer{env: env, stderr: &syncbuf.Buffer{}}
	s, err := newServer(base, env.askWith, ts.stderr)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	// The injection point: the engine newServer made touches the real
	// store, session and holders; this one touches env's.
	s.engine = lifecycle.New(lifecycle.Config{
		Paths:       env.paths,
		Backend:     noBackend{t},
		Detect:      func() platform.Session { return env.session },
		StartHolder: env.holders.start,
		Warn:        s.warn,
		HumanAnswer: env.humanAnswer,
		Now:         env.now,
		RemoteFile:  filepath.Join(filepath.Dir(filepath.Dir(env.paths.DB)), "config", "remote.json"),
	})
	ts.s = s

	ctx, cancel := context.WithCancel(context.Background())
	ts.stop = cancel
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.serve(ctx, serverTransport) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "ask-confirm-unit-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			ts.mu.Lock()
			ts.progress = append(ts.progress, r.Params)
			ts.mu.Unlock()
		},
		ElicitationHandler: tc.elicit,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: tc.manual},
	})
	connectCtx, connected := context.WithTimeout(ctx, 5*time.Second)
	defer connected()
	cs, err := client.Connect(connectCtx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
	if err != nil {
		cancel()
		<-served
		t.Fatalf("connecting to the server: %v\nstderr: %s", err, ts.stderr)
	}
	ts.cs = cs
	t.Cleanup(func() {
		// The client going away ends the server, as a host closing stdin
		// does.
		cs.Close()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Errorf("the server did not stop within 5s of its client going away")
		}
		cancel()
		if t.Failed() {
			t.Logf("server stderr:\n%s", ts.stderr)
		}
	})
	return ts
}

// noBackend fails the test if a dialog is shown in the server's process:
// only holders show dialogs, and these tests start none.
type noBackend struct{ t *testing.T }

func (b noBackend) Ask(context.Context, dialog.Request) (dialog.Answer, error) {
	b.t.Errorf("a dialog was shown by the server")
	return dialog.Answer{}, errors.New("no dialogs in this test")
}

// fakeHolders stands in for platform.StartDetached: it records every holder
// the engine starts, and when hold is set runs a live one. A live fake
// takes the identity's lock once the engine lets go of it, keeps it while
// the request is open, ends the request as asked when a cancel is
// requested (as lifecycle's holder does), and lets go once the request has
// ended. A real holder receives the lock with no gap in between; a fake in
// the same process cannot, so a test waits for held before it calls again.
type fakeHolders struct {
	t     *testing.T
	paths store.Paths

	mu      sync.Mutex
	hold    bool
	starts  [][]string
	running []*fakeHolder
}

type fakeHolder struct {
	id, content string
	held        chan struct{} // closed once it holds the identity's lock
	stop        chan struct{} // closed when the test ends
	done        chan struct{} // closed once it has let go of the lock
}

func (f *fakeHolders) start(argv []string, _ platform.Lock) error {
	// HolderArgs: the program, "hold", the identity, the content hash,
	// and where the lock is handed over the descriptor.
	if len(argv) < 4 || argv[1] != "hold" {
		f.t.Errorf("a holder started with %q, not HolderArgs", argv)
		return errors.New("not a holder's command line")
	}
	// A holder is only ever started by the caller holding the identity's
	// lock, so no second holder can start while one holds it.
	if held, err := platform.LockHeld(f.paths.LockFile(argv[2])); err != nil || !held {
		f.t.Errorf("a holder started while its identity's lock was free (%v)", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts = append(f.starts, slices.Clone(argv))
	if f.hold {
		h := &fakeHolder{id: argv[2], content: argv[3], held: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
		f.running = append(f.running, h)
		go h.run(f.t, f.paths)
	}
	return nil
}

// count is how many holders have been started.
func (f *fakeHolders) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.starts)
}

// last is the command line of the last holder started.
func (f *fakeHolders) last() []string {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.starts) == 0 {
		f.t.Fatal("no holder was started")
	}
	return f.starts[len(f.starts)-1]
}

// live is the last live holder started for id.
func (f *fakeHolders) live(id string) *fakeHolder {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range slices.Backward(f.running) {
		if h.id == id {
			return h
		}
	}
	return nil
}

// awaitHeld waits until the live holder of id holds its lock.
func (f *fakeHolders) awaitHeld(id string) {
	f.t.Helper()
	h := f.live(id)
	if h == nil {
		f.t.Fatalf("no live holder for %s", id)
	}
	select {
	case <-h.held:
	case <-time.After(5 * time.Second):
		f.t.Fatalf("the holder of %s did not take its lock within 5s", id)
	}
}

func (f *fakeHolders) stopAll() {
	f.mu.Lock()
	running := slices.Clone(f.running)
	f.mu.Unlock()
	for _, h := range running {
		close(h.stop)
		<-h.done
	}
}

func (h *fakeHolder) run(t *testing.T, paths store.Paths) {
	defer close(h.done)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	var lock platform.Lock
	for lock == nil {
		l, ok, err := platform.TryLock(paths.LockFile(h.id))
		if err != nil {
			t.Errorf("fake holder: %v", err)
			return
		}
		if ok {
			lock = l
			break
		}
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
	}
	defer lock.Release()
	st := store.New(paths.DB)
	// A question asked on the phone shows there at once, as a real
	// holder marks it once the phone took it: a caller waits past its
	// --wait for one that is not shown yet (the phone's look-up).
	if _, err := st.Update(h.id, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != h.content || r.Status != store.Requested || r.Phone == "" {
			return false, nil
		}
		r.Status, r.ShownAt = store.Shown, time.Now()
		return true, nil
	}); err != nil {
		t.Errorf("fake holder: %v", err)
	}
	close(h.held)
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
		rec, found, err := st.Get(h.id)
		switch {
		case err != nil:
			t.Errorf("fake holder: %v", err)
			return
		case !found || rec.ContentHash != h.content || rec.Status.Final():
			// Answered, or replaced: the holder's work is done.
			return
		case rec.CancelRequest != "":
			_, err := st.Update(h.id, func(r *store.Record, found bool) (bool, error) {
				if !found || r.ContentHash != h.content || r.Status.Final() {
					return false, nil
				}
				r.Status, r.EndedAt, r.Uncollected = r.CancelRequest, time.Now(), true
				return true, nil
			})
			if err != nil {
				t.Errorf("fake holder: %v", err)
			}
			return
		}
	}
}

// answer records the person's answer to the open request id, as its holder
// would: the final status for the content hash the holder was started with,
// uncollected. A live holder then lets go of the lock. It returns the
// record as written.
func (env *testEnv) answer(id string, status store.Status) store.Record {
	t := env.t
	t.Helper()
	var content string
	env.holders.mu.Lock()
	for _, argv := range env.holders.starts {
		if argv[2] == id {
			content = argv[3]
		}
	}
	env.holders.mu.Unlock()
	if content == "" {
		t.Fatalf("no holder was started for %s", id)
	}
	rec, err := store.New(env.paths.DB).Update(id, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != content || r.Status.Final() {
			return false, fmt.Errorf("no open request %s with content %s: %+v", id, content, *r)
		}
		r.Status, r.EndedAt, r.Uncollected = status, time.Now(), true
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if h := env.holders.live(id); h != nil {
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			t.Fatalf("the holder of %s did not let go within 5s of the answer", id)
		}
	}
	return rec
}

// record returns the stored record of id.
func (env *testEnv) record(id string) store.Record {
	env.t.Helper()
	rec, found, err := store.New(env.paths.DB).Get(id)
	if err != nil || !found {
		env.t.Fatalf("no record of %s (found %v): %v", id, found, err)
	}
	return rec
}

// wireOutput is a tool result's structured content as the protocol carries
// it.
type wireOutput struct {
	Status      string `json:"status"`
	ShouldRetry bool   `json:"should_retry"`
	Key         string `json:"key"`
	Remembered  bool   `json:"remembered"`
	AnsweredAt  string `json:"answered_at,omitempty"`
	Message     string `json:"message"`
}

// toolCall is what one tool call returned to the client.
type toolCall struct {
	res  *mcp.CallToolResult
	out  wireOutput
	text string
}

// call calls a tool; a protocol error fails the test.
func (ts *testServer) call(tool string, args map[string]any) toolCall {
	ts.env.t.Helper()
	return ts.callWith(&mcp.CallToolParams{Name: tool, Arguments: args})
}

func (ts *testServer) callWith(p *mcp.CallToolParams) toolCall {
	ts.env.t.Helper()
	return ts.callWithin(10*time.Second, p)
}

// callWithin is callWith, with the client giving up on the call after
// timeout.
func (ts *testServer) callWithin(timeout time.Duration, p *mcp.CallToolParams) toolCall {
	ts.env.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := ts.cs.CallTool(ctx, p)
	if errors.Is(err, context.DeadlineExceeded) {
		ts.env.t.Fatalf("%s %v: no result within %s", p.Name, p.Arguments, timeout)
	}
	return ts.toolCall(p, res, err)
}

// toolCall reads what the client's call p returned: res, or err, a
// protocol error, which fails the test.
func (ts *testServer) toolCall(p *mcp.CallToolParams, res *mcp.CallToolResult, err error) toolCall {
	t := ts.env.t
	t.Helper()
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", p.Name, p.Arguments, err)
	}
	c := toolCall{res: res}
	if len(res.Content) != 1 {
		t.Fatalf("%s %v: %d content blocks, want one", p.Name, p.Arguments, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s %v: content %T, want text", p.Name, p.Arguments, res.Content[0])
	}
	c.text = text.Text
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c.out); err != nil {
			t.Fatalf("%s %v: structured content %s: %v", p.Name, p.Arguments, b, err)
		}
	}
	return c
}

var identityPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// expectResult checks that a call ended in a result, not a tool error, with
// status and, when text is not empty, exactly that text, which the
// structured content repeats.
func expectResult(t *testing.T, c toolCall, status, text string) {
	t.Helper()
	switch {
	case c.res.IsError:
		t.Fatalf("tool error, want status %q: %s", status, c.text)
	case c.res.StructuredContent == nil:
		t.Fatalf("no structured content, want status %q: %s", status, c.text)
	case c.out.Status != status:
		t.Fatalf("status %q, want %q: %+v", c.out.Status, status, c.out)
	case text != "" && c.text != text:
		t.Fatalf("text %q, want %q", c.text, text)
	case c.out.Message != c.text:
		t.Fatalf("structured message %q differs from the text %q", c.out.Message, c.text)
	case c.out.ShouldRetry != (status == lifecycle.StatusPending):
		t.Fatalf("should_retry %v with status %s", c.out.ShouldRetry, status)
	case !identityPattern.MatchString(c.out.Key):
		t.Fatalf("key %q is not an identity", c.out.Key)
	}
}

// expectToolError checks that a call ended in a tool error (isError, no
// structured content) whose text contains every one of wants.
func expectToolError(t *testing.T, c toolCall, wants ...string) {
	t.Helper()
	if !c.res.IsError {
		t.Fatalf("no tool error, want one containing %q: %+v %q", wants, c.out, c.text)
	}
	if c.res.StructuredContent != nil {
		t.Fatalf("a tool error carries structured content: %v", c.res.StructuredContent)
	}
	for _, want := range wants {
		if !strings.Contains(c.text, want) {
			t.Fatalf("tool error %q does not contain %q", c.text, want)
		}
	}
}

// identityOf is the identity of the request a confirm call with only
// message asks: the command line's defaults, in the server's working
// directory, so the same question on the command line is the same request.
func (ts *testServer) identityOf(message string) string {
	req := ts.s.base.Request
	req.Message = message
	return req.Identity()
}

// formIdentityOf is the identity of a confirm call with only message when
// it is asked through the client's form: a request of its own
// (dialog.Request.Via).
func (ts *testServer) formIdentityOf(message string) string {
	req := ts.s.base.Request
	req.Message, req.Via = message, channelName
	return req.Identity()
}

// schemaJSON is the part of a JSON schema these tests read.
type schemaJSON struct {
	Type                 string                  `json:"type"`
	Required             []string                `json:"required"`
	Properties           map[string]propertyJSON `json:"properties"`
	AdditionalProperties any                     `json:"additionalProperties"`
}

type propertyJSON struct {
	Type      string   `json:"type"`
	Enum      []string `json:"enum"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
	Default   any      `json:"default"`
}

func decodeSchema(t *testing.T, schema any) schemaJSON {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s schemaJSON
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema %s: %v", b, err)
	}
	return s
}

// The tool list: the four tools (ask, cancel, confirm, status), with the
// schemas a host validates against and the command line's defaults.
func TestToolsAreListedWithSchemas(t *testing.T) {
	ts := newTestEnv(t).connect(40 * time.Second)
	init := ts.cs.InitializeResult()
	if init.ServerInfo.Name != "ask-confirm" || !strings.Contains(init.Instructions, "returns within 40s") ||
		!strings.Contains(init.Instructions, "with the same arguments for 15m after it was given") {
		t.Errorf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	if init.Capabilities.Tools == nil {
		t.Errorf("the server does not announce tools: %+v", init.Capabilities)
	}
	// mcp.md says the instructions keep secrets out, as the ask tool's
	// description does (they once did not).
	if !strings.Contains(init.Instructions, "Never use either for passwords or other secrets") {
		t.Errorf("the instructions do not say to keep secrets out: %q", init.Instructions)
	}

	list, err := ts.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
	}
	if names := slices.Sorted(func(yield func(string) bool) {
		for name := range tools {
			if !yield(name) {
				return
			}
		}
	}); !reflect.DeepEqual(names, []string{"ask", "cancel", "confirm", "status"}) {
		t.Fatalf("tools %v, want ask, cancel, confirm and status", names)
	}
	for name, tool := range tools {
		if tool.Description == "" || tool.Title == "" || tool.Annotations == nil {
			t.Errorf("tool %s lacks a description, title or annotations: %+v", name, tool)
		}
		out := decodeSchema(t, tool.OutputSchema)
		for _, field := range []string{"status", "should_retry", "key", "remembered", "answered_at", "message"} {
			if _, ok := out.Properties[field]; !ok {
				t.Errorf("%s output schema lacks %s: %+v", name, field, out)
			}
		}
	}
	if !strings.Contains(tools["confirm"].Description, "Returns within 40s") {
		t.Errorf("confirm description does not give the wait: %q", tools["confirm"].Description)
	}
	if !tools["status"].Annotations.ReadOnlyHint {
		t.Errorf("status is not read-only: %+v", tools["status"].Annotations)
	}

	expectToolSchemas(t, tools)
}

// expectToolSchemas checks the input schemas of the confirm, status and
// cancel tools, by name in tools: the types, limits and defaults a host
// validates against, which are the command line's.
func expectToolSchemas(t *testing.T, tools map[string]*mcp.Tool) {
	t.Helper()
	in := decodeSchema(t, tools["confirm"].InputSchema)
	if in.Type != "object" || !reflect.DeepEqual(in.Required, []string{"message"}) || in.AdditionalProperties != false {
		t.Fatalf("confirm input schema: %+v", in)
	}
	wantTypes := map[string]string{
		"message": "string", "title": "string", "ok_label": "string", "cancel_label": "string",
		"icon": "string", "default_approve": "boolean", "key": "string", "scope": "string", "timeout": "string",
	}
	for name, typ := range wantTypes {
		if p, ok := in.Properties[name]; !ok || p.Type != typ {
			t.Errorf("confirm property %s: %+v, want type %s", name, p, typ)
		}
	}
	if len(in.Properties) != len(wantTypes) {
		t.Errorf("confirm has %d properties, want %d: %+v", len(in.Properties), len(wantTypes), in.Properties)
	}
	if p := in.Properties["message"]; p.MinLength == nil || *p.MinLength != 1 || p.MaxLength == nil || *p.MaxLength != dialog.MaxMessageBytes || p.Default != nil {
		t.Errorf("message: %+v", p)
	}
	for name, max := range map[string]int{"title": dialog.MaxTitleBytes, "ok_label": dialog.MaxLabelBytes, "cancel_label": dialog.MaxLabelBytes, "key": dialog.MaxKeyBytes, "scope": dialog.MaxScopeBytes} {
		if p := in.Properties[name]; p.MaxLength == nil || *p.MaxLength != max {
			t.Errorf("%s: %+v, want maxLength %d", name, p, max)
		}
	}
	if !reflect.DeepEqual(in.Properties["icon"].Enum, dialog.Icons) {
		t.Errorf("icon enum %v, want %v", in.Properties["icon"].Enum, dialog.Icons)
	}
	// The defaults are the confirm command's, so both ask the same request.
	def := lifecycle.DefaultCall()
	wantDefaults := map[string]any{
		"title":           def.Request.Title,
		"ok_label":        def.Request.OKLabel,
		"cancel_label":    def.Request.CancelLabel,
		"icon":            def.Request.Icon,
		"default_approve": def.Request.DefaultApprove,
		"timeout":         dialog.ShortDuration(def.Timeout),
		"message":         nil,
		"key":             nil,
		"scope":           nil,
	}
	for name, want := range wantDefaults {
		if got := in.Properties[name].Default; got != want {
			t.Errorf("%s defaults to %#v, want %#v (lifecycle.DefaultCall)", name, got, want)
		}
	}

	for _, name := range []string{"status", "cancel"} {
		in := decodeSchema(t, tools[name].InputSchema)
		key := in.Properties["key"]
		if in.Type != "object" || !reflect.DeepEqual(in.Required, []string{"key"}) || in.AdditionalProperties != false ||
			len(in.Properties) != 1 || key.Type != "string" || key.MinLength == nil || *key.MinLength != 1 {
			t.Errorf("%s input schema: %+v", name, in)
		}
	}
}

// A call that returns before the person answers: pending, retry, one
// holder started; calling again while the holder holds the dialog joins
// it and starts none.
func TestConfirmPendingStartsOneHolder(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	args := map[string]any{"message": "Deploy to production?"}
	c := ts.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, mcpPending)
	if c.out.Remembered || c.out.AnsweredAt != "" {
		t.Fatalf("pending result: %+v", c.out)
	}
	id := ts.identityOf("Deploy to production?")
	if c.out.Key != id {
		t.Fatalf("key %s, want the identity of the command line's request %s", c.out.Key, id)
	}
	if n := env.holders.count(); n != 1 {
		t.Fatalf("%d holders started, want 1", n)
	}
	argv := env.holders.last()
	rec := env.record(id)
	if argv[2] != id || argv[3] != rec.ContentHash || rec.Status != store.Requested || rec.Attempt != 1 {
		t.Fatalf("holder %q for record %+v", argv, rec)
	}
	env.holders.awaitHeld(id)
	// The dialog says who asks: the client, through MCP, in the server's
	// directory.
	if !strings.HasPrefix(rec.Origin, "ask-confirm-unit-test (through MCP) in ") {
		t.Fatalf("origin %q", rec.Origin)
	}

	for range 3 {
		expectResult(t, ts.call("confirm", args), lifecycle.StatusPending, mcpPending)
	}
	expectResult(t, ts.call("status", map[string]any{"key": id}), lifecycle.StatusPending, mcpPending)
	if n := env.holders.count(); n != 1 {
		t.Fatalf("%d holders started while the first held the dialog, want 1", n)
	}
	if rec := env.record(id); rec.Attempt != 1 || rec.Status != store.Requested {
		t.Fatalf("record after joining: %+v", rec)
	}
}

// A holder that holds no lock is, to the engine, one that died before its
// dialog was answered: the next identical call starts it again as the next
// attempt (where the lock is handed over; elsewhere a just-started holder
// has a grace period to take it). Every start happens under the identity's
// lock (fakeHolders.start checks), so two holders never run at once; the
// restart is the engine's recovery from a dead holder, not a second dialog.
func TestConfirmRestartsAHolderThatDied(t *testing.T) {
	env := newTestEnv(t)
	ts := env.connect(0)
	args := map[string]any{"message": "Rotate the keys?"}
	c := ts.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, mcpPending)
	if n := env.holders.count(); n != 1 {
		t.Fatalf("%d holders started by the first call, want 1", n)
	}

	expectResult(t, ts.call("confirm", args), lifecycle.StatusPending, mcpPending)
	wantStarts, wantAttempt := 2, 2
	if !platform.LockHandedOff {
		wantStarts, wantAttempt = 1, 1
	}
	if n, rec := env.holders.count(), env.record(c.out.Key); n != wantStarts || rec.Attempt != wantAttempt || rec.Status != store.Requested {
		t.Fatalf("after a second call: %d holders started, record %+v; want %d starts, attempt %d", n, rec, wantStarts, wantAttempt)
	}
	if argv := env.holders.last(); argv[2] != c.out.Key || argv[3] != env.record(c.out.Key).ContentHash {
		t.Fatalf("restarted holder %q", argv)
	}
}

// The person approves while no call waits: status reports the answer
// without collecting it; the next identical confirm collects it as a
// remembered answer, and within --remember it is returned again.
func TestApprovalIsCollectedByTheNextCall(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	args := map[string]any{"message": "Merge the release branch?", "timeout": "10m"}
	c := ts.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, mcpPending)
	id := c.out.Key
	env.holders.awaitHeld(id)
	answered := env.answer(id, store.Approved)
	wantText := fmt.Sprintf(mcpApprovedAgain, answered.EndedAt.Local().Format(time.TimeOnly))
	wantAt := answered.EndedAt.UTC().Format(time.RFC3339)

	st := ts.call("status", map[string]any{"key": id[:8]})
	expectResult(t, st, lifecycle.StatusApproved, wantText)
	if !st.out.Remembered || st.out.AnsweredAt != wantAt || st.out.Key != id {
		t.Fatalf("status: %+v", st.out)
	}
	if rec := env.record(id); !rec.Uncollected {
		t.Fatalf("status collected the answer: %+v", rec)
	}

	got := ts.call("confirm", args)
	expectResult(t, got, lifecycle.StatusApproved, wantText)
	if !strings.HasPrefix(got.text, "The person approved (a remembered answer, ") || !got.out.Remembered || got.out.AnsweredAt != wantAt || got.out.Key != id {
		t.Fatalf("collected: %+v", got.out)
	}
	if rec := env.record(id); rec.Uncollected {
		t.Fatalf("the answer is still uncollected after confirm returned it: %+v", rec)
	}

	// Within --remember the same arguments get the answer again.
	expectResult(t, ts.call("confirm", args), lifecycle.StatusApproved, wantText)
	// A different question is a different request.
	if other := ts.call("confirm", map[string]any{"message": "Merge the release branch now?"}); other.out.Status != lifecycle.StatusPending || other.out.Key == id {
		t.Fatalf("a different message: %+v", other.out)
	}
	if n := env.holders.count(); n != 2 {
		t.Fatalf("%d holders started, want one per question", n)
	}
}

// Calls waiting on an open dialog share its holder, and all of them get
// the answer the moment it is given. They wait in a second server on the
// same store, as a restarted host's would.
func TestWaitingCallsGetTheAnswer(t *testing.T) {
	env := newTestEnv(t).holding()
	args := map[string]any{"message": "Drop the staging database?", "icon": "warning"}
	first := env.connect(0).call("confirm", args)
	expectResult(t, first, lifecycle.StatusPending, mcpPending)
	id := first.out.Key
	env.holders.awaitHeld(id)

	// A call that did not wake on the answer would return only when its
	// wait runs out, minutes later; one that does returns within
	// milliseconds, and within woke however loaded the machine.
	const wait, woke = 2 * time.Minute, 30 * time.Second
	ts := env.connect(wait)
	const calls = 4
	type reply struct {
		p   *mcp.CallToolParams
		res *mcp.CallToolResult
		err error
	}
	results := make(chan reply, calls)
	ctx, cancel := context.WithTimeout(context.Background(), wait+woke)
	defer cancel()
	tokens := make([]string, calls)
	for i := range calls {
		tokens[i] = fmt.Sprintf("call-%d", i)
		p := &mcp.CallToolParams{Name: "confirm", Arguments: args}
		p.SetProgressToken(tokens[i])
		go func() {
			res, err := ts.cs.CallTool(ctx, p)
			results <- reply{p, res, err}
		}()
	}
	// A call has made its first look and waits on the open dialog once it
	// sends its first progress notification (the engine tells the call's
	// Watcher only once it joined the request): an answer now is its own.
	// One that looked only after the answer would read it as remembered.
	ts.awaitProgress(30*time.Second, tokens...)
	env.answer(id, store.Denied)
	deadline := time.After(woke)
	for range calls {
		select {
		case r := <-results:
			c := ts.toolCall(r.p, r.res, r.err)
			// An answer that lands while the call waits is that call's
			// own, not a remembered one.
			expectResult(t, c, lifecycle.StatusDenied, "The person denied. Do not proceed.")
			if c.out.Remembered || c.out.Key != id || c.out.AnsweredAt == "" {
				t.Fatalf("a waiting call: %+v", c.out)
			}
		case <-deadline:
			t.Fatalf("the waiting calls did not all return within %s of the answer, their wait is %s: they did not wake on the answer", woke, wait)
		}
	}
	if n := env.holders.count(); n != 1 {
		t.Fatalf("%d holders started, want 1", n)
	}
}

// awaitProgress waits until the client has had a progress notification
// for each of tokens, for at most timeout.
func (ts *testServer) awaitProgress(timeout time.Duration, tokens ...string) {
	t := ts.env.t
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		ts.mu.Lock()
		missing := slices.DeleteFunc(slices.Clone(tokens), func(tok string) bool {
			return slices.ContainsFunc(ts.progress, func(n *mcp.ProgressNotificationParams) bool { return n.ProgressToken == tok })
		})
		ts.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress notification for %q within %s: the calls did not wait on the open dialog", missing, timeout)
		}
	}
}

// A call whose client sent a progress token gets progress notifications
// while it waits.
func TestConfirmSendsProgressWhileWaiting(t *testing.T) {
	env := newTestEnv(t).holding()
	args := map[string]any{"message": "Publish the package?"}
	first := env.connect(0).call("confirm", args)
	env.holders.awaitHeld(first.out.Key)

	const wait = 300 * time.Millisecond
	ts := env.connect(wait)
	p := &mcp.CallToolParams{Name: "confirm", Arguments: args}
	p.SetProgressToken("tok-1")
	start := time.Now()
	c := ts.callWith(p)
	expectResult(t, c, lifecycle.StatusPending, mcpPending)
	if d := time.Since(start); d < wait {
		t.Fatalf("a call with --wait %s returned pending after %s", wait, d)
	}
	var progress []*mcp.ProgressNotificationParams
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ts.mu.Lock()
		progress = slices.Clone(ts.progress)
		ts.mu.Unlock()
		if len(progress) > 0 {
			break
		}
	}
	if len(progress) == 0 {
		t.Fatal("no progress notification while the call waited")
	}
	for i, n := range progress {
		if n.ProgressToken != "tok-1" || n.Total != wait.Seconds() || n.Progress < 0 || n.Progress > n.Total ||
			!strings.Contains(n.Message, "waiting for the person") || (i > 0 && n.Progress <= progress[i-1].Progress) {
			t.Fatalf("progress notification %d: %+v", i, n)
		}
	}
	if n := env.holders.count(); n != 1 {
		t.Fatalf("%d holders started, want 1", n)
	}
}

// Without a display nobody is asked (the client shows no forms): the call
// says so at once, as a result rather than an error, and nothing approves,
// however often it is asked.
func TestConfirmHeadlessIsAResultNotAnApproval(t *testing.T) {
	for askWith, hint := range map[string]string{askAuto: mcpHeadlessAuto, askDialog: mcpHeadlessHint} {
		t.Run(askWith, func(t *testing.T) {
			env := newTestEnv(t).headless()
			env.askWith = askWith
			testHeadless(t, env, hint)
		})
	}
}

func testHeadless(t *testing.T, env *testEnv, hint string) {
	// Nobody can be asked, so a call returns at once: within milliseconds,
	// and within quick however loaded the machine. One that waited for
	// somebody would take its whole wait, minutes.
	const wait, quick = 2 * time.Minute, 30 * time.Second
	ts := env.connect(wait)
	args := map[string]any{"message": "Anyone there?"}
	start := time.Now()
	for range 2 {
		c := ts.callWithin(quick, &mcp.CallToolParams{Name: "confirm", Arguments: args})
		expectResult(t, c, lifecycle.StatusHeadless, "Nobody can be asked: no display in this test. "+hint)
		if c.out.Remembered || c.out.AnsweredAt != "" || c.out.Key != ts.identityOf("Anyone there?") {
			t.Fatalf("headless result: %+v", c.out)
		}
	}
	if d := time.Since(start); d > quick {
		t.Fatalf("headless calls took %s, their wait is %s", d, wait)
	}
	if n := env.holders.count(); n != 0 {
		t.Fatalf("%d holders started without a display", n)
	}
	// Nothing was asked, so there is no request to look at.
	expectToolError(t, ts.call("status", map[string]any{"key": ts.identityOf("Anyone there?")}), "unknown request key")
}

// Invalid arguments are tool errors naming the argument as the tool
// spells it, and touch nothing.
func TestConfirmInvalidArgumentsAreToolErrors(t *testing.T) {
	env := newTestEnv(t)
	ts := env.connect(0)
	for _, c := range []struct {
		name  string
		args  map[string]any
		wants []string
	}{
		{"no message", map[string]any{"title": "T"}, []string{"message"}},
		{"empty message", map[string]any{"message": ""}, []string{"message"}},
		{"labels alike", map[string]any{"message": "Go?", "ok_label": "Same", "cancel_label": "Same"}, []string{"invalid argument ok_label: must differ from"}},
		{"default ok label as cancel label", map[string]any{"message": "Go?", "cancel_label": "Approve"}, []string{"invalid argument ok_label:"}},
		{"timeout not a duration", map[string]any{"message": "Go?", "timeout": "soon"}, []string{`invalid argument timeout: "soon" is not a duration such as 90s or 10m`}},
		{"timeout too long", map[string]any{"message": "Go?", "timeout": "25h"}, []string{"invalid argument timeout: must be longer than 0s and at most 24h, not 25h"}},
		{"timeout zero", map[string]any{"message": "Go?", "timeout": "0s"}, []string{"invalid argument timeout:"}},
		{"control character in the title", map[string]any{"message": "Go?", "title": "a\x1b[31mb"}, []string{"invalid argument title: contains control character U+001B"}},
		{"bidirectional override in the message", map[string]any{"message": "Go\u202e?"}, []string{"invalid argument message: contains bidirectional override U+202E"}},
		{"unknown icon", map[string]any{"message": "Go?", "icon": "smiley"}, []string{"icon"}},
		{"unknown argument", map[string]any{"message": "Go?", "colour": "red"}, []string{"colour"}},
		{"wrong type", map[string]any{"message": "Go?", "default_approve": "yes"}, []string{"default_approve"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ts.call("confirm", c.args)
			t.Logf("%s", got.text)
			expectToolError(t, got, c.wants...)
			if strings.Contains(got.text, "--") {
				t.Errorf("the error names a command-line flag, not the argument: %q", got.text)
			}
		})
	}
	if n := env.holders.count(); n != 0 {
		t.Fatalf("%d holders started by invalid calls", n)
	}
	recs, err := store.New(env.paths.DB).List()
	if err != nil || len(recs) != 0 {
		t.Fatalf("invalid calls stored %d records (%v)", len(recs), err)
	}
}

// status and cancel name a request by key; a key that names none is a
// tool error, never a result.
func TestStatusAndCancelOfAnUnknownKeyAreToolErrors(t *testing.T) {
	env := newTestEnv(t)
	ts := env.connect(0)
	expectResult(t, ts.call("confirm", map[string]any{"message": "Something on record"}), lifecycle.StatusPending, mcpPending)
	for _, tool := range []string{"status", "cancel"} {
		expectToolError(t, ts.call(tool, map[string]any{"key": "no-such-request"}), "unknown request key", `"no-such-request"`)
		expectToolError(t, ts.call(tool, map[string]any{"key": ""}), "key")
		expectToolError(t, ts.call(tool, map[string]any{}), "key")
		expectToolError(t, ts.call(tool, map[string]any{"key": "x", "message": "y"}), "message")
	}
}

// cancel closes an open request, which ends cancelled (a denial) for every
// call; cancelling it again, or any request that already ended, changes
// nothing and says so.
func TestCancelTool(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	args := map[string]any{"message": "Rotate the keys?", "key": "rotate-keys"}
	c := ts.call("confirm", args)
	expectResult(t, c, lifecycle.StatusPending, mcpPending)
	env.holders.awaitHeld(c.out.Key)

	cancelled := ts.call("cancel", map[string]any{"key": "rotate-keys"})
	expectResult(t, cancelled, lifecycle.StatusCancelled, mcpCancelDone)
	if cancelled.out.Key != c.out.Key {
		t.Fatalf("cancelled %s, asked for %s", cancelled.out.Key, c.out.Key)
	}
	expectResult(t, ts.call("confirm", args), lifecycle.StatusCancelled, mcpCancelled)
	expectResult(t, ts.call("cancel", map[string]any{"key": "rotate-keys"}), lifecycle.StatusCancelled, "Nothing to cancel: the request already ended cancelled.")

	// An approved request stays approved.
	approve := map[string]any{"message": "Ship it?"}
	c = ts.call("confirm", approve)
	env.holders.awaitHeld(c.out.Key)
	env.answer(c.out.Key, store.Approved)
	again := ts.call("cancel", map[string]any{"key": c.out.Key})
	expectResult(t, again, lifecycle.StatusApproved, "Nothing to cancel: the request already ended approved.")
	if rec := env.record(c.out.Key); rec.Status != store.Approved || rec.CancelRequest != "" {
		t.Fatalf("cancel changed an ended request: %+v", rec)
	}
}

// The server's own settings are bounded as a call's are: out of range is a
// usage error (exit 2) before anything is served.
func TestServerSettingsAreValidated(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*lifecycle.Call)
		flag string
	}{
		{"negative wait", func(c *lifecycle.Call) { c.Wait = -time.Second }, "--wait"},
		{"wait over a day", func(c *lifecycle.Call) { c.Wait = lifecycle.MaxWait + time.Second }, "--wait"},
		{"zero timeout", func(c *lifecycle.Call) { c.Timeout = 0 }, "--timeout"},
		{"timeout over a day", func(c *lifecycle.Call) { c.Timeout = lifecycle.MaxTimeout + time.Second }, "--timeout"},
		{"remember over a week", func(c *lifecycle.Call) { c.Remember = lifecycle.MaxRemember + time.Second }, "--remember"},
		{"negative collect-within", func(c *lifecycle.Call) { c.CollectWithin = -time.Second }, "--collect-within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := lifecycle.DefaultCall()
			c.set(&base)
			s, err := newServer(base, askAuto, &syncbuf.Buffer{})
			var ue *lifecycle.UsageError
			if err == nil || !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), c.flag+": ") {
				t.Fatalf("newServer = %v, %v; want a usage error about %s", s, err, c.flag)
			}
		})
	}
	base := lifecycle.DefaultCall()
	base.Wait = lifecycle.MaxWait
	if _, err := newServer(base, askAuto, &syncbuf.Buffer{}); err != nil {
		t.Fatalf("newServer with the longest wait: %v", err)
	}
	for _, askWith := range []string{askDialog, askElicitation, askAuto} {
		if _, err := newServer(lifecycle.DefaultCall(), askWith, &syncbuf.Buffer{}); err != nil {
			t.Fatalf("newServer --ask-with %s: %v", askWith, err)
		}
	}
	var ue *lifecycle.UsageError
	if _, err := newServer(lifecycle.DefaultCall(), "Auto", &syncbuf.Buffer{}); !errors.As(err, &ue) || err.Error() != `--ask-with: "Auto" is not one of dialog, elicitation, auto` {
		t.Fatalf("newServer --ask-with Auto: %v", err)
	}

	// Through the command line: exit 2 and a hint, and nothing served.
	for _, args := range [][]string{{"--wait", "25h"}, {"--wait", "soon"}, {"--timeout", "0s"}, {"--ask-with", "form"}, {"--ask-with", ""}, {"--no-such-flag"}, {"serve"}} {
		var stderr bytes.Buffer
		if code := execute(NewCommand(), args, &stderr); code != int(lifecycle.ExitUsage) {
			t.Errorf("ask-confirm-mcp %q exited %d, want %d: %s", args, code, lifecycle.ExitUsage, &stderr)
		}
		if !strings.HasPrefix(stderr.String(), "ask-confirm: error: ") || !strings.Contains(stderr.String(), "ask-confirm: hint: "+hintFlags) {
			t.Errorf("ask-confirm-mcp %q said %q", args, &stderr)
		}
	}
}

// ask-confirm mcp, which runs this program, sums it up in the same words in
// ask-confirm --help: both name every tool.
func TestMCPCommandSummaryNamesEveryTool(t *testing.T) {
	var sub *cobra.Command
	for _, c := range cmd.Command().Commands() {
		if c.Name() == "mcp" {
			sub = c
		}
	}
	if sub == nil {
		t.Fatal("ask-confirm has no mcp command")
	}
	own := NewCommand().Short
	if sub.Short != own {
		t.Errorf("ask-confirm mcp says %q, ask-confirm-mcp %q", sub.Short, own)
	}
	for _, tool := range []string{"confirm", "ask", "status", "cancel"} {
		if !strings.Contains(own, tool) {
			t.Errorf("the summary %q does not name the %s tool", own, tool)
		}
	}
}

// The configuration in --help gives the server's command by its absolute
// path, as README and mcp.md require: hosts do not always start servers
// with the shell's PATH. (It once showed a bare ask-confirm.)
func TestHelpExampleNamesTheAbsolutePath(t *testing.T) {
	c := NewCommand()
	objects, err := helpexample.JSON(c.Example)
	if err != nil || len(objects) == 0 {
		t.Fatalf("--help's example %q: %d JSON objects, %v", c.Example, len(objects), err)
	}
	for _, o := range objects {
		servers, _ := o["mcpServers"].(map[string]any)
		if len(servers) == 0 {
			t.Errorf("%v holds no mcpServers", o)
		}
		for name, s := range servers {
			if cmd, _ := s.(map[string]any)["command"].(string); !filepath.IsAbs(cmd) {
				t.Errorf("server %s's command %q is not an absolute path", name, cmd)
			}
		}
	}
}

// The status tool says of a failed request that it was never an answer,
// and that calling again asks anew: "stale", as ask-confirm status says,
// never an answer older than the remember window.
func TestStatusOfAFailedRequestIsStale(t *testing.T) {
	env := newTestEnv(t).holding()
	ts := env.connect(0)
	expectResult(t, ts.call("confirm", map[string]any{"message": "Deploy to production?"}), lifecycle.StatusPending, mcpPending)
	id := ts.identityOf("Deploy to production?")
	env.answer(id, store.Failed)
	c := ts.call("status", map[string]any{"key": id})
	if c.res.IsError || c.out.Status != lifecycle.StatusStale || !c.out.ShouldRetry || c.out.Remembered {
		t.Fatalf("status of a failed request: %+v", c.out)
	}
	if !strings.Contains(c.text, "The dialog could not be shown") || !strings.Contains(c.text, "asks the person again") || strings.Contains(c.text, "remember window") {
		t.Fatalf("status text %q", c.text)
	}
}

// The server's --help fits in 120 columns, as ask-confirm's pages do.
func TestHelpLinesFitIn120Columns(t *testing.T) {
	c := NewCommand()
	var out strings.Builder
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs([]string{"--help"})
	if err := c.Execute(); err != nil || out.Len() == 0 {
		t.Fatalf("--help: %v, %q", err, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 120 {
			t.Errorf("a line of %d columns:\n%s", n, line)
		}
	}
}
