package store

import (
	"strconv"
	"unicode/utf8"
)

// appendEventJSON appends e as json.Marshal(e) writes it, byte for byte, and
// fails where json.Marshal fails (a time RFC 3339 cannot hold). It is written
// out by hand because encoding/json builds its reflection caches on first
// use, which costs a one-shot process more than the rest of the line (with
// the record codec, 0.3 ms of a remembered answer: see record_encoding.go).
// Changing Event's fields or tags means changing this too; the tests compare
// the two.
func appendEventJSON(b []byte, e *Event) ([]byte, error) {
	b = append(b, `{"time":"`...)
	b, err := e.Time.AppendText(b)
	if err != nil {
		return nil, err
	}
	b = append(b, `","event":`...)
	b = appendJSONString(b, e.Event)
	b = append(b, `,"identity":`...)
	b = appendJSONString(b, e.Identity)
	b = appendJSONField(b, `,"title":`, e.Title)
	b = appendJSONField(b, `,"message_sha256":`, e.MessageHash)
	b = appendJSONField(b, `,"outcome":`, e.Outcome)
	b = appendJSONField(b, `,"reason":`, e.Reason)
	if e.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(e.Attempt), 10)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.PID), 10)
	b = appendJSONField(b, `,"cwd":`, e.Dir)
	b = appendJSONField(b, `,"channel":`, e.Channel)
	b = appendJSONField(b, `,"origin":`, e.Origin)
	b = appendJSONList(b, `,"answer":[`, e.Answer)
	b = appendJSONField(b, `,"answer_sha256":`, e.AnswerHash)
	b = appendJSONField(b, `,"approved_for":`, e.ApprovedFor)
	b = appendJSONField(b, `,"phone":`, e.Phone)
	b = appendJSONField(b, `,"answered_by":`, e.AnsweredBy)
	b = appendJSONList(b, `,"approvers":[`, e.Approvers)
	if e.Approvals != 0 {
		b = append(b, `,"approvals":`...)
		b = strconv.AppendInt(b, int64(e.Approvals), 10)
	}
	b = appendJSONField(b, `,"by":`, e.By)
	if !e.VotedAt.IsZero() {
		b = append(b, `,"voted_at":"`...)
		if b, err = e.VotedAt.AppendText(b); err != nil {
			return nil, err
		}
		b = append(b, '"')
	}
	b = appendJSONList(b, `,"approved_by":[`, e.ApprovedBy)
	b = appendJSONList(b, `,"denied_by":[`, e.DeniedBy)
	return append(b, '}'), nil
}

// appendJSONList appends key (which opens the list) and the strings of
// list, unless it is empty (omitempty).
func appendJSONList(b []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(b, key...)
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONField appends key and s, unless s is empty (omitempty).
func appendJSONField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendJSONString appends s as a JSON string the way encoding/json does by
// default: control characters, '"' and '\\' escaped, and also '<', '>' and
// '&' (HTML escaping) and U+2028 and U+2029; each byte of invalid UTF-8
// becomes \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			}
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
