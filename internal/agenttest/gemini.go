//go:build unix

package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Gemini returns the Gemini CLI program that scripts/test installed
// (ASK_CONFIRM_GEMINI).
func Gemini(t *testing.T) string { return program(t, "Gemini CLI", "ASK_CONFIRM_GEMINI") }

// NewGeminiModel starts a scripted Gemini API server on 127.0.0.1 that
// proposes command with run_shell_command, as Model does for Claude Code:
// streamGenerateContent answers a conversation whose last turn holds no
// function response with the call, and any other with FinalWord. Gemini
// CLI's other calls (its model router's generateContent) get an answer
// that routes to the default model.
func NewGeminiModel(t *testing.T, command string) *Model {
	return startModel(t, command, (*Model).serveGemini)
}

func (m *Model) serveGemini(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	usage := map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
	reply := func(part map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"usageMetadata": usage, "candidates": []any{map[string]any{
			"index": 0, "finishReason": "STOP", "content": map[string]any{"role": "model", "parts": []any{part}}}}})
		return b
	}
	switch {
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		fmt.Fprint(w, `{"totalTokens": 10}`)
		return
	case !strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply(map[string]any{"text": `{"reasoning": "a test", "model_choice": "pro"}`}))
		return
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(body, &req)
	answered := false
	if n := len(req.Contents); n > 0 {
		for _, p := range req.Contents[n-1].Parts {
			if p.FunctionResponse != nil {
				answered = true
				m.mu.Lock()
				m.results = append(m.results, string(p.FunctionResponse.Response))
				m.mu.Unlock()
			}
		}
	}
	part := map[string]any{"text": FinalWord}
	if !answered {
		part = map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": m.Command, "description": "Run the command the test proposes"}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", reply(part))
}

// GeminiSettings writes Gemini CLI's user settings into home: an API key
// as the way in (the model server does not check it), and hooks (the
// value of "hooks").
func GeminiSettings(t *testing.T, home string, hooks any) {
	writeSettings(t, filepath.Join(home, ".gemini"), map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false}, "hooks": hooks})
}

// StartGemini runs gemini -p PROMPT in dir, with home as its HOME, env
// added to its environment, and the model server m as its only reachable
// address. run_shell_command is allowed without Gemini CLI's own
// confirmation, which -p cannot show: the hook alone decides.
func StartGemini(t *testing.T, m *Model, home, dir string, env []string, prompt string) *Run {
	t.Helper()
	c := exec.Command(Gemini(t), "-p", prompt, "--output-format", "json", "--allowed-tools", "run_shell_command")
	c.Dir = dir
	c.Env = append(append(ownEnv(env), "HOME="+home, "GOOGLE_GEMINI_BASE_URL="+m.URL, "GEMINI_API_KEY=test-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_COLOR=1"), offline(t)...)
	return start(t, c)
}
