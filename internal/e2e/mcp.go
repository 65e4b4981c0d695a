//go:build e2e && unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/syncbuf"
	"github.com/ask-confirm/ask-confirm/remote"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// mcpServerProgram is the MCP server's program, which ask-confirm mcp runs.
const mcpServerProgram = "ask-confirm-mcp"

// The MCP server program, built once per test binary for the harness.
var mcpServer struct {
	once sync.Once
	dir  string
	err  error
}

// MCPServerEnv returns env with the directory of a freshly built
// ask-confirm-mcp (and ask-confirm-phone beside it) first on PATH, so that ask-confirm mcp finds it. The build
// uses the race detector when this test binary does.
func MCPServerEnv(t *testing.T, env []string) []string {
	t.Helper()
	mcpServer.once.Do(func() {
		mcpServer.dir, mcpServer.err = os.MkdirTemp("", "ask-confirm-mcp-test")
		if mcpServer.err != nil {
			return
		}
		// With the phone's program beside it, where the server looks.
		args := []string{"build", "-o", mcpServer.dir + string(filepath.Separator)}
		if raceBuild {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, "github.com/ask-confirm/ask-confirm/mcpserver/"+mcpServerProgram,
			"github.com/ask-confirm/ask-confirm/remote/"+remote.Program)...)
		if out, err := build.CombinedOutput(); err != nil {
			mcpServer.err = fmt.Errorf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, out)
		}
	})
	if mcpServer.err != nil {
		t.Fatalf("building the MCP server: %v", mcpServer.err)
	}
	out := make([]string, 0, len(env)+1)
	path := mcpServer.dir
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path += string(filepath.ListSeparator) + p
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}

// MCPServerDir is the directory MCPServerEnv puts first on PATH, where
// the ask-confirm-mcp it built is.
func MCPServerDir() string { return mcpServer.dir }

// removeMCPServer removes what MCPServerEnv built.
func removeMCPServer() {
	if mcpServer.dir != "" {
		os.RemoveAll(mcpServer.dir)
	}
}

// MCPSession is one client connected to one ask-confirm mcp process.
type MCPSession struct {
	H      *Harness
	Cs     *mcp.ClientSession
	Cmd    *exec.Cmd // the server process: ask-confirm mcp, which execs ask-confirm-mcp
	Stderr *syncbuf.Buffer

	Mu       sync.Mutex
	Progress []*mcp.ProgressNotificationParams
}

// MCPConnect starts ask-confirm mcp with args and connects a client to it.
// The session is closed when the test ends.
func (h *Harness) MCPConnect(args ...string) *MCPSession {
	h.T.Helper()
	s := &MCPSession{H: h, Stderr: &syncbuf.Buffer{}}
	cmd := h.Command(append([]string{"mcp"}, args...))
	cmd.Stderr = s.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ask-confirm-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			s.Mu.Lock()
			s.Progress = append(s.Progress, r.Params)
			s.Mu.Unlock()
		},
	})
	return h.MCPDial(s, cmd, client, nil, args)
}

// MCPDial connects client to the server that cmd (ask-confirm mcp args)
// starts, into s; the session is closed when the test ends, and the
// server's stderr shown if it failed.
func (h *Harness) MCPDial(s *MCPSession, cmd *exec.Cmd, client *mcp.Client, opts *mcp.ClientSessionOptions, args []string) *MCPSession {
	h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		h.T.Fatalf("connecting to ask-confirm mcp: %v\nstderr: %s", err, s.Stderr)
	}
	s.Cs, s.Cmd = cs, cmd
	h.T.Cleanup(func() {
		cs.Close()
		if h.T.Failed() {
			h.T.Logf("ask-confirm mcp %s stderr:\n%s", strings.Join(args, " "), s.Stderr)
		}
	})
	return s
}

// ToolOutput is the structured content of a tool result, as the protocol
// carries it.
type ToolOutput struct {
	Status      string `json:"status"`
	ShouldRetry bool   `json:"should_retry"`
	Key         string `json:"key"`
	Remembered  bool   `json:"remembered"`
	AnsweredAt  string `json:"answered_at,omitempty"`
	Message     string `json:"message"`
}

// ToolCall is what one tool call returned.
type ToolCall struct {
	Res     *mcp.CallToolResult
	Err     error // a protocol error
	Out     ToolOutput
	Text    string
	Elapsed time.Duration
}

// Call calls a tool and waits for its result.
func (s *MCPSession) Call(tool string, args map[string]any) ToolCall {
	s.H.T.Helper()
	return s.CallWith(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
}

func (s *MCPSession) CallWith(ctx context.Context, p *mcp.CallToolParams) ToolCall {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	start := time.Now()
	res, err := s.Cs.CallTool(ctx, p)
	c := ToolCall{Res: res, Err: err, Elapsed: time.Since(start)}
	if err != nil {
		return c
	}
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			c.Text = t.Text
		}
	}
	if res.StructuredContent != nil {
		// An error, not a failed test: Start calls this beside the test.
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			err = json.Unmarshal(b, &c.Out)
		}
		if err != nil {
			c.Err = fmt.Errorf("reading the structured content: %w", err)
		}
	}
	return c
}

// Start calls a tool in the background.
func (s *MCPSession) Start(tool string, args map[string]any) <-chan ToolCall {
	done := make(chan ToolCall, 1)
	go func() {
		done <- s.CallWith(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	}()
	return done
}

// AwaitCall waits for a call started in the background.
func AwaitCall(t *testing.T, done <-chan ToolCall, limit time.Duration) ToolCall {
	t.Helper()
	select {
	case c := <-done:
		return c
	case <-time.After(limit):
		t.Fatalf("the tool call did not return within %s", limit)
		return ToolCall{}
	}
}

// ExpectResult checks that a call ended in a result (not an error) with
// status and, when text is not empty, a text containing it.
func ExpectResult(t *testing.T, c ToolCall, status, text string) {
	t.Helper()
	switch {
	case c.Err != nil:
		t.Fatalf("protocol error, want status %q: %v", status, c.Err)
	case c.Res.IsError:
		t.Fatalf("tool error, want status %q: %s", status, c.Text)
	case c.Out.Status != status:
		t.Fatalf("status %q, want %q: %+v", c.Out.Status, status, c.Out)
	case !strings.Contains(c.Text, text):
		t.Fatalf("text %q, want it to contain %q", c.Text, text)
	case c.Out.Message != c.Text:
		t.Fatalf("structured message %q differs from the text %q", c.Out.Message, c.Text)
	case c.Out.ShouldRetry != (status == lifecycle.StatusPending):
		t.Fatalf("should_retry %v with status %s", c.Out.ShouldRetry, status)
	case !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(c.Out.Key):
		t.Fatalf("key %q is not an identity", c.Out.Key)
	}
}

// ExpectToolError checks that a call ended in a tool error whose text
// contains want.
func ExpectToolError(t *testing.T, c ToolCall, want string) {
	t.Helper()
	switch {
	case c.Err != nil:
		t.Fatalf("protocol error, want a tool error containing %q: %v", want, c.Err)
	case !c.Res.IsError:
		t.Fatalf("no tool error, want one containing %q: %+v %s", want, c.Out, c.Text)
	case !strings.Contains(c.Text, want):
		t.Fatalf("tool error %q does not contain %q", c.Text, want)
	case c.Res.StructuredContent != nil:
		t.Fatalf("a tool error carries structured content: %v", c.Res.StructuredContent)
	}
}

// What the server's texts say, in part: what a model must act on.
const (
	TextPending    = "Call confirm again with the same arguments"
	TextSuperseded = "Do not proceed on this request"
	TextCancelDone = "request ended cancelled"
	TextCancelled  = "cancelled before the person answered"
)

func NewMCPHarness(t *testing.T) *Harness {
	h := NewHarness(t)
	h.Exe = LookPathOrFail(t, "ask-confirm")
	return h
}
