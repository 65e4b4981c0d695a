package hook

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Caps on each text the dialog shows from a payload: a command, a path, an
// input. A person judges its first and last lines; what is between them
// is announced, never dropped silently. They keep a whole message far below
// dialog.MaxMessageBytes, however much each escape lengthens the text.
const (
	maxShownBytes = 1500
	maxShownLines = 25
)

// shorten returns s as the dialog shows it as a block: its padding
// written as markers (dialog.Compact), escaped (dialog.Literal), without
// trailing newlines, and, past maxShownLines lines or maxShownBytes bytes,
// cut to its head and its tail (dialog.Cut) around a line saying how many
// bytes were left out. cut reports whether any were: whatever is left
// out, the end of a command stays in view.
func shorten(s string) (shown string, cut bool) {
	s = dialog.Compact(strings.TrimRight(s, "\n"))
	head, tail, omitted := dialog.Cut(s, maxShownBytes, maxShownLines)
	if omitted == 0 {
		return dialog.Literal(head, true), false
	}
	return strings.TrimRight(dialog.Literal(head, true), "\n") + "\n" + notShown(omitted) + "\n" +
		strings.TrimLeft(dialog.Literal(tail, true), "\n"), true
}

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

// notShown is the line that announces n bytes left out.
func notShown(n int) string {
	if n == 1 {
		return msgNotShownOne
	}
	return fmt.Sprintf(msgNotShown, thousands(n))
}

// thousands writes n with commas between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
