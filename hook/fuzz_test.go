package hook

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// FuzzHook feeds arbitrary bytes to every host as its hook input. Parse
// never panics; what it accepts always makes a call that validates (so
// the person is always asked, never refused for the agent's text); what it
// refuses is refused as malformed or as an unsupported event, in one line;
// and whatever the engine answers, the output has the documented shape and
// allows only a person's approval.
func FuzzHook(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no payloads in testdata: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for h := range len(Hosts()) {
			f.Add(b, uint8(h))
		}
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"hook_event_name":"PreToolUse"}`,
		`{"hook_event_name":"PermissionRequest","cwd":"/","tool_name":"Bash","tool_input":{"command":"\u001b[2J\u202e\u0000"}}`,
		`{"hook_event_name":"PermissionRequest","cwd":"\u2066","tool_name":"mcp____","tool_input":{"":1e999}}`,
		`{"hook_event_name":"PreToolUse","cwd":"~","tool_name":"apply_patch","tool_input":{"command":"*** Add File: \r\n*** Move to: \u0085"}}`,
		"{\"hook_event_name\":\"PermissionRequest\",\"cwd\":\"/\xff\",\"tool_name\":\"W\xc3rite\",\"tool_input\":{\"file_path\":\"\xed\xa0\x80\",\"content\":3}}",
		`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash","tool_input":{"command":"a"},"tool_input":{"command":"b"}}`,
		`{"HOOK_EVENT_NAME":"PermissionRequest","Cwd":"/w","tool_NAME":"Bash","tool_input":{"command":"ls"}} `,
		`{"hook_event_name":"beforeMCPExecution","workspace_roots":["/w"],"tool_name":"x","tool_input":"{\"a\":1e999}","command":"\u001b"}`,
		`{"hook_event_name":"beforeMCPExecution","workspace_roots":[],"tool_name":"x","tool_input":"null"}`,
		`{"hook_event_name":"beforeShellExecution","cwd":"","workspace_roots":["/w"],"command":"rm -rf /"}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	hosts := Hosts()
	f.Fuzz(func(t *testing.T, data []byte, host uint8) {
		h := hosts[int(host)%len(hosts)]
		p, err := Parse(h, data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupportedEvent) {
				t.Fatalf("Parse refused with %v, neither malformed nor an unsupported event", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r\x1b") {
				t.Fatalf("the refusal is not one plain line: %q", err)
			}
			return
		}
		c := p.Call(home, DefaultSettings())
		if err := c.Validate(); err != nil {
			t.Fatalf("the call for an accepted payload does not validate: %v\nmessage: %q", err, c.Request.Message)
		}
		if q, err := Parse(h, data); err != nil || !reflect.DeepEqual(q.Request(home), c.Request) {
			t.Fatalf("the same input parsed again makes another request")
		}
		for _, r := range fuzzResults(string(data)) {
			resp := p.Respond(r, DefaultSettings(), NotStopped, time.Unix(1, 0))
			verdict, _ := readResponse(t, p, resp.Stdout)
			if resp.Code != ExitAnswered {
				t.Fatalf("exit %d with a decision", resp.Code)
			}
			if verdict == "allow" && (r.Status != lifecycle.StatusApproved || r.ExitCode != lifecycle.ExitApproved || r.Headless) {
				t.Fatalf("%+v allowed", r)
			}
		}
	})
}

// fuzzResults are a result of every status, each with message as the
// engine's words, and a few inconsistent ones that must not allow.
func fuzzResults(message string) []lifecycle.Result {
	var rs []lifecycle.Result
	for _, s := range []string{
		lifecycle.StatusApproved, lifecycle.StatusDenied, lifecycle.StatusCancelled, lifecycle.StatusPending,
		lifecycle.StatusExpired, lifecycle.StatusHeadless, lifecycle.StatusFailed, lifecycle.StatusSuperseded,
		lifecycle.StatusError, lifecycle.StatusWithdrawn, "", message,
	} {
		for _, code := range []lifecycle.ExitCode{lifecycle.ExitApproved, lifecycle.ExitDenied, lifecycle.ExitInternal} {
			rs = append(rs, lifecycle.Result{Status: s, ExitCode: code, Message: message, Remembered: true, AnsweredAt: time.Unix(1, 0)})
		}
	}
	return append(rs, lifecycle.Result{Status: lifecycle.StatusApproved, Headless: true, Message: message})
}
