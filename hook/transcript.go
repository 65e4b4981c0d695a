package hook

import (
	"bytes"
	"encoding/json"
)

// Claude Code shows its own permission prompt beside a PermissionRequest
// hook and takes whichever answer comes first. When the person answers
// there, it sends the hook nothing: the hook learns it from the session's
// transcript (transcript_path), where the call's result, or its refusal,
// is written under the call's tool_use id.

// TranscriptWatch follows a Claude Code transcript, as it grows, for the
// end of one call: a tool_result for the latest tool_use with the call's
// tool and input that had none when the watch began.
type TranscriptWatch struct {
	p Payload
	// Path is the transcript's file.
	Path string
	// id is the call's tool_use id, once seen; ended the ids that had a
	// result when the watch began, or since.
	id      string
	ended   map[string]bool
	partial []byte
	started bool
}

// WatchTranscript returns a watch of p's transcript, for a Claude Code
// PermissionRequest whose payload names one; ok is false for any other.
func (p Payload) WatchTranscript() (w *TranscriptWatch, ok bool) {
	if p.Host.Name != "claude-code" || p.Event != EventPermissionRequest || p.transcript == "" {
		return nil, false
	}
	return &TranscriptWatch{p: p, Path: p.transcript, ended: map[string]bool{}}, true
}

// transcriptLine is the part of a transcript line Feed reads.
type transcriptLine struct {
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// Feed reads the bytes the transcript grew by since the last Feed (the
// whole file the first time) and reports whether the call has ended: the
// host ran it, or refused it, on its own prompt's answer. A line cut at
// the end is kept for the next Feed; a line that is not JSON is skipped.
func (w *TranscriptWatch) Feed(data []byte) bool {
	data = append(w.partial, data...)
	w.partial = nil
	first := !w.started
	w.started = true
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		if !found {
			w.partial = append([]byte(nil), line...)
			break
		}
		data = rest
		if w.read(line, first) {
			return true
		}
	}
	return false
}

// read reads one line; first says it was in the file when the watch
// began.
func (w *TranscriptWatch) read(line []byte, first bool) bool {
	var l transcriptLine
	if json.Unmarshal(line, &l) != nil {
		return false
	}
	var blocks []contentBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if b.Name == w.p.ToolName && !w.ended[b.ID] && sameInput(b.Input, w.p.canonical) {
				w.id = b.ID
			}
		case "tool_result":
			w.ended[b.ToolUseID] = true
			if b.ToolUseID == w.id && !first {
				return true
			}
			if b.ToolUseID == w.id {
				// Ended before this hook began: an earlier call.
				w.id = ""
			}
		}
	}
	return false
}

// sameInput reports whether raw is a tool input that encodes canonically
// as canonical.
func sameInput(raw json.RawMessage, canonical string) bool {
	_, c, err := canonicalObject(raw)
	return err == nil && c == canonical
}
