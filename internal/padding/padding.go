// Package padding holds, for tests, every way a text can push its tail
// out of view with blanks: line breaks of each kind, spaces, tabs,
// Unicode spaces and the blank fillers, alone and mixed. Each place that
// shows a command (the dialog's text, the terminal prompt, the phone's
// message, the MCP client's form) is tested with a command padded with
// each (dialog.Compact, dialog.Cut).
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

// Head and Tail are the command's parts on either side of the padding:
// a person approving it must see both.
const (
	Head = "ls"
	Tail = "rm -rf ~/important"
)
