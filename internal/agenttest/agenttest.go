//go:build unix

// Package agenttest runs the real agent hosts from npm for the hook's
// tests, against a scripted model server of this project's own on
// 127.0.0.1 that proposes one shell command and then finishes. Nothing the
// agents send may leave 127.0.0.1: every other address goes to a proxy
// that counts what came, and a test fails if anything did.
package agenttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Claude returns the Claude Code program that scripts/test installed
// (ASK_CONFIRM_CLAUDE).
func Claude(t *testing.T) string { return program(t, "Claude Code", "ASK_CONFIRM_CLAUDE") }

// program returns the agent host called name that scripts/test installed
// from scripts/agents/package-lock.json and named in the variable env.
// Without one the test fails when ASK_CONFIRM_E2E=require, as scripts/test
// sets, and skips otherwise.
func program(t *testing.T, name, env string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	msg := fmt.Sprintf("the agent tests need %s from npm in %s; scripts/test installs it from scripts/agents/package-lock.json", name, env)
	if os.Getenv("ASK_CONFIRM_E2E") == "require" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// FinalWord is what a scripted model says last, once its command had its
// answer: an agent's screen shows it when the turn is over.
const FinalWord = "Finished: that was the test's one command."

// Model is a scripted Anthropic Messages server: to a conversation that
// has no tool result yet it answers with one Bash tool call of Command;
// to one that has, with FinalWord. It keeps the tool results it was
// sent: what the model was told.
type Model struct {
	URL     string
	Command string
	mu      sync.Mutex
	results []string
}

// NewModel starts a model server on 127.0.0.1 that proposes command. It
// stops with the test.
func NewModel(t *testing.T, command string) *Model {
	return startModel(t, command, (*Model).serve)
}

// startModel starts a model server on 127.0.0.1 that proposes command and
// answers with serve, in the API of one agent host. It stops with the test.
func startModel(t *testing.T, command string, serve func(*Model, http.ResponseWriter, *http.Request)) *Model {
	t.Helper()
	m := &Model{Command: command}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(m, w, r) }))
	t.Cleanup(s.Close)
	m.URL = s.URL
	return m
}

// ToolResults returns the tool results the agent sent, in order: the
// command's output, or why it did not run.
func (m *Model) ToolResults() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.results...)
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 10}`)
		return
	}
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	result, answered := "", false
	if n := len(req.Messages); n > 0 {
		result, answered = toolResult(req.Messages[n-1].Content)
	}
	if answered {
		m.mu.Lock()
		m.results = append(m.results, result)
		m.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	m.event(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{},
		"stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	if answered || len(req.Tools) == 0 {
		m.block(w, map[string]any{"type": "text", "text": ""}, map[string]any{"type": "text_delta", "text": FinalWord})
		m.stop(w, "end_turn")
		return
	}
	input, _ := json.Marshal(map[string]string{"command": m.Command, "description": "Run the command the test proposes"})
	m.block(w, map[string]any{"type": "tool_use", "id": "toolu_test", "name": "Bash", "input": map[string]any{}},
		map[string]any{"type": "input_json_delta", "partial_json": string(input)})
	m.stop(w, "tool_use")
}

// toolResult returns the text of a tool_result in a message's content.
func toolResult(content json.RawMessage) (string, bool) {
	var blocks []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return "", false
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		var s string
		if json.Unmarshal(b.Content, &s) == nil {
			return s, true
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(b.Content, &parts)
		var texts []string
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n"), true
	}
	return "", false
}

func (m *Model) event(w http.ResponseWriter, name string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func (m *Model) block(w http.ResponseWriter, start, delta map[string]any) {
	m.event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	m.event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	m.event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
}

func (m *Model) stop(w http.ResponseWriter, reason string) {
	m.event(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason}, "usage": map[string]any{"output_tokens": 1}})
	m.event(w, "message_stop", map[string]any{"type": "message_stop"})
}

// blackhole returns the address of a proxy on 127.0.0.1 that takes
// every connection and closes it once it has read the request line, and
// fails the test, naming where each went, if any came: nothing an agent
// sends may leave 127.0.0.1.
func blackhole(t *testing.T, known []string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var came []string
	var conns sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				line, _ := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
				mu.Lock()
				came = append(came, strings.TrimSpace(line))
				mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		conns.Wait()
		mu.Lock()
		defer mu.Unlock()
		var unknown []string
		for _, line := range came {
			if slices.ContainsFunc(known, func(k string) bool { return strings.HasPrefix(line, k) }) {
				t.Logf("the proxy refused, as it must, what the agent tries whatever it is told: %s", line)
			} else {
				unknown = append(unknown, line)
			}
		}
		if len(unknown) > 0 {
			t.Errorf("the agent tried %d times to reach an address beyond 127.0.0.1, through the proxy: %q", len(unknown), unknown)
		}
	})
	return ln.Addr().String()
}

// Run is one run of an agent in a home of its own.
type Run struct {
	Cmd    *exec.Cmd
	Stdout strings.Builder
	Stderr strings.Builder
	Done   chan struct{}
	Err    error
}

// Result is what claude -p --output-format json printed last.
type Result struct {
	SessionID  string `json:"session_id"`
	StopReason string `json:"stop_reason"`
	Subtype    string `json:"subtype"`
	IsError    bool   `json:"is_error"`
	Result     string `json:"result"`
}

// Settings writes Claude Code's user settings with hooks (the value of
// "hooks") into home.
func Settings(t *testing.T, home string, hooks any) {
	writeSettings(t, filepath.Join(home, ".claude"), map[string]any{"hooks": hooks})
}

// writeSettings writes settings as dir/settings.json, readable by its
// owner only, making dir as needed.
func writeSettings(t *testing.T, dir string, settings any) {
	t.Helper()
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// offline is the environment that sends every address but 127.0.0.1 to
// the blackhole proxy.
func offline(t *testing.T) []string { return offlineBut(t, nil) }

// offlineBut is offline, for an agent that tries the known addresses
// however it is configured: the proxy refuses them too, and the test only
// logs them (each a request line's beginning, as "CONNECT host:443 ").
func offlineBut(t *testing.T, known []string) []string {
	proxy := "http://" + blackhole(t, known)
	return []string{"HTTPS_PROXY=" + proxy, "HTTP_PROXY=" + proxy, "https_proxy=" + proxy, "http_proxy=" + proxy,
		"ALL_PROXY=" + proxy, "all_proxy=" + proxy, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"}
}

// start starts c in a process group of its own, keeping its output, and
// stops the group with the test.
func start(t *testing.T, c *exec.Cmd) *Run {
	t.Helper()
	r := &Run{Cmd: c, Done: make(chan struct{})}
	c.Stdout, c.Stderr = &r.Stdout, &r.Stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that keeps the output open does not keep Wait.
	c.WaitDelay = 10 * time.Second
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); <-r.Done })
	go func() { r.Err = c.Wait(); close(r.Done) }()
	return r
}

// ownEnv is env without what would point an agent at a real account,
// endpoint or configuration of the developer's.
func ownEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "ANTHROPIC_"), strings.HasPrefix(name, "CLAUDE_"), strings.HasPrefix(name, "GEMINI_"),
			strings.HasPrefix(name, "OPENAI_"), strings.HasPrefix(name, "CODEX_"), strings.HasPrefix(name, "AZURE_"),
			strings.HasPrefix(name, "GOOGLE_"), strings.HasPrefix(name, "VERTEX"), strings.HasPrefix(name, "AWS_"),
			strings.EqualFold(name, "https_proxy"), strings.EqualFold(name, "http_proxy"), strings.EqualFold(name, "no_proxy"),
			strings.EqualFold(name, "all_proxy"):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// StartClaude runs claude -p with args in dir, with home as its HOME,
// env added to its environment, and the model server m as its only
// reachable address.
func StartClaude(t *testing.T, m *Model, home, dir string, env []string, args ...string) *Run {
	t.Helper()
	c := exec.Command(Claude(t), append([]string{"-p", "--output-format", "json"}, args...)...)
	c.Dir = dir
	c.Env = claudeEnv(t, m, home, env)
	return start(t, c)
}

// claudeEnv is env for Claude Code with home as its HOME and the model
// server m as its only reachable address.
func claudeEnv(t *testing.T, m *Model, home string, env []string) []string {
	return append(append(ownEnv(env), "HOME="+home,
		"ANTHROPIC_BASE_URL="+m.URL, "ANTHROPIC_AUTH_TOKEN=test-token", "ANTHROPIC_MODEL=claude-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"),
		offline(t)...)
}

// Wait waits for the run to end and returns what it printed last as
// JSON (claude -p's result; Gemini CLI's has only SessionID).
func (r *Run) Wait(t *testing.T) Result {
	t.Helper()
	<-r.Done
	out := strings.TrimSpace(r.Stdout.String())
	var res Result
	if i := strings.LastIndex(out, "\n{"); i >= 0 && !strings.HasPrefix(out, "{") {
		out = out[i+1:]
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("claude -p printed no result (%v): %s\nstderr: %s", r.Err, r.Stdout.String(), r.Stderr.String())
	}
	return res
}
