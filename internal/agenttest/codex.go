//go:build unix

package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Codex returns the Codex program that scripts/test installed
// (ASK_CONFIRM_CODEX).
func Codex(t *testing.T) string { return program(t, "Codex", "ASK_CONFIRM_CODEX") }

// NewCodexModel starts a scripted OpenAI Responses API server on
// 127.0.0.1 that proposes command, as Model does for Claude Code: to a
// turn with no function output yet it answers with one exec_command call
// that asks to run outside Codex's sandbox (so that Codex asks the person,
// and runs its PermissionRequest hook); to one that has, and to Codex's
// other requests (a title for the session, offered no shell tool), with
// FinalWord.
func NewCodexModel(t *testing.T, command string) *Model {
	return startModel(t, command, (*Model).serveCodex)
}

// codexJustification is the reason the scripted model gives for running
// its command outside the sandbox; Codex passes it to the hook.
const codexJustification = "The test asks to create its marker file."

func (m *Model) serveCodex(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Input []struct {
			Type   string `json:"type"`
			Role   string `json:"role"`
			Output any    `json:"output"`
		} `json:"input"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	offered := false
	for _, tool := range req.Tools {
		offered = offered || tool.Name == "exec_command"
	}
	// The function output of this turn: after the person's last message.
	answered := false
	for _, item := range req.Input {
		switch {
		case item.Type == "message" && item.Role == "user":
			answered = false
		case item.Type == "function_call_output":
			answered = true
			out, ok := item.Output.(string)
			if !ok {
				b, _ := json.Marshal(item.Output)
				out = string(b)
			}
			if offered {
				m.mu.Lock()
				m.results = append(m.results, out)
				m.mu.Unlock()
			}
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	m.codexEvent(w, "response.created", map[string]any{"response": map[string]any{"id": "resp_test", "status": "in_progress"}})
	var item map[string]any
	if answered || !offered {
		item = map[string]any{"type": "message", "id": "msg_test", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": FinalWord, "annotations": []any{}}}}
	} else {
		args, _ := json.Marshal(map[string]string{"cmd": m.Command,
			"sandbox_permissions": "require_escalated", "justification": codexJustification})
		item = map[string]any{"type": "function_call", "id": "fc_test", "call_id": "call_test",
			"name": "exec_command", "arguments": string(args), "status": "completed"}
	}
	m.codexEvent(w, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	m.codexEvent(w, "response.completed", map[string]any{"response": map[string]any{"id": "resp_test", "status": "completed",
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 1, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 11}}})
}

// codexEvent writes one server-sent event of the Responses API, whose
// data carries its own type.
func (m *Model) codexEvent(w http.ResponseWriter, name string, data map[string]any) {
	data["type"] = name
	m.event(w, name, data)
}

// CodexConfig writes Codex's config.toml in home's ~/.codex: the scripted
// model m as its only provider; the permission settings under which Codex
// asks before it runs a command outside its sandbox; the first-run notices
// and the folder's trust answered as a person who went through them once
// would have; none of the features that reach beyond 127.0.0.1 (plugins,
// apps, the background server); and hooks, TOML as docs/agent-hooks.md
// gives it.
func CodexConfig(t *testing.T, m *Model, home, dir, hooks string) string {
	t.Helper()
	codexHome := filepath.Join(home, ".codex")
	config := fmt.Sprintf(`model_provider = "local"
model = "gpt-5.5"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.local]
name = "local"
base_url = %q
wire_api = "responses"

[features]
plugins = false
remote_plugin = false
apps = false
daemon_auto_start = false

[analytics]
enabled = false

[feedback]
enabled = false

[tui]
screen_reader_detection_done = true

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

[projects.%q]
trust_level = "trusted"

%s`, m.URL+"/v1", dir, hooks)
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// codexKnownTries are the addresses beyond 127.0.0.1 that Codex 0.169.0
// tries whatever its configuration says: the tip it shows at start
// (raw.githubusercontent.com). The proxy refuses them as it refuses all;
// a test only logs them.
var codexKnownTries = []string{"CONNECT raw.githubusercontent.com:443 "}

// StartCodexScreen runs Codex's interactive screen with args in dir, with
// home as its HOME (configured by CodexConfig), env added to its
// environment, and the model server as its only reachable address.
func StartCodexScreen(t *testing.T, home, dir string, env []string, args ...string) *Screen {
	t.Helper()
	env = append(append(ownEnv(env), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "TERM=xterm-256color"),
		offlineBut(t, codexKnownTries)...)
	return StartScreen(t, dir, env, append([]string{Codex(t), "--no-daemon"}, args...)...)
}

// CodexTrustHooks answers Codex's "Hooks need review" screen with "Trust
// all and continue", as docs/agent-hooks.md tells the person to.
// The screen draws before it reads keys, so a key sent at once may be
// lost: the selection is moved until it is on the second choice, as seen.
func (s *Screen) CodexTrustHooks() {
	s.t.Helper()
	s.WaitFor("Hooks need review", 60*time.Second)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		switch screen := s.Text(); {
		case strings.Contains(screen, "› 2. Trust all and continue"):
			s.Keys("Enter")
			return
		case strings.Contains(screen, "› 1. Review hooks"):
			s.Keys("Down")
		case strings.Contains(screen, "› 3. Continue without trusting"):
			s.Keys("Up")
		}
	}
	s.t.Fatalf("the hooks' review did not come to \"Trust all and continue\":\n%s", s.Text())
}

// CodexOwnPrompt is the first line of Codex's own approval prompt.
const CodexOwnPrompt = "Would you like to run the following command?"
