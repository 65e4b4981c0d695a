package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxInputBytes bounds a hook's input. A tool call this large (a Write of
// many megabytes) is refused as malformed, and the host asks its own way.
const MaxInputBytes = 16 << 20

// ErrMalformed is returned (wrapped) when a hook's input is not a payload
// ask-confirm can read: not one JSON object, over MaxInputBytes, or
// without hook_event_name, cwd, tool_name or an object as tool_input.
var ErrMalformed = errors.New("malformed hook input")

// ErrUnsupportedEvent is returned (wrapped) when the payload's event is one
// the host takes no decision from (Host.Events).
var ErrUnsupportedEvent = errors.New("unsupported hook event")

// Payload is what ask-confirm reads of one hook call. Hosts send more
// (session and tool-use ids, the model); none of it changes what the
// person is asked, so none of it is read. The transcript's path is kept,
// to notice an answer the host took itself (TranscriptWatch).
type Payload struct {
	Host Host
	// Event is hook_event_name, one of Host.Events.
	Event string
	// Cwd is the agent's working directory: the request's scope.
	Cwd string
	// ToolName is the tool the agent wants to use: "Bash", "Write",
	// "apply_patch", "mcp__github__create_issue".
	ToolName string
	// input is tool_input, decoded with numbers kept as written.
	input map[string]any
	// canonical is tool_input encoded again: compact, keys sorted, no
	// HTML escaping. The same input in any key order encodes the same.
	canonical string
	// transcript is transcript_path, where a host sends one.
	transcript string
}

// wire is the part of a hook's input that Parse reads. Pointers tell a
// missing field from an empty one only to name it; both are refused.
type wire struct {
	HookEventName *string         `json:"hook_event_name"`
	Cwd           *string         `json:"cwd"`
	ToolName      *string         `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	// TranscriptPath is Claude Code's session transcript
	// (TranscriptWatch).
	TranscriptPath *string `json:"transcript_path"`

	// Cursor's, which names neither the shell's tool nor, for an MCP
	// call, the directory, and sends an MCP call's input as a string.
	Command        *string  `json:"command"`
	URL            *string  `json:"url"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

// cursorShell is the tool name a Cursor shell command is asked under, and
// cursorMCPPrefix starts that of a Cursor MCP tool.
const (
	cursorShell     = "Shell"
	cursorMCPPrefix = "mcp:"
)

// fromCursor fills in w, as Cursor sent it, the fields the other hosts
// send: the shell's command as the input of a tool named cursorShell; an
// MCP call's input decoded from its string, with the server's URL or
// command beside it; the first workspace root as the directory where none
// is given.
func (w *wire) fromCursor() error {
	if !present(w.Cwd) && len(w.WorkspaceRoots) > 0 {
		w.Cwd = &w.WorkspaceRoots[0]
	}
	if w.HookEventName == nil {
		return nil
	}
	switch *w.HookEventName {
	case EventBeforeShell:
		if !present(w.Command) {
			return malformed(errMissing, "command")
		}
		name := cursorShell
		w.ToolName = &name
		input, err := json.Marshal(map[string]string{"command": *w.Command})
		if err != nil {
			return malformed(errNotJSON, capLine(err.Error(), maxNameBytes))
		}
		w.ToolInput = input
	case EventBeforeMCP:
		var text string
		if len(w.ToolInput) == 0 || json.Unmarshal(w.ToolInput, &text) != nil {
			// Not the documented string: read as the other hosts' object.
			return nil
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		args := map[string]any{}
		if err := dec.Decode(&args); err != nil || args == nil || dec.More() {
			return malformed(errNotObject)
		}
		// The server beside the arguments, never among them, so that no
		// argument can pass for it; the tool's name marked as an MCP
		// tool's, so that none passes for the shell's or a file tool's.
		call := map[string]any{"arguments": args}
		for field, v := range map[string]*string{"server_url": w.URL, "server_command": w.Command} {
			if present(v) {
				call[field] = *v
			}
		}
		if present(w.ToolName) {
			name := cursorMCPPrefix + *w.ToolName
			w.ToolName = &name
		}
		input, err := json.Marshal(call)
		if err != nil {
			return malformed(errNotJSON, capLine(err.Error(), maxNameBytes))
		}
		w.ToolInput = input
	}
	return nil
}

// Parse reads the hook input data that host h sent. It returns an error
// wrapping ErrMalformed for input it cannot read, and one wrapping
// ErrUnsupportedEvent for an event h takes no decision from; the error's
// text is one line, with anything from the input escaped.
func Parse(h Host, data []byte) (Payload, error) {
	if len(data) > MaxInputBytes {
		return Payload{}, malformed(errTooLarge, MaxInputBytes>>20)
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Payload{}, malformed(errNotJSON, capLine(err.Error(), maxNameBytes))
	}
	if h.Name == "cursor" {
		if err := w.fromCursor(); err != nil {
			return Payload{}, err
		}
	}
	p := Payload{Host: h}
	if !present(w.HookEventName) {
		return Payload{}, malformed(errMissing, "hook_event_name")
	}
	p.Event = *w.HookEventName
	if !h.decides(p.Event) {
		return Payload{}, fmt.Errorf("%w: "+errNoDecision, ErrUnsupportedEvent, h.Agent, capLine(p.Event, maxNameBytes), h.Name, h.eventList())
	}
	for _, f := range []struct {
		name  string
		value *string
		to    *string
	}{{"cwd", w.Cwd, &p.Cwd}, {"tool_name", w.ToolName, &p.ToolName}} {
		if !present(f.value) {
			return Payload{}, malformed(errMissing, f.name)
		}
		*f.to = *f.value
	}
	var err error
	if p.input, p.canonical, err = canonicalObject(w.ToolInput); err != nil {
		return Payload{}, err
	}
	if w.TranscriptPath != nil {
		p.transcript = *w.TranscriptPath
	}
	return p, nil
}

func present(s *string) bool { return s != nil && *s != "" }

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// canonicalObject decodes raw, a JSON object, keeping numbers as written,
// and encodes it again canonically: encoding/json sorts map keys.
func canonicalObject(raw json.RawMessage) (map[string]any, string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, "", malformed(errMissing, "tool_input")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, "", malformed(errNotJSON, capLine(err.Error(), maxNameBytes))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, "", malformed(errNotObject)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, "", malformed(errNotJSON, capLine(err.Error(), maxNameBytes))
	}
	return obj, string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// identityFormat versions the fields hashed into a key. Changing them must
// change it, so an answer kept under the old fields never answers a call
// under the new ones.
const identityFormat = "ask-confirm hook identity v1"

// keyHashLen is how many hex digits of the call's hash a key carries: 128
// bits, far beyond any chance of two calls sharing a key.
const keyHashLen = 32

// callHash is the hex SHA-256 over the length-prefixed fields that make a
// tool call the same call: the host, the working directory, the tool and
// its input. The hook's event and the host's session and tool-use ids are
// left out, so a call proposed again, in another session or through the
// other event, is the same request.
func (p Payload) callHash() string {
	h := sha256.New()
	for _, f := range []string{identityFormat, p.Host.Name, p.Cwd, p.ToolName, p.canonical} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// str returns the input field name when it is a non-empty string.
func (p Payload) str(name string) (string, bool) {
	s, ok := p.input[name].(string)
	return s, ok && s != ""
}
