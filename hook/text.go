package hook

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// maxShownBytes caps each text the dialog shows from a payload (a
// command, a path, an input) once escaped, far below
// dialog.MaxMessageBytes: every place the request is shown fits it again
// (dialog.Fit), to its own rows and columns, keeping its head and its
// tail, and says how much of it was left out, this cut's part included.
const maxShownBytes = 16 << 10

// shorten returns s as the dialog shows it as a block: its padding
// written as markers, escaped, and, past maxShownBytes, cut to its head
// and its tail (dialog.Cut) around a line saying how much was left out.
func shorten(s string) string {
	return dialog.Cut(strings.TrimRight(s, "\n"), maxShownBytes)
}

// maxSaidBytes caps what an agent says about its call (a command's
// description) in the dialog: a line or two, so that its words can never
// take the room of the command itself.
const maxSaidBytes = 240

// capLine returns s escaped for one line (a title, a key, a name in a
// question) and cut to at most limit bytes, ending in "…" when cut.
func capLine(s string, limit int) string {
	e := dialog.Literal(s, false)
	if len(e) <= limit {
		return e
	}
	return cutAt(e, limit-len(cutMark)) + cutMark
}

// cutAt returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence. Invalid bytes are never held back for long:
// dialog.Literal shows them anyway.
func cutAt(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for back := 0; back < utf8.UTFMax && n-back > 0; back++ {
		if utf8.RuneStart(s[n-back]) {
			return s[:n-back]
		}
	}
	return s[:n]
}

// thousands writes n with commas between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
