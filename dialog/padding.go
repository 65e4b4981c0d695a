package dialog

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Padding is the one way a text can hide part of itself in plain sight:
// a run of blank lines, or of blanks within a line, pushes what follows
// below the window's edge, past a phone's preview or past a cut, so that
// a person approves "ls" without seeing the rm -rf under it. Compact
// writes such a run as a visible marker, and Fit keeps a text's head and
// its tail when it must be shortened, so that every non-blank part of a
// text can be seen wherever it is shown.

// Markers that stand for padding. Each is printable text that passes
// Validate and Literal unchanged.
const (
	// breaksMark is a line that stands for a run of line breaks with
	// nothing but blanks between them: "⏎ ×30".
	breaksMark = "⏎ ×%d"
	// blanksMark stands for a run of blanks within a line: "⟨40 blanks⟩",
	// bracketed as Literal's markers are, so that no digit beside it
	// reads as part of its count (a "␠ ×40" before "0; kill" read as
	// ×400), and in words, as fonts without U+2420 drew ␠ as a box.
	blanksMark = markOpen + "%d blanks" + markClose
)

// Limits of what Compact leaves as it is.
const (
	// maxBreaks is the most line breaks in a row shown as they are: one
	// empty line between paragraphs, as people write.
	maxBreaks = 2
	// maxBlankColumns is the widest run of blanks within a line shown as
	// it is: room for indentation and columns aligned with spaces, and
	// too little to push a line's end out of view.
	maxBlankColumns = 32
)

// Compact returns s with each run of padding written as a marker: three
// or more line breaks (\n, \r\n, \r, \v, \f, U+0085, U+2028, U+2029)
// with only blanks or characters that show nothing (Hidden) between them
// become one line "⏎ ×N", N the number of breaks; a run of blanks within a
// line (spaces, tabs, Unicode spaces and the blank fillers, IsBlank, with
// hidden characters among them) wider than 32 columns, a tab counting as 8
// and a hidden character as none, becomes "⟨N blanks⟩", N the number of
// characters. Everything else, a run of hidden characters alone
// included, is left for Literal; Compact is idempotent.
func Compact(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if n := breakLen(s[i:]); n > 0 {
			breaks, end := breakRun(s[i:])
			if breaks > maxBreaks {
				fmt.Fprintf(&b, "\n"+breaksMark+"\n", breaks)
				i += end
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !pads(r) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		chars, cols, end := blankRun(s[i:])
		if cols > maxBlankColumns {
			fmt.Fprintf(&b, blanksMark, chars)
		} else {
			b.WriteString(s[i : i+end])
		}
		i += end
	}
	return b.String()
}

// breakLen returns the length of the line break that s starts with, or 0.
func breakLen(s string) int {
	if strings.HasPrefix(s, "\r\n") {
		return 2
	}
	r, size := utf8.DecodeRuneInString(s)
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return size
	}
	return 0
}

// breakRun counts the line breaks that s starts with, blanks between
// them allowed, and returns where the last of them ends: blanks after it
// belong to the next line.
func breakRun(s string) (breaks, end int) {
	for i := 0; i < len(s); {
		if n := breakLen(s[i:]); n > 0 {
			breaks++
			i += n
			end = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !pads(r) {
			break
		}
		i += size
	}
	return breaks, end
}

// blankRun measures the blanks that s starts with: how many characters,
// how many columns, and where they end.
func blankRun(s string) (chars, cols, end int) {
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !pads(r) {
			break
		}
		chars++
		switch {
		case r == '\t':
			cols += 8
		case IsBlank(r):
			cols++
		}
		end += size
	}
	return chars, cols, end
}

// pads reports whether r can be part of padding: a blank, or a
// character that shows nothing at all (Hidden), which takes no column but
// makes a line that holds nothing else look empty.
func pads(r rune) bool { return IsBlank(r) || Hidden(r) }

// IsBlank reports whether r shows as empty space within a line: a space
// or tab, any Unicode space separator (no-break, em, ideographic…), and
// the fillers that fonts draw as blank (Hangul fillers, the blank Braille
// pattern). Line breaks are not blanks.
func IsBlank(r rune) bool {
	switch r {
	case ' ', '\t', 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// runeStartAtOrBefore returns the largest index at most n at which s can
// be cut without splitting a UTF-8 sequence (n itself when n is len(s)).
func runeStartAtOrBefore(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for back := 0; back < utf8.UTFMax && n-back > 0; back++ {
		if utf8.RuneStart(s[n-back]) {
			return n - back
		}
	}
	return n
}
