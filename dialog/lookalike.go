package dialog

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SeenAs returns s as a person reading it on screen tells it from other
// text, so that two labels that read the same have the same SeenAs:
//
//   - compatibility forms are folded (Unicode NFKC: a full-width "Ａ" is
//     "A", a ligature "ﬁ" is "fi");
//   - characters that show nothing are dropped (format characters such as
//     U+200B ZERO WIDTH SPACE, the other default-ignorable code points such
//     as the Hangul fillers and variation selectors, and the blank braille
//     pattern U+2800);
//   - every run of spaces of any kind is one space, and none is kept at
//     either end;
//   - look-alike characters are mapped to one (the Unicode TR39
//     skeleton: a Cyrillic "А" reads as a Latin "A");
//   - and a dot above on a letter that has a dot of its own is dropped
//     (softDots: "i\u0307" is drawn as "i").
//
// Case is kept: labels that differ only in case are told apart, as
// before. It is "" for text that looks blank. It is for comparing, never
// for showing.
func SeenAs(s string) string {
	var b strings.Builder
	space := false
	for _, c := range norm.NFKC.String(s) {
		switch {
		case Hidden(c):
		case unicode.IsSpace(c):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return softDots(skeleton(b.String()))
}

// combiningDotAbove is U+0307, the dot of "i\u0307" and of the NFD of "İ".
const combiningDotAbove = '\u0307'

// softDots drops, from s in NFD, each combining dot above that follows a
// soft-dotted letter ("i", "j", Cyrillic "і"), with no other mark above
// between them: fonts draw the letter's own dot in its place (Unicode's
// Soft_Dotted property), so "Confi\u0307rm" reads as "Confirm". skeleton
// misses it: NFKC has no precomposed small i with a dot above to fold it
// into, and the TR39 table maps one character at a time, "ı" to "i" but
// never a letter followed by a mark, so that "Conf\u0131\u0307rm" became
// "Confi\u0307rn", which no "Confirm" matched.
func softDots(s string) string {
	if !strings.ContainsRune(s, combiningDotAbove) {
		return s
	}
	var b strings.Builder
	dotted := false // the last letter is soft-dotted, with no mark above it yet
	for _, c := range s {
		ccc := norm.NFD.PropertiesString(string(c)).CCC()
		switch {
		case c == combiningDotAbove && dotted:
			dotted = false
			continue
		case ccc == 0:
			dotted = unicode.Is(unicode.Soft_Dotted, c)
		case ccc == cccAbove:
			dotted = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// cccAbove is the canonical combining class of the marks drawn above a
// letter, U+0307 among them: another such mark between a soft-dotted
// letter and a dot above removes the letter's dot ("i\u0301" is "í"),
// and the dot above is then a dot of its own.
const cccAbove = 230

// lookalike is one character of the TR39 table and what it reads as.
type lookalike struct {
	c rune
	s string
}

// skeleton is the Unicode TR39 skeleton of s: its NFD form with each
// character replaced by the one it is confusable with, in NFD again. The
// table is github.com/mtibben/confusables' (skeleton_table.go, generated
// and checked by its test), held as a sorted array rather than the
// package's map, which every run would spend 0.4 ms building at start.
func skeleton(s string) string {
	var b strings.Builder
	for _, c := range norm.NFD.String(s) {
		i := sort.Search(len(skeletonTable), func(i int) bool { return skeletonTable[i].c >= c })
		if i < len(skeletonTable) && skeletonTable[i].c == c {
			b.WriteString(skeletonTable[i].s)
		} else {
			b.WriteRune(c)
		}
	}
	return norm.NFD.String(b.String())
}

// looksBlank reports whether s shows nothing but spaces, or nothing at
// all: whether SeenAs(s) is "", found without normalizing a whole message.
func looksBlank(s string) bool {
	for _, c := range s {
		if !Hidden(c) && !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}
