package dialog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Literal returns s with everything that would not show as itself written
// out visibly, so that text a front end did not write itself (a shell
// command, an ssh prompt) is shown exactly as it is, cannot disguise
// itself, and passes Validate's character checks:
//
//   - invalid UTF-8 bytes and control characters as \xNN, C1 controls and
//     the line and paragraph separators as \uNNNN;
//   - each run of characters that show nothing (Hidden: zero-width
//     spaces and joiners, bidirectional controls, variation selectors,
//     tag characters, fillers) as one marker naming them and how many
//     there are, "⟨U+200B ×500⟩", rather than an escape apiece: five
//     hundred of them would be a line of 3,000 columns. A single joiner
//     between two emoji and a single variation selector after a visible
//     character are kept, as the emoji they make;
//   - combining marks past the fourth on one character as such a marker,
//     so that a stack of them cannot draw over the lines around it.
//
// With multiline, newlines and tabs stay as they are; otherwise they show
// as \n and \t. The length of the result is up to the caller. Literal is
// idempotent: what it returns shows as itself.
func Literal(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s))
	marks := 0 // combining marks on the character before
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i, prev, marks = i+1, -1, 0
			continue
		}
		if Hidden(r) || (unicode.In(r, unicode.Mn, unicode.Me) && marks >= maxMarks) {
			if n := keptJoiner(s, i, prev); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			end := hiddenRun(s, i, marks >= maxMarks && !Hidden(r))
			b.WriteString(runMarker(s[i:end]))
			i = end
			continue
		}
		switch {
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else {
				b.WriteString(strconv.QuoteRune(r)[1:3])
			}
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		if unicode.In(r, unicode.Mn, unicode.Me) {
			marks++
		} else {
			marks = 0
		}
		prev = r
		i += size
	}
	return b.String()
}

// maxMarks is the most combining marks Literal shows on one character:
// enough for any language's stacked accents, too few to reach the line
// above.
const maxMarks = 4

// Hidden reports whether r shows nothing where it stands: a format
// character (Unicode Cf: zero-width spaces and joiners, bidirectional
// controls, the soft hyphen, the tag characters U+E0001 and
// U+E0020..U+E007F), a default-ignorable code point (the combining
// grapheme joiner U+034F, the Khmer inherent vowels U+17B4 and U+17B5,
// the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the unassigned
// tags) or a variation selector, or a character that Unicode gives a
// glyph that is blank: the blank braille pattern, which fonts draw as a
// space that is none, the musical null notehead, and the Khitan filler,
// which is neither default-ignorable nor a format character.
func Hidden(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		r == brailleBlank || r == nullNotehead || r == khitanFiller
}

// The characters that show nothing though Unicode calls them neither
// format characters nor default-ignorable.
const (
	brailleBlank = '\u2800'     // BRAILLE PATTERN BLANK
	nullNotehead = '\U0001D159' // MUSICAL SYMBOL NULL NOTEHEAD
	khitanFiller = '\U00016FE4' // KHITAN SMALL SCRIPT FILLER
)

// keptJoiner is the length of the joiner or variation selector at s[i]
// that Literal keeps as it is, or 0: a single U+200D between two emoji
// (👩‍💻) or a single U+FE0E or U+FE0F after a character that shows (❤️),
// which draw one emoji and hide nothing.
func keptJoiner(s string, i int, prev rune) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	next, _ := utf8.DecodeRuneInString(s[i+size:])
	switch {
	case prev < 0 || Hidden(prev) || unicode.IsSpace(prev) || unicode.IsControl(prev):
		return 0
	case r == 0xfe0e || r == 0xfe0f:
		if !Hidden(next) || next == 0x200d {
			return size
		}
	case r == 0x200d:
		if emoji(prev) && emoji(next) {
			return size
		}
	}
	return 0
}

// emoji reports whether r is in the blocks of pictographs and symbols
// that emoji sequences join.
func emoji(r rune) bool {
	return (r >= 0x1f000 && r <= 0x1faff) || (r >= 0x2600 && r <= 0x27bf) || (r >= 0x2300 && r <= 0x23ff) || r == 0x2764
}

// hiddenRun is where the run of hidden characters (or, with marks, of
// combining marks past maxMarks) that starts at s[i] ends.
func hiddenRun(s string, i int, marks bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		if marks && !unicode.In(r, unicode.Mn, unicode.Me) || !marks && !Hidden(r) {
			break
		}
		i += size
	}
	return i
}

// runMarker is the marker that stands for a run of characters that do
// not show: the first three different ones by code point, "…" after them
// when there are more, and how many characters the run has when more
// than one: "⟨U+200B ×500⟩", "⟨U+200B U+2060 ×2⟩", "⟨U+202E⟩".
func runMarker(run string) string {
	var seen []rune
	n := 0
	for _, r := range run {
		n++
		if len(seen) <= 3 && !slices.Contains(seen, r) {
			seen = append(seen, r)
		}
	}
	var b strings.Builder
	b.WriteString(markOpen)
	for j, r := range seen {
		if j == 3 {
			b.WriteString(" …")
			break
		}
		if j > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "U+%04X", r)
	}
	if n > 1 {
		fmt.Fprintf(&b, " ×%d", n)
	}
	b.WriteString(markClose)
	return b.String()
}

// The brackets of a marker: mathematical angle brackets, which no shell
// command or prompt uses, so a marker cannot be mistaken for text.
const (
	markOpen  = "⟨"
	markClose = "⟩"
)

// isBidiOverride reports whether c is one of the bidirectional embedding,
// override and isolate characters that can make text read differently from
// what it is.
func isBidiOverride(c rune) bool {
	return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
}

// homeDir shows dir under home as ~/…, as a person would write it; home
// empty shows dir as it is.
func homeDir(dir, home string) string {
	home = strings.TrimSuffix(home, string(filepath.Separator))
	switch {
	case home == "":
		return dir
	case dir == home:
		return "~"
	case strings.HasPrefix(dir, home+string(filepath.Separator)):
		return "~" + dir[len(home):]
	}
	return dir
}

// Origin is the origin line's text for a request asked by who in dir:
// "deploy.sh in ~/src/app", shown literally (Literal) and cut, with "…",
// to MaxOriginBytes. home is shown as ~ (homeDir); an empty who reads "a
// process".
func Origin(who, dir, home string) string {
	if who == "" {
		who = unknownAsker
	}
	s := Literal(who+" in "+homeDir(dir, home), false)
	if len(s) <= MaxOriginBytes {
		return s
	}
	cut := MaxOriginBytes - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// DirScope is the scope of a request asked in dir, its working
// directory: dir shown literally (Literal), so that a directory whose
// name holds a control character still makes a valid scope, and one too
// long for MaxScopeBytes cut, with "…", and followed by its hash, so two
// long directories never share a scope.
func DirScope(dir string) string {
	s := Literal(dir, false)
	if len(s) <= MaxScopeBytes {
		return s
	}
	h := sha256.Sum256([]byte(dir))
	sum := hex.EncodeToString(h[:])
	cut := MaxScopeBytes - len(sum) - len("…") - 1
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… " + sum
}

// unknownAsker names a caller whose program cannot be told.
const unknownAsker = "a process"

// ShortDuration writes d as a person would: 5m rather than 5m0s, 1h30m
// rather than 1h30m0s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
