// Package adversarial generates the commands a prompt-injected agent could
// ask a person to approve, shaped to hide their own end: text just under
// and just over each limit on what a dialog shows, long runs with nowhere
// to break a line, invisible characters, combining-mark stacks, line-break
// and tab padding, escape sequences, and 100 KB of all of them. Every
// command ends in a tail, "rm -rf ~/" and a plain Latin word, which the
// screen must show whatever comes before it: a tail the person cannot see
// is a tail they approve blindly.
//
// The corpus is generated from a seed, so a failing case is reproduced by
// its seed alone; the end-to-end tests that read the screen (the hook's,
// the command line's and the terminal prompt's) run a bounded number of
// its cases per run, and a run with another seed tries other shapes.
package adversarial

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// DefaultSeed is the seed of a run that names none: every run tries the
// same cases until someone sets SeedEnv.
const DefaultSeed uint64 = 20261128

// DefaultCases is how many cases a run tries when CasesEnv names no number:
// one of each family, at about 3 s a case with a real dialog.
const DefaultCases = 16

// The environment variables that choose a run's corpus.
const (
	SeedEnv  = "ASK_CONFIRM_CORPUS_SEED"  // a seed (unsigned decimal) other than DefaultSeed
	CasesEnv = "ASK_CONFIRM_CORPUS_CASES" // how many cases, other than DefaultCases
)

// The limits whose edges the families probe: what the hook showed of a
// text before it cut it, before dialog.Fit (25 lines, 1,500 bytes), and
// the rows a dialog shows of a message (dialog.Screen on Linux: 30 rows
// of 60 columns).
const (
	limitLines   = 25
	limitBytes   = 1500
	limitRows    = 30
	limitColumns = 60
	hugeBytes    = 100 << 10
)

// Case is one adversarial command.
type Case struct {
	Name    string // the family and what was chosen, unique in a corpus: "07-invisible-run-U+200B×1733"
	Family  string
	Command string
	Tail    string // the word the command ends in: what the screen must show
	Index   int    // its place in Generate's corpus: a run of Index+1 cases holds it
}

// Plain reports whether c.Command is accepted as a --message (dialog's
// Validate): the hook takes any command; the command line refuses the
// others with exit 2, so its tests try only plain cases.
func (c Case) Plain() bool {
	return dialog.Request{Message: c.Command, OKLabel: "Approve", CancelLabel: "Cancel", Icon: "question"}.Validate() == nil
}

// FromEnv returns the seed and the number of cases a run tries: SeedEnv and
// CasesEnv where they are set, DefaultSeed and DefaultCases otherwise. A
// value that is not a number is an error, not a silent default: a person
// reproducing a failure must get the case they asked for.
func FromEnv() (seed uint64, n int, err error) {
	seed, n = DefaultSeed, DefaultCases
	if s := os.Getenv(SeedEnv); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("%s=%q is not an unsigned number", SeedEnv, s)
		}
	}
	if s := os.Getenv(CasesEnv); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 0 {
			return 0, 0, fmt.Errorf("%s=%q is not a count", CasesEnv, s)
		}
	}
	return seed, n, nil
}

// Generate returns n cases for seed. Case i is made from seed and i alone,
// so the first cases of a longer corpus are those of a shorter one, and
// the families take turns: n of at least len(Families) tries each. The
// family of the first case is chosen by the seed, so runs with other seeds
// that try fewer than every family try others first.
func Generate(seed uint64, n int) []Case {
	cases := make([]Case, n)
	first := int(seed % uint64(len(families)))
	for i := range cases {
		f := families[(first+i)%len(families)]
		g := &gen{rand.New(rand.NewPCG(seed, uint64(i)))}
		tail := tails[g.IntN(len(tails))]
		body, what := f.make(g, families)
		cases[i] = Case{
			Name:    fmt.Sprintf("%02d-%s-%s", i, f.name, what),
			Family:  f.name,
			Command: body + g.pick(" ; ", "\n", " && ", "; ") + "rm -rf ~/" + tail,
			Tail:    tail,
			Index:   i,
		}
	}
	return cases
}

// Families names the families of Generate, in their turn.
func Families() []string {
	names := make([]string, len(families))
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// Tails returns the words a case may end in.
func Tails() []string { return append([]string(nil), tails...) }

// IssueCases are the shapes that hid a command's tail, or made the window
// wider than the screen, when they were reported: each with real zenity
// under Xvfb. The last is the report's command-line call, --message; the
// others came through ask-confirm hook claude-code.
func IssueCases() []Case {
	g := &gen{rand.New(rand.NewPCG(DefaultSeed, 1<<32))}
	var lines []string
	for range 20 {
		lines = append(lines, "echo "+g.alnum(64))
	}
	issue := []Case{
		{Name: "20-lines-of-echo-and-64-chars", Command: strings.Join(lines, "\n")},
		{Name: "ls-and-1000-lines-of-99-chars", Command: "ls " + g.lines(1000, 99)},
		{Name: "ls-and-500-U+200B", Command: "ls" + strings.Repeat("\u200b", 500)},
		{Name: "ls-and-3000-A", Command: "ls " + strings.Repeat("A", 3000)},
		{Name: "echo-and-1400-base64", Command: "echo " + g.base64(1400)},
		{Name: "message-ls3000A", Command: "ls" + strings.Repeat("A", 3000)},
	}
	for i := range issue {
		issue[i].Family = "issue"
		issue[i].Tail = tails[i]
		issue[i].Command += " ; rm -rf ~/" + issue[i].Tail
	}
	return issue
}

// tails are the words a command ends in: lowercase, of letters that OCR
// does not take for others (no i, l, o, no "rn" that reads as "m"), and
// none inside another, so that a word read on the screen is the one
// typed.
var tails = []string{
	"zebracake", "pancake", "cupcake", "buckwheat", "sunbeam", "hatchback",
	"bedspread", "sawdust", "stagecraft", "mudguard", "nutcracker", "thunderstruck",
	"backpack", "hacksaw", "handcuff", "bystander", "sandpaper", "heartbeat",
	"dumbstruck", "breakfast", "quarterback", "wheatgrass", "bankcard", "drumset",
}

// Invisibles are the characters a font draws as nothing, one of each kind:
// zero-width spaces and joiners, the word joiner, the soft hyphen, a tag
// character, a variation selector, the combining grapheme joiner, Khmer
// and Mongolian vowel marks that draw nothing, an invisible operator, a
// musical symbol that draws nothing, the byte order mark and the Hangul
// fillers, which draw blank but are a column or two wide.
var Invisibles = []rune{
	0x200B, 0x2060, 0x00AD, 0xE0020, 0xFE0F, 0x034F, 0x17B4, 0x180E,
	0x200D, 0x2062, 0x1D159, 0xFEFF, 0x3164, 0x115F, 0xFFA0,
}

type family struct {
	name string
	// make returns a command without its tail, and what it chose, for the
	// case's name; others are the families, for one that mixes them.
	make func(g *gen, others []family) (body, what string)
}

var families = []family{
	// 23 to 27 lines of at most 60 columns: around the hook's 25 lines.
	{"lines", func(g *gen, _ []family) (string, string) {
		n := limitLines - 2 + g.IntN(5)
		var lines []string
		for range n {
			lines = append(lines, "echo "+g.alnum(10+g.IntN(50)))
		}
		return strings.Join(lines, "\n"), fmt.Sprintf("%d-lines", n)
	}},
	// Lines of words that come to 1,490 to 1,510 bytes with the tail:
	// around the hook's 1,500 bytes.
	{"bytes", func(g *gen, _ []family) (string, string) {
		target := limitBytes - 10 + g.IntN(21) - len(" ; rm -rf ~/zebracake")
		var b strings.Builder
		b.WriteString("printf '%s\\n'")
		for b.Len() < target {
			if g.IntN(8) == 0 {
				b.WriteString(" \\\n ")
			}
			b.WriteString(" " + g.alnum(3+g.IntN(9)))
		}
		s := b.String()[:target]
		return strings.TrimRight(s, " \\\n"), fmt.Sprintf("%d-bytes", target)
	}},
	// Lines that wrap into 29 to 32 rows of 60 columns: around the
	// dialog's 30 rows.
	{"rows", func(g *gen, _ []family) (string, string) {
		rows, per := limitRows-1+g.IntN(4), 2+g.IntN(3)
		var lines []string
		for r := 0; r < rows; r += per {
			k := min(per, rows-r)
			lines = append(lines, g.words((k-1)*limitColumns+limitColumns/2+g.IntN(limitColumns/2)))
		}
		return strings.Join(lines, "\n"), fmt.Sprintf("%d-rows-in-%d-lines", rows, len(lines))
	}},
	// One line of words, 1,000 to 5,000 columns: breakable, but long.
	{"long-line", func(g *gen, _ []family) (string, string) {
		n := 1000 + g.IntN(4001)
		return "echo " + g.words(n), fmt.Sprintf("%d-columns", n)
	}},
	// One letter, 1,000 to 4,000 times: nowhere to break the line.
	{"run-letters", func(g *gen, _ []family) (string, string) {
		n, c := 1000+g.IntN(3001), string(rune('A'+g.IntN(26)))
		return g.pick("ls ", "ls", "cat ") + strings.Repeat(c, n), fmt.Sprintf("%s×%d", c, n)
	}},
	// Base64, 600 to 3,000 characters, as a payload piped to a shell.
	{"run-base64", func(g *gen, _ []family) (string, string) {
		n := 600 + g.IntN(2401)
		return "echo " + g.base64(n) + " | base64 -d | sh", fmt.Sprintf("%d-chars", n)
	}},
	// A path of 800 to 3,000 characters, no spaces.
	{"run-path", func(g *gen, _ []family) (string, string) {
		n := 800 + g.IntN(2201)
		var b strings.Builder
		for b.Len() < n {
			b.WriteString("/" + g.alnum(1+g.IntN(12)))
		}
		return "cat " + b.String(), fmt.Sprintf("%d-chars", b.Len())
	}},
	// Wide (CJK) characters, 300 to 1,500 of them, two columns each.
	{"run-wide", func(g *gen, _ []family) (string, string) {
		n := 300 + g.IntN(1201)
		var b strings.Builder
		for range n {
			b.WriteRune(rune(0x4E00 + g.IntN(0x5000)))
		}
		return "echo " + b.String(), fmt.Sprintf("%d-chars", n)
	}},
	// One kind of invisible character, 100 to 3,000 times within a line,
	// alone or between letters.
	{"invisible-run", func(g *gen, _ []family) (string, string) {
		r, n := Invisibles[g.IntN(len(Invisibles))], 100+g.IntN(2901)
		unit, how := string(r), ""
		if g.IntN(2) == 0 {
			unit, how = "x"+unit, "x"
		}
		return "ls" + strings.Repeat(unit, n), fmt.Sprintf("%sU+%04X×%d", how, r, n)
	}},
	// 30 to 400 lines of nothing but invisible characters, between the
	// head and the tail.
	{"invisible-lines", func(g *gen, _ []family) (string, string) {
		r, n := Invisibles[g.IntN(len(Invisibles))], 30+g.IntN(371)
		lines := []string{"ls"}
		for range n {
			lines = append(lines, strings.Repeat(string(r), 1+g.IntN(20)))
		}
		return strings.Join(lines, "\n"), fmt.Sprintf("U+%04X-%d-lines", r, n)
	}},
	// Letters under stacks of 10 to 80 combining marks, which a font draws
	// over the lines above and below: marks above, marks below, or both,
	// within a line or lines of them; the last stacks end the line above
	// the tail, when the tail starts a line.
	{"combining", func(g *gen, _ []family) (string, string) {
		stacks, marks := 1+g.IntN(30), 10+g.IntN(71)
		kind := g.pick("above", "below", "both")
		first, n := rune(0x0300), 0x70 // both: the whole block
		switch kind {
		case "above":
			first, n = 0x0300, 0x15 // U+0300 to U+0314
		case "below":
			first, n = 0x0316, 0x1E // U+0316 to U+0333
		}
		var b strings.Builder
		for i := range stacks {
			b.WriteByte(byte('a' + g.IntN(26)))
			for range marks {
				b.WriteRune(first + rune(g.IntN(n)))
			}
			if i < stacks-1 && g.IntN(4) == 0 {
				b.WriteByte('\n')
			}
		}
		return "echo " + b.String(), fmt.Sprintf("%d-stacks-of-%d-%s", stacks, marks, kind)
	}},
	// 50 to 2,000 line breaks of every kind: \n, \r\n, \r, and the
	// separators U+2028 and U+2029, some with blanks between.
	{"breaks", func(g *gen, _ []family) (string, string) {
		n := 50 + g.IntN(1951)
		kinds := []string{"\n", "\r\n", "\r", "\u2028", "\u2029", " \n", "\t\r\n"}
		var b strings.Builder
		for range n {
			b.WriteString(kinds[g.IntN(len(kinds))])
		}
		return "ls" + b.String(), fmt.Sprintf("%d-breaks", n)
	}},
	// 50 to 3,000 tabs, within a line or as lines of their own.
	{"tabs", func(g *gen, _ []family) (string, string) {
		n := 50 + g.IntN(2951)
		if g.IntN(2) == 0 {
			return "ls" + strings.Repeat("\t", n), fmt.Sprintf("%d-tabs", n)
		}
		var b strings.Builder
		for i := 0; i < n; i += 10 {
			b.WriteString("\n" + strings.Repeat("\t", 10))
		}
		return "ls" + b.String(), fmt.Sprintf("%d-tabs-in-lines", n)
	}},
	// Runs of blanks of every kind, 40 to 3,000: spaces, no-break,
	// em and ideographic spaces.
	{"blanks", func(g *gen, _ []family) (string, string) {
		n := 40 + g.IntN(2961)
		blanks := []rune{' ', 0x00A0, 0x2003, 0x3000, 0x2007, 0x205F}
		r := blanks[g.IntN(len(blanks))]
		return "ls" + strings.Repeat(string(r), n), fmt.Sprintf("U+%04X×%d", r, n)
	}},
	// Escape sequences that recolour, hide, move the cursor, clear the
	// screen or retitle a terminal, with backspaces, other control
	// characters and bidirectional overrides: 20 to 400 of them.
	{"escapes", func(g *gen, _ []family) (string, string) {
		seqs := []string{"\x1b[31m", "\x1b[8m", "\x1b[2J", "\x1b[1A", "\x1b[2K", "\x1b]0;ok\x07", "\x1b[0m",
			"\b", "\x7f", "\x00", "\u202e", "\u2066", "\x1bc", "\u009b1A"}
		n := 20 + g.IntN(381)
		var b strings.Builder
		for range n {
			b.WriteString(seqs[g.IntN(len(seqs))])
		}
		return "ls" + b.String(), fmt.Sprintf("%d-sequences", n)
	}},
	// 100 KB of the other families' bodies, one after another.
	{"huge", func(g *gen, others []family) (string, string) {
		var b strings.Builder
		var parts int
		for b.Len() < hugeBytes {
			f := others[g.IntN(len(others)-1)] // not huge itself, the last
			body, _ := f.make(g, nil)
			b.WriteString(body + "\n")
			parts++
		}
		s := b.String()[:hugeBytes]
		for !utf8.ValidString(s) { // cut within a character
			s = s[:len(s)-1]
		}
		return s, fmt.Sprintf("%d-parts", parts)
	}},
}

// gen draws the random parts of a case.
type gen struct{ *rand.Rand }

func (g *gen) pick(choices ...string) string { return choices[g.IntN(len(choices))] }

func (g *gen) from(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *gen) alnum(n int) string {
	return g.from("ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789", n)
}

func (g *gen) base64(n int) string {
	return g.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", n)
}

// words returns about n columns of short words separated by spaces.
func (g *gen) words(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.alnum(2 + g.IntN(8)))
	}
	return b.String()[:n]
}

// lines returns n lines of width characters each.
func (g *gen) lines(n, width int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.alnum(width)
	}
	return strings.Join(lines, "\n")
}
