package dialog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Literal returns s with everything that would not show as itself written
// out as a visible escape, so that text a front end did not write itself
// (a shell command, an ssh prompt) is shown exactly as it is, cannot
// disguise itself, and passes Validate's character checks: invalid UTF-8
// bytes and control characters as \xNN; C1 controls, bidirectional
// controls and other invisible format characters (Unicode Cf) and the line
// and paragraph separators as \uNNNN. With multiline, newlines and tabs
// stay as they are; otherwise they show as \n and \t. The length of the
// result is up to the caller.
func Literal(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else {
				b.WriteString(strconv.QuoteRune(r)[1:3])
			}
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

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
