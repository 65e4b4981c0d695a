//go:build e2e && unix

package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/syncbuf"
	"github.com/ask-confirm/ask-confirm/mcpserver"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// These tests drive ask-confirm mcp as an agent host does: the SDK's own
// client talks over a real stdio pipe to this test binary as ask-confirm,
// which runs ask-confirm-mcp, built from ./ask-confirm-mcp for these tests
// (e2e.MCPServerEnv). The real-dialog ones answer GNOME zenity under Xvfb
// with xdotool.

func TestMCPListsToolsWithSchemas(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	s := h.MCPConnect("--wait", "3s")
	init := s.Cs.InitializeResult()
	if init.ServerInfo.Name != "ask-confirm" || !strings.Contains(init.Instructions, "same arguments") {
		t.Fatalf("server info %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	list, err := s.Cs.ListTools(context.Background(), nil)
	e2e.Must(t, err)

	type property struct {
		Type      string   `json:"type"`
		Enum      []string `json:"enum"`
		MaxLength int      `json:"maxLength"`
		Default   any      `json:"default"`
	}
	type schema struct {
		Type                 string              `json:"type"`
		Required             []string            `json:"required"`
		Properties           map[string]property `json:"properties"`
		AdditionalProperties any                 `json:"additionalProperties"`
	}
	schemas := map[string][2]schema{}
	for _, tool := range list.Tools {
		var in, out schema
		b, _ := json.Marshal(tool.InputSchema)
		e2e.Must(t, json.Unmarshal(b, &in))
		b, _ = json.Marshal(tool.OutputSchema)
		e2e.Must(t, json.Unmarshal(b, &out))
		schemas[tool.Name] = [2]schema{in, out}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	if len(schemas) != 4 {
		t.Fatalf("tools %v, want confirm, ask, status and cancel", slices.Sorted(func(yield func(string) bool) {
			for k := range schemas {
				if !yield(k) {
					return
				}
			}
		}))
	}

	byName := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	mcpserver.ExpectToolSchemas(t, byName)

	// ask: a message, and options of labels with descriptions.
	ask := schemas["ask"][0]
	for name, typ := range map[string]string{"message": "string", "title": "string", "options": "array", "multiple": "boolean",
		"allow_other": "boolean", "default": "string", "key": "string", "scope": "string", "timeout": "string"} {
		if p, ok := ask.Properties[name]; !ok || p.Type != typ {
			t.Errorf("ask property %s: %+v, want type %s", name, p, typ)
		}
	}
	if !reflect.DeepEqual(ask.Required, []string{"message"}) || len(ask.Properties) != 9 || ask.AdditionalProperties != false {
		t.Errorf("ask input schema: %+v", ask)
	}
	if _, ok := schemas["ask"][1].Properties["answer"]; !ok {
		t.Errorf("ask output schema lacks answer: %+v", schemas["ask"][1])
	}

	for _, name := range []string{"confirm", "ask", "status", "cancel"} {
		out := schemas[name][1]
		for _, field := range []string{"status", "should_retry", "key", "remembered", "answered_at", "message"} {
			if _, ok := out.Properties[field]; !ok {
				t.Errorf("%s output schema lacks %s: %+v", name, field, out)
			}
		}
	}
	for _, name := range []string{"status", "cancel"} {
		in := schemas[name][0]
		if !reflect.DeepEqual(in.Required, []string{"key"}) || in.Properties["key"].Type != "string" {
			t.Errorf("%s input schema: %+v", name, in)
		}
	}
}

// Without a display nobody can be asked: the call says so at once, as a
// result rather than an error, and approves nothing.
func TestMCPHeadlessIsAResult(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	s := h.MCPConnect("--wait", "2m")
	c := s.Call("confirm", map[string]any{"message": "Anyone there?"})
	e2e.ExpectResult(t, c, lifecycle.StatusHeadless, "")
	if !strings.HasPrefix(c.Text, "Nobody can be asked") || !strings.Contains(c.Text, "Do not proceed") {
		t.Fatalf("text: %q", c.Text)
	}
	// A call that waited would wait out --wait (2 min).
	if c.Elapsed > time.Minute {
		t.Fatalf("a headless call took %s", c.Elapsed)
	}
	if n := h.CountEvents("headless"); n != 1 {
		t.Fatalf("history holds %d headless events, want 1", n)
	}
}

// Malformed calls get protocol or tool errors, touch nothing, and the
// server keeps serving.
func TestMCPMalformedCallsKeepServing(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	s := h.MCPConnect("--wait", "3s")

	c := s.Call("no-such-tool", map[string]any{"message": "x"})
	if c.Err == nil || !strings.Contains(c.Err.Error(), "unknown tool") {
		t.Fatalf("unknown tool: err %v, result %+v", c.Err, c.Res)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no message", map[string]any{"title": "T"}, "message"},
		{"message of the wrong type", map[string]any{"message": 42}, "message"},
		{"default_approve of the wrong type", map[string]any{"message": "m", "default_approve": "yes"}, "default_approve"},
		{"unknown argument", map[string]any{"message": "m", "mesage": "typo"}, "mesage"},
		{"unknown icon", map[string]any{"message": "m", "icon": "skull"}, "icon"},
		{"message over the limit", map[string]any{"message": strings.Repeat("x", dialog.MaxMessageBytes+1)}, "message"},
		{"message over the limit in bytes, not characters", map[string]any{"message": strings.Repeat("é", dialog.MaxMessageBytes/2+1)},
			"invalid argument message: is 65538 bytes; the limit is 65536"},
		{"escape sequence in the title", map[string]any{"message": "m", "title": "\x1b[31mred"}, "invalid argument title: contains control character"},
		{"bidi override in the message", map[string]any{"message": "invoice\u202Efdp.exe"}, "invalid argument message: contains bidirectional override"},
		{"equal labels", map[string]any{"message": "m", "ok_label": "OK", "cancel_label": "OK"}, "invalid argument ok_label"},
		{"timeout not a duration", map[string]any{"message": "m", "timeout": "forever"}, `invalid argument timeout: "forever" is not a duration`},
		{"timeout over the limit", map[string]any{"message": "m", "timeout": "48h"}, "invalid argument timeout: must be longer than 0s and at most 24h, not 48h"},
		{"key over the limit", map[string]any{"message": "m", "key": strings.Repeat("k", dialog.MaxKeyBytes+1)}, "key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e2e.ExpectToolError(t, s.Call("confirm", tc.args), tc.want)
		})
	}
	e2e.ExpectToolError(t, s.Call("status", map[string]any{"key": "no-such-request"}), "no stored request matches")
	e2e.ExpectToolError(t, s.Call("cancel", map[string]any{}), "key")

	if ev := h.History(); len(ev) != 0 {
		t.Fatalf("malformed calls wrote history: %v", ev)
	}
	// Still serving.
	e2e.ExpectResult(t, s.Call("confirm", map[string]any{"message": "Still there?"}), lifecycle.StatusHeadless, "")
}

// A client that writes lines the SDK cannot read gets JSON-RPC errors, and
// the session goes on; stdout carries nothing but JSON-RPC messages.
func TestMCPBadLinesGetProtocolErrors(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	cmd := h.Command([]string{"mcp", "--wait", "1s"})
	stdin, err := cmd.StdinPipe()
	e2e.Must(t, err)
	stdout, err := cmd.StdoutPipe()
	e2e.Must(t, err)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	e2e.Must(t, cmd.Start())
	defer cmd.Process.Kill()

	send := func(lines ...string) {
		for _, l := range lines {
			_, err := io.WriteString(stdin, l+"\n")
			e2e.Must(t, err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{"message":"Before the bad lines"}}}`,
		`this is not JSON {`,
		`{"hello":"world"}`,
		`{"id":"x-1","method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[]`,
		`{"jsonrpc":"2.0","id":4} {"jsonrpc":"2.0","id":5}`,
		``,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"not an object"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm","arguments":"not an object"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"confirm","arguments":{"message":"After the bad lines"}}}`)

	type message struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// id (or "null#n" for the n-th error without one) -> the message.
	got := map[string]message{}
	nulls := 0
	deadline := time.After(20 * time.Second)
	for len(got) < 11 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended after %d messages: %v\nstderr: %s", len(got), got, stderr.String())
			}
			var m message
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("stdout line is not a JSON-RPC message: %q", l)
			}
			id := string(m.ID)
			if id == "null" {
				nulls++
				id = "null#" + string(rune('0'+nulls))
			}
			got[id] = m
		case <-deadline:
			t.Fatalf("got %d of 11 answers: %v\nstderr: %s", len(got), got, stderr.String())
		}
	}
	code := func(id string) int {
		m, ok := got[id]
		if !ok || m.Error == nil {
			t.Fatalf("no error answered %s: %+v", id, m)
		}
		return m.Error.Code
	}
	// Not JSON, a non-JSON-RPC object, a message without "jsonrpc", a
	// batch, an empty batch, two values on one line.
	want := map[string]int{"null#1": -32700, "null#2": -32600, `"x-1"`: -32600, "null#3": -32600, "null#4": -32600, "null#5": -32700, "6": -32602}
	for id, c := range want {
		if got := code(id); got != c {
			t.Errorf("answer to %s: code %d, want %d", id, got, c)
		}
	}
	for _, id := range []string{"2", "7", "8"} {
		if m := got[id]; m.Result == nil {
			t.Errorf("no result for %s: %+v", id, m)
		}
	}
	if !strings.Contains(string(got["8"].Result), `"status":"headless"`) || !strings.Contains(string(got["7"].Result), `"isError":true`) {
		t.Errorf("results: 7 %s, 8 %s", got["7"].Result, got["8"].Result)
	}

	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the server ended with %v after its input closed; stderr: %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit when its input closed")
	}
	for l := range lines {
		t.Errorf("stdout after the last answer: %q", l)
	}
}

func TestMCPServerFlags(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--wait", "25h"}, "--wait: 25h is outside 0s to 24h"},
		{[]string{"mcp", "--timeout", "0s"}, "--timeout"},
		{[]string{"mcp", "--remember", "-1s"}, "--remember"},
		{[]string{"mcp", "--wait", "soon"}, "invalid argument"},
		{[]string{"mcp", "stray"}, "unknown command"},
	} {
		o := h.Run(tc.args...)
		if o.Code != 2 || o.Stdout != "" || !strings.Contains(o.Stderr, tc.want) {
			t.Errorf("ask-confirm %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(tc.args, " "), o.Code, o.Stdout, o.Stderr, tc.want)
		}
	}
	// The server's own help, through ask-confirm mcp.
	if o := h.Run("mcp", "--help"); o.Code != 0 || !strings.Contains(o.Stdout, "ask-confirm-mcp [flags]") || !strings.Contains(o.Stdout, "--remember") {
		t.Errorf("mcp --help: exit %d, stdout %q, stderr %q", o.Code, o.Stdout, o.Stderr)
	}
	// A client that connects and leaves at once: a clean exit, nothing on
	// stdout.
	if o := h.Run("mcp"); o.Code != 0 || o.Stdout != "" {
		t.Fatalf("mcp with empty input: exit %d, stdout %q, stderr %q", o.Code, o.Stdout, o.Stderr)
	}
}

// Without ask-confirm-mcp beside it or on PATH, ask-confirm mcp says how
// to get it, and fails.
func TestMCPWithoutServerProgram(t *testing.T) {
	h := e2e.NewMCPHarness(t)
	c := exec.Command(h.Exe, "mcp")
	c.Args[0] = "ask-confirm"
	c.Env, c.Dir = h.Env, h.Work // h.env has no PATH
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	code := e2e.ExitCode(t, c.Run())
	if code != int(lifecycle.ExitInternal) || stdout.Len() != 0 || !strings.Contains(stderr.String(), "go install github.com/ask-confirm/ask-confirm/...@latest") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// --- real dialogs ---

func TestMCPRealApproveAndDeny(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "30s")
	title := h.Title("MCP-approve")
	args := map[string]any{"title": title, "message": "Ship v2 to production?"}
	done := s.Start("confirm", args)
	h.Click(title, "approve")
	c := e2e.AwaitCall(t, done, 30*time.Second)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "The person approved.")
	if c.Out.Remembered {
		t.Fatalf("a fresh answer marked remembered: %+v", c.Out)
	}
	if at, err := time.Parse(time.RFC3339, c.Out.AnsweredAt); err != nil || time.Since(at) > time.Minute {
		t.Fatalf("answered_at %q: %v", c.Out.AnsweredAt, err)
	}
	h.WaitNoWindow(title, 30*time.Second)

	// The command line asks the same request: same identity, store and
	// history, so it collects the same answer without a dialog.
	o := h.Run("--json", "--title", title, "--message", "Ship v2 to production?")
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered || o.Res.Key != c.Out.Key {
		t.Fatalf("the command line did not collect the MCP answer: %+v (MCP key %s)", o.Res, c.Out.Key)
	}
	again := s.Call("confirm", args)
	e2e.ExpectResult(t, again, lifecycle.StatusApproved, "")
	if !again.Out.Remembered || !strings.HasPrefix(again.Text, "The person approved (a remembered answer") {
		t.Fatalf("repeat call: %+v", again.Out)
	}

	title = h.Title("MCP-deny")
	done = s.Start("confirm", map[string]any{"title": title, "message": "Drop the table?", "icon": "warning"})
	h.Click(title, "cancel")
	e2e.ExpectResult(t, e2e.AwaitCall(t, done, 30*time.Second), lifecycle.StatusDenied, "The person denied. Do not proceed.")
}

// A slow person: the call returns pending at --wait with progress on the
// way, the dialog stays, a second call joins it, and the answer is
// collected by the call after the click.
func TestMCPRealPendingThenCollect(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "3s")
	title := h.Title("MCP-pending")
	args := map[string]any{"title": title, "message": "Deploy when ready?", "timeout": "2m"}
	p := &mcp.CallToolParams{Name: "confirm", Arguments: args}
	p.SetProgressToken("tok-1")
	c := s.CallWith(context.Background(), p)
	e2e.ExpectResult(t, c, lifecycle.StatusPending, e2e.TextPending)
	if c.Out.AnsweredAt != "" || c.Out.Remembered {
		t.Fatalf("pending result: %+v", c.Out)
	}
	// A call that waited for the dialog would wait its timeout (2 min).
	if c.Elapsed < 2500*time.Millisecond || c.Elapsed > time.Minute {
		t.Fatalf("--wait 3s returned after %s", c.Elapsed)
	}
	s.Mu.Lock()
	progress := slices.Clone(s.Progress)
	s.Mu.Unlock()
	if len(progress) < 2 {
		t.Fatalf("%d progress notifications in a 3s wait, want at least 2", len(progress))
	}
	for i, n := range progress {
		if n.ProgressToken != "tok-1" || n.Total != 3 || !strings.Contains(n.Message, "waiting for the person") ||
			(i > 0 && n.Progress <= progress[i-1].Progress) {
			t.Fatalf("progress notification %d: %+v", i, n)
		}
	}

	h.WaitWindow(title) // still on screen
	st := s.Call("status", map[string]any{"key": c.Out.Key})
	e2e.ExpectResult(t, st, lifecycle.StatusPending, e2e.TextPending)

	// The same arguments again join the open dialog.
	e2e.ExpectResult(t, s.Call("confirm", args), lifecycle.StatusPending, e2e.TextPending)
	if n := len(h.Windows(title)); n != 1 {
		t.Fatalf("%d windows after the second call", n)
	}
	h.Click(title, "approve")
	h.WaitNoWindow(title, 30*time.Second)
	h.WaitAnswered()

	c = s.Call("confirm", args)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "")
	if !c.Out.Remembered {
		t.Fatalf("collected answer not marked remembered: %+v", c.Out)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
	e2e.ExpectResult(t, s.Call("status", map[string]any{"key": c.Out.Key[:8]}), lifecycle.StatusApproved, "")
}

// A new question under the same key replaces the open dialog: the older
// call ends superseded (a result, not an error), the newer one is asked.
// Both calls run at once in one server.
func TestMCPRealSupersedeByKey(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "20s")
	oldTitle, newTitle := h.Title("MCP-old"), h.Title("MCP-new")
	old := s.Start("confirm", map[string]any{"key": "release", "title": oldTitle, "message": "Tag v1?"})
	h.WaitWindow(oldTitle)
	// The holder records "shown" once the dialog program has run for a
	// moment (150 ms), which on a quick machine is after the window maps.
	e2e.Eventually(t, 30*time.Second, "the older dialog to be recorded as shown", func() bool { return h.CountEvents("shown") == 1 })
	superseded := time.Now()
	newArgs := map[string]any{"key": "release", "title": newTitle, "message": "Tag v2 instead?"}
	newer := s.Start("confirm", newArgs)
	o := e2e.AwaitCall(t, old, 40*time.Second)
	e2e.ExpectResult(t, o, lifecycle.StatusSuperseded, e2e.TextSuperseded)
	if d := time.Since(superseded); d > 5*time.Second {
		// The older waiter's blocking shared lock can lose the race to the
		// new holder's exclusive one; it then notices only at --wait.
		t.Logf("the superseded call returned after %s, at its --wait", d)
	}
	h.WaitNoWindow(oldTitle, 30*time.Second)
	h.Click(newTitle, "approve")
	n := e2e.AwaitCall(t, newer, 30*time.Second)
	if n.Err == nil && n.Out.Status == lifecycle.StatusPending {
		// The newer call's wait ran out while the older one was late: the
		// retry contract collects the answer.
		n = s.Call("confirm", newArgs)
	}
	e2e.ExpectResult(t, n, lifecycle.StatusApproved, "")
	if n.Out.Key != o.Out.Key {
		t.Fatalf("one key, two identities: %s and %s", o.Out.Key, n.Out.Key)
	}
	// A dialog that failed to render is shown again (--retries): those
	// attempts are no part of what this test is about.
	got := e2e.DropSupersededCollection(h.EventsBesideRenderRetries(n.Out.Key))
	if !reflect.DeepEqual(got, []string{"requested", "shown", "superseded", "requested", "shown", "answered", "collected"}) {
		t.Fatalf("history: %v", h.History())
	}
}

func TestMCPRealCancelTool(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := h.MCPConnect("--wait", "30s")
	title := h.Title("MCP-cancel")
	waiting := s.Start("confirm", map[string]any{"key": "rotate-keys", "title": title, "message": "Rotate the keys?"})
	h.WaitWindow(title)
	c := s.Call("cancel", map[string]any{"key": "rotate-keys"})
	e2e.ExpectResult(t, c, lifecycle.StatusCancelled, e2e.TextCancelDone)
	h.WaitNoWindow(title, 30*time.Second)
	e2e.ExpectResult(t, e2e.AwaitCall(t, waiting, 30*time.Second), lifecycle.StatusCancelled, e2e.TextCancelled)
	again := s.Call("cancel", map[string]any{"key": "rotate-keys"})
	e2e.ExpectResult(t, again, lifecycle.StatusCancelled, "Nothing to cancel: the request already ended cancelled.")
}

// A host that dies mid-call (its server's stdin closes) leaves the dialog
// up, and its answer is collected by the next client asking the same thing:
// no lost answer, no second dialog.
func TestMCPRealDisconnectLeavesDialogCollectable(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("MCP-disconnect")
	args := map[string]any{"title": title, "message": "Still there after the client left?"}

	cmd := h.Command([]string{"mcp", "--wait", "3m"})
	stdin, err := cmd.StdinPipe()
	e2e.Must(t, err)
	stdout, err := cmd.StdoutPipe()
	e2e.Must(t, err)
	e2e.Must(t, cmd.Start())
	defer cmd.Process.Kill()
	client := mcp.NewClient(&mcp.Implementation{Name: "doomed-host", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	e2e.Must(t, err)
	first := &e2e.MCPSession{H: h, Cs: cs}
	done := first.Start("confirm", args)
	h.WaitWindow(title)
	closed := time.Now()
	stdin.Close()
	if c := e2e.AwaitCall(t, done, time.Minute); c.Err == nil {
		t.Fatalf("the abandoned call returned a result: %+v", c.Out)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the server ended with %v when its client went away", err)
	}
	// A server that waited for its call would wait out --wait (3 min).
	if d := time.Since(closed); d > time.Minute {
		t.Fatalf("the server took %s to exit after its client went away", d)
	}
	cs.Close()
	time.Sleep(500 * time.Millisecond)
	h.WaitWindow(title) // the dialog outlived the server
	h.Click(title, "approve")
	h.WaitNoWindow(title, 30*time.Second)
	h.WaitAnswered()

	s := h.MCPConnect("--wait", "30s")
	c := s.Call("confirm", args)
	e2e.ExpectResult(t, c, lifecycle.StatusApproved, "")
	if !c.Out.Remembered {
		t.Fatalf("the answer was not collected from the store: %+v", c.Out)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// A host that gives up on a call (its own timeout cancels the request)
// leaves the dialog up; the same server keeps serving, and the next call
// joins the dialog.
func TestMCPRealCancelledCallJoinsAgain(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("MCP-gaveup")
	args := map[string]any{"title": title, "message": "Worth the wait?"}
	s := h.MCPConnect("--wait", "30s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c := s.CallWith(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: args})
	if c.Err == nil {
		t.Fatalf("the call outlived its context: %+v", c.Out)
	}
	h.WaitWindow(title)
	joined := s.Start("confirm", args)
	time.Sleep(700 * time.Millisecond) // a second window would have appeared by now
	if n := len(h.Windows(title)); n != 1 {
		t.Fatalf("%d windows after calling again", n)
	}
	h.Click(title, "approve")
	e2e.ExpectResult(t, e2e.AwaitCall(t, joined, 30*time.Second), lifecycle.StatusApproved, "The person approved.")
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// One MCP server with hundreds of calls pending on one open dialog keeps
// one waiter for it: its threads and open files do not grow with the
// number of calls, it holds at most one descriptor of the dialog's lock
// file while the dialog is open, and none once the dialog has ended.
//
// The calls come in batches of a hundred at once. The first batch takes
// the process to the threads that a hundred calls at once need (the Go
// runtime starts more of them the slower the machine's syscalls return,
// and never ends them); two more batches then add nothing unless each
// pending call keeps something of its own, as a waiter per call blocked on
// the lock file did (a thread each).
func TestMCPManyPendingCallsShareOneWaiter(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	if runtime.GOOS != "linux" {
		t.Skip("counts threads and descriptors through /proc")
	}
	h := e2e.NewFakeHarness(t)
	s := h.MCPConnect("--wait", "20ms")
	pid := s.Cmd.Process.Pid
	args := map[string]any{"message": "Hold still", "timeout": "2m"}
	first := s.Call("confirm", args)
	e2e.ExpectResult(t, first, lifecycle.StatusPending, e2e.TextPending)
	h.WaitShown(1)
	lockPath := filepath.Join(h.Dir, "state", "ask-confirm", "locks", first.Out.Key+".lock")

	const batch, batches = 100, 3
	pending := func() {
		var wg sync.WaitGroup
		errs := make(chan string, batch)
		for range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c := s.Call("confirm", args); c.Err != nil || c.Out.Status != lifecycle.StatusPending {
					errs <- fmt.Sprintf("%v %+v", c.Err, c.Out)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatalf("a pending call: %s", e)
		}
	}
	pending()
	baseThreads, baseFiles := procThreads(t, pid), len(procFiles(t, pid))
	for range batches - 1 {
		pending()
	}
	threads, files := procThreads(t, pid), procFiles(t, pid)
	later := (batches - 1) * batch
	t.Logf("after %d pending calls: %d threads, %d open files; after the next %d: %d and %d", batch, baseThreads, baseFiles, later, threads, len(files))
	// Something kept per call grows by 200; the runtime's own noise by a few.
	if grown := threads - baseThreads; grown > later/4 {
		t.Fatalf("%d more threads after %d more pending calls (%d after the first %d)", grown, later, baseThreads, batch)
	}
	if grown := len(files) - baseFiles; grown > later/4 {
		t.Fatalf("%d more open files after %d more pending calls (%d after the first %d)", grown, later, baseFiles, batch)
	}
	if n := countTarget(files, lockPath); n > 1 {
		t.Fatalf("%d descriptors of the lock file while the dialog is open, want at most 1", n)
	}

	h.Answer("approve")
	e2e.Eventually(t, 30*time.Second, "the approval to be collected", func() bool {
		return s.Call("confirm", args).Out.Status == lifecycle.StatusApproved
	})
	e2e.Eventually(t, 30*time.Second, "no descriptor of the lock file", func() bool {
		return countTarget(procFiles(t, pid), lockPath) == 0
	})
}

// procThreads returns the number of threads of process pid.
func procThreads(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	e2e.Must(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			e2e.Must(t, err)
			return n
		}
	}
	t.Fatalf("no thread count for process %d", pid)
	return 0
}

// procFiles returns what the open descriptors of process pid point at.
func procFiles(t *testing.T, pid int) []string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	e2e.Must(t, err)
	var files []string
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			files = append(files, target)
		}
	}
	return files
}

func countTarget(files []string, path string) int {
	n := 0
	for _, f := range files {
		if f == path {
			n++
		}
	}
	return n
}
