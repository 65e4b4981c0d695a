package dialog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A dialog grows with its text and never scrolls it: GNOME zenity showed a
// 100-line message in a window 1,772 pixels tall (about 17 a line), with
// its buttons and the origin line below the bottom of the screen, out of
// reach. So the dialog shows at most MaxShownRows rows of the message,
// counting a line as one row per WrapColumns columns (zenity 3.44 wrapped
// 3,000 characters into 47 rows of about 64), and says what it left out.
// 30 rows are about 510 pixels: with the title, the origin line and the
// buttons, the window fits a screen 768 pixels tall.
const (
	MaxShownRows = 30
	WrapColumns  = 60
)

// FitScreen returns message as a dialog window shows it: whole where it
// fits in MaxShownRows rows, or else its first rows and a last line saying
// how many of its lines were not shown in full. The text it keeps is
// unchanged: the cut falls at the end of a line, or, in a line longer than
// the rows left, at a character boundary.
func FitScreen(message string) string {
	lines := strings.Split(message, "\n")
	rows := 0
	for i, line := range lines {
		need := rowsOf(line)
		if rows+need <= MaxShownRows {
			rows += need
			continue
		}
		kept := strings.Join(lines[:i], "\n")
		if left := MaxShownRows - rows; left > 0 {
			// Part of a long line, which is then not shown in full.
			if kept != "" {
				kept += "\n"
			}
			kept += prefixOfColumns(line, left*WrapColumns)
		}
		return kept + "\n" + fmt.Sprintf(msgLinesCut, thousands(len(lines)-i), thousands(len(lines)), plural(len(lines)))
	}
	return message
}

// msgLinesCut ends a message cut to fit the screen.
const msgLinesCut = "… (cut: %s of %s %s not shown in full)"

func plural(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

// rowsOf is how many rows line takes in the dialog: at least one, and one
// more for every WrapColumns columns.
func rowsOf(line string) int {
	return max(1, (columns(line)+WrapColumns-1)/WrapColumns)
}

// columns is how wide s is: one column a character, two for a wide one.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += width(r)
	}
	return n
}

// prefixOfColumns is the longest prefix of s at most n columns wide.
func prefixOfColumns(s string, n int) string {
	w := 0
	for i, r := range s {
		if w += width(r); w > n {
			return s[:i]
		}
	}
	return s
}

// width is a character's width in columns: 2 for the East Asian wide and
// full-width ranges and the pictographs, which take two in most fonts;
// 1 otherwise (an invalid byte too: it is shown as one character).
func width(r rune) int {
	switch {
	case r == utf8.RuneError:
		return 1
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x1F300 && r <= 0x1FAFF, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}

// thousands writes n with commas between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
