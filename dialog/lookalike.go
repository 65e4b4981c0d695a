package dialog

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"sort"
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
//   - and look-alike characters are mapped to one (the Unicode TR39
//     skeleton: a Cyrillic "А" reads as a Latin "A").
//
// Case is kept: labels that differ only in case are told apart, as
// before. It is "" for text that looks blank. It is for comparing, never
// for showing.
func SeenAs(s string) string {
	var b strings.Builder
	space := false
	for _, c := range norm.NFKC.String(s) {
		switch {
		case invisible(c):
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
	return skeleton(b.String())
}

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

// invisible reports whether c shows nothing where it stands: a format
// character, a default-ignorable code point or a variation selector, or
// the blank braille pattern, which fonts draw as a space that is none.
func invisible(c rune) bool {
	return unicode.In(c, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) ||
		c == 0x2800
}

// looksBlank reports whether s shows nothing but spaces, or nothing at
// all: whether SeenAs(s) is "", found without normalizing a whole message.
func looksBlank(s string) bool {
	for _, c := range s {
		if !invisible(c) && !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}
