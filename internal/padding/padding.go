// Package padding holds, for tests, every way a text can push its tail
// out of view with blanks: line breaks of each kind, spaces, tabs,
// Unicode spaces and the blank fillers, and characters that show nothing
// (zero-width, joiners, variation selectors, tags…) between line breaks
// or spaces, alone and mixed. Each place that shows a command (the
// dialog's text, the terminal prompt, the phone's message, the MCP
// client's form) is tested with a command padded with each (dialog.Fit).
package padding

import "strings"

// Cases are the paddings, by name.
var Cases = []struct{ Name, Pad string }{
	{"30 newlines", strings.Repeat("\n", 30)},
	{"5000 newlines", strings.Repeat("\n", 5000)},
	{"CR LF", strings.Repeat("\r\n", 40)},
	{"carriage returns", strings.Repeat("\r", 40)},
	{"vertical tabs and form feeds", strings.Repeat("\v\f", 20)},
	{"next line U+0085", strings.Repeat("\u0085", 40)},
	{"line separators", strings.Repeat("\u2028", 40)},
	{"paragraph separators", strings.Repeat("\u2029", 40)},
	{"blank lines of spaces", strings.Repeat("   \n", 40)},
	{"3000 spaces", strings.Repeat(" ", 3000)},
	{"500 tabs", strings.Repeat("\t", 500)},
	{"no-break spaces", strings.Repeat("\u00a0", 800)},
	{"em spaces", strings.Repeat("\u2003", 800)},
	{"ideographic spaces", strings.Repeat("\u3000", 800)},
	{"Hangul fillers", strings.Repeat("\u3164", 800)},
	{"blank Braille", strings.Repeat("\u2800", 800)},
	{"mixed", strings.Repeat("\n \t\u00a0\u2028\u3000\r\n", 60)},
}

// Invisible are the characters that show nothing that a padding is made
// of, one a line or one beside each space: a line that holds only one of
// them looks empty, and "ls" and its tail would sit 300 blank-looking
// lines apart.
var Invisible = []rune{0x200b, 0x2060, 0x00ad, 0xe0020, 0xfe0f, 0x034f, 0x17b4, 0x180e, 0x200d, 0x2062, 0x1d159, 0x16fe4, 0xfeff, 0x202e}

func init() {
	for _, r := range Invisible {
		c := string(r)
		Cases = append(Cases,
			struct{ Name, Pad string }{"lines of U+" + hex(r), strings.Repeat("\n"+c, 300) + "\n"},
			struct{ Name, Pad string }{"spaces and U+" + hex(r), strings.Repeat(" "+c, 200)})
	}
}

func hex(r rune) string {
	const digits = "0123456789ABCDEF"
	s := ""
	for ; r > 0 || len(s) < 4; r >>= 4 {
		s = string(digits[r&15]) + s
	}
	return s
}

// Head and Tail are the command's parts on either side of the padding:
// a person approving it must see both.
const (
	Head = "ls"
	Tail = "rm -rf ~/important"
)
