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
// end of one call: once every tool_use with the call's tool and input that
// had no result when the watch began has one, and at least one of them got
// it since (two identical calls in one message each end with their own).
type TranscriptWatch struct {
	p Payload
	// Path is the transcript's file.
	Path string
	// pending are the call's tool_use ids still without a result; ended
	// the ids that have one.
	pending map[string]bool
	ended   map[string]bool
	partial []byte
	// read counts the bytes fed; begun is where the file ended at the
	// first Feed: a line that starts before it was there when the watch
	// began.
	read, begun int64
	started     bool
	// skip drops the first line fed, cut by a read that did not start at
	// the file's beginning.
	skip bool
}

// maxTranscriptLine bounds the line kept waiting for its end.
const maxTranscriptLine = 16 << 20

// WatchTranscript returns a watch of p's transcript, for a Claude Code
// PermissionRequest whose payload names one; ok is false for any other.
func (p Payload) WatchTranscript() (w *TranscriptWatch, ok bool) {
	if p.Host.Name != "claude-code" || p.Event != EventPermissionRequest || p.transcript == "" {
		return nil, false
	}
	return &TranscriptWatch{p: p, Path: p.transcript, pending: map[string]bool{}, ended: map[string]bool{}}, true
}

// StartMidway says that the first Feed starts inside the file rather than
// at its beginning: its first line, cut, is dropped.
func (w *TranscriptWatch) StartMidway() { w.skip = true }

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

// Feed reads the bytes the transcript grew by since the last Feed (all
// there is the first time) and reports whether the call has ended: the
// host ran it, or refused it, on its own prompt's answer. A line cut at
// the end is kept for the next Feed (up to maxTranscriptLine); a line that
// is not JSON is skipped.
func (w *TranscriptWatch) Feed(data []byte) bool {
	if !w.started {
		w.started, w.begun = true, int64(len(data))
	}
	start := w.read - int64(len(w.partial))
	w.read += int64(len(data))
	buf := data
	if len(w.partial) > 0 {
		buf = append(w.partial, data...)
	}
	w.partial = nil
	for len(buf) > 0 {
		line, rest, found := bytes.Cut(buf, []byte("\n"))
		if !found {
			if len(line) <= maxTranscriptLine {
				w.partial = append([]byte(nil), line...)
			}
			break
		}
		before := start < w.begun
		start += int64(len(line)) + 1
		buf = rest
		if w.skip {
			w.skip = false
			continue
		}
		if w.readLine(line, before) {
			return true
		}
	}
	return false
}

// readLine reads one line; before says it was in the file when the watch
// began.
func (w *TranscriptWatch) readLine(line []byte, before bool) bool {
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
				w.pending[b.ID] = true
			}
		case "tool_result":
			w.ended[b.ToolUseID] = true
			if !w.pending[b.ToolUseID] {
				continue
			}
			delete(w.pending, b.ToolUseID)
			if !before && len(w.pending) == 0 {
				return true
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
