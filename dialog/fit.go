package dialog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// What the person sees of a request is decided here, once, for every
// place it is shown: a dialog window, a terminal, a phone, an MCP
// client's form. A text is fitted to the place, never the other way
// round. Three things could hide part of it, and Fit undoes each:
//
//   - padding and characters that show nothing, which push the rest out
//     of view or read as nothing (Compact, then Literal);
//   - an unbroken run of characters wider than the place: GNOME zenity
//     wraps only at spaces, so 3,000 letters made a window 9,000 pixels
//     wide with its buttons off the screen. Fit wraps every line itself,
//     at the columns the place has, and the dialog is shown unwrapped
//     (zenity --no-wrap), so rows are what Fit counts;
//   - length: a window grows with its text and never scrolls. Where a
//     text has more rows than the place, Fit keeps its head and its tail,
//     the end of a command being what an injected tail hides in, with one
//     line between them saying how much was left out, and a first line
//     saying that the text is not shown whole.

// A Surface is a place a request's text is shown, as far as fitting the
// text to it goes.
type Surface struct {
	// Columns is how many columns a row of the place holds; Fit breaks
	// every longer line into rows of it. 0 leaves wrapping to the place
	// (a phone reflows text to its own width), and a line is one row.
	Columns int
	// Rows is the most rows of text the place shows; 0: any number.
	Rows int
	// Bytes is the most bytes of text the place takes; 0: any number.
	Bytes int
}

// The places a request is shown, as Fit fits text to them; the dialog
// window, Screen, is each system's own (screen_windows.go,
// screen_other.go).
var (
	// Phone is an ntfy notification: ntfy keeps 4,095 bytes of a
	// message, and a phone's notification shows about forty lines before
	// the person must scroll; the phone wraps the lines itself.
	Phone = Surface{Rows: 40, Bytes: 4000}
	// Form is an MCP client's form, which shows the text as a phone does.
	Form = Surface{Rows: 40, Bytes: 8000}
)

// Terminal is a terminal of width columns and height rows as Fit fits
// text to it: a row a column narrower than the terminal, so that no row
// makes the terminal wrap, and all its rows but one, which the caller
// takes what else it shows from (Less): its title, its prompt.
func Terminal(width, height int) Surface {
	if width <= 0 {
		width = 80
	}
	if height <= 0 {
		height = 24
	}
	return Surface{Columns: max(8, width-1), Rows: max(minRows, height-1)}
}

// minRows is the fewest rows a surface gives a text, whatever else takes
// its room: the first line, a head, the line that says what was left out
// and a tail.
const minRows = 6

// tooLong is the first line of a text that Fit did not show whole: the
// person cannot approve what they were not shown, and is told so before
// they read any of it.
const tooLong = "Too long to show whole: deny unless you know all of it."

// omittedMark stands between the head and the tail of a text cut to fit:
// how many characters of it are not shown.
const omittedMark = "… %s characters not shown …"

// Fit returns text as surface s shows it, and whether it is shown whole:
// its padding written as markers (Compact), everything that would not
// show as itself written out (Literal), tabs expanded, each line broken
// into rows of s.Columns (between words where a word boundary lies in the
// last half of the row, else between characters), and, when the rows are
// more than s.Rows or the bytes more than s.Bytes, a first line saying it
// is too long to show whole, its first rows, a line saying how many
// characters are not shown, and its last rows, about two thirds of the
// room going to the head.
//
// A text that Fit cut before, and that holds its line of what was left
// out (see Cut), is counted with what that line says.
func Fit(text string, s Surface) (shown string, whole bool) {
	t := Literal(Compact(strings.TrimRight(text, "\n")), true)
	var rows []string
	var soft []int // the rows that go on in the next: a line Fit broke
	for _, line := range strings.Split(t, "\n") {
		if s.Columns > 0 {
			wrapped := wrapLine(expandTabs(line), s.Columns)
			for i := range len(wrapped) - 1 {
				soft = append(soft, len(rows)+i)
			}
			rows = append(rows, wrapped...)
		} else {
			rows = append(rows, line)
		}
	}
	if fits(rows, s.Rows, s.Bytes) {
		return strings.Join(rows, "\n"), true
	}
	return cutRows(rows, soft, s), false
}

// fits reports whether rows are within n rows (any number when n is 0)
// and limit bytes joined (any when 0).
func fits(rows []string, n, limit int) bool {
	if n > 0 && len(rows) > n {
		return false
	}
	if limit > 0 {
		size := len(rows) - 1
		for _, r := range rows {
			size += len(r)
		}
		return size <= limit
	}
	return true
}

// cutRows is rows cut to s: the first line, the head, the line of what
// was left out and the tail. soft are the rows that Fit broke off a
// longer line: the break after each is no character of the text, and
// is not counted as one left out.
func cutRows(rows []string, soft []int, s Surface) string {
	first := s.wrap(tooLong)
	mark := s.wrap(fmt.Sprintf(omittedMark, "1,000,000,000"))
	room := len(rows)
	if s.Rows > 0 {
		// The first line and the blank line under it, and the line of
		// what was left out.
		room = max(2, s.Rows-s.rowsOf(first)-1-s.rowsOf(mark))
	}
	headRows := max(1, room*2/3)
	tailRows := max(1, room-headRows)
	headBytes, tailBytes := len(rows)*2, len(rows)*2
	for _, r := range rows {
		headBytes += len(r)
		tailBytes += len(r)
	}
	if s.Bytes > 0 {
		left := max(64, s.Bytes-len(first)-2-len(mark)-2)
		headBytes = left * 2 / 3
		tailBytes = left - headBytes
	}
	all := strings.Join(rows, "\n")
	headEnd := headOf(all, headRows, headBytes)
	tailStart := tailOf(all, headEnd, tailRows, tailBytes)
	middle := all[headEnd:tailStart]
	// The characters left out: the middle's, but for the line breaks at
	// its ends, which the line of what was left out stands in for, and
	// for the breaks Fit made (soft), which are no characters of the text.
	breaks := map[int]bool{}
	at, next := 0, 0
	for i, r := range rows {
		at += len(r)
		if next < len(soft) && soft[next] == i {
			breaks[at] = true
			next++
		}
		at++
	}
	left := cutBefore(middle)
	for i, c := range middle {
		if c == '\n' && (breaks[headEnd+i] || i == 0 || i == len(middle)-1) {
			continue
		}
		left++
	}
	return first + "\n\n" + strings.TrimSuffix(all[:headEnd], "\n") + "\n" +
		s.wrap(fmt.Sprintf(omittedMark, thousands(left))) + "\n" + strings.TrimPrefix(all[tailStart:], "\n")
}

// headOf is where the head of text ends: after at most n rows (lines of
// text) and limit bytes, within a row at a character boundary where the
// limit falls in its first row, or in a row it would take more than
// half of.
func headOf(text string, n, limit int) int {
	end := 0
	for rows := 0; rows < n && end < len(text); rows++ {
		next := len(text)
		if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
			next = end + i
		}
		if next > limit {
			if rows == 0 || limit-end > (next-end)/2 {
				end = runeStartAtOrBefore(text, max(end+1, limit))
			}
			return end
		}
		end = next
		if end < len(text) {
			end++ // the line break
		}
	}
	return end
}

// tailOf is where the tail of text starts: before at most n rows and
// limit bytes, and never before from (the head's end), cut within a row
// as headOf cuts.
func tailOf(text string, from, n, limit int) int {
	start := len(text)
	for rows := 0; rows < n && start > from; rows++ {
		prev := from
		if i := strings.LastIndexByte(text[from:max(from, start-1)], '\n'); i >= 0 && start > 0 {
			prev = from + i + 1
		}
		if len(text)-prev > limit {
			if rows == 0 || (len(text)-start) < limit-(start-prev)/2 {
				cut := max(prev, len(text)-limit)
				for cut < len(text) && !utf8.RuneStart(text[cut]) {
					cut++
				}
				start = cut
			}
			return start
		}
		start = prev
	}
	return start
}

// Cut returns text cut, as Fit would cut it, to at most limit bytes
// (counting its escapes: Literal), for a front end that must keep a text
// it did not write within a request's limits before any surface fits it
// (a command of 100 KB). Its line of what was left out is counted by
// Fit, which cuts the text again, so that the count the person reads is
// what they were not shown.
func Cut(text string, limit int) string {
	t := Literal(Compact(text), true)
	if len(t) <= limit {
		return t
	}
	return strings.TrimPrefix(cutRows(strings.Split(t, "\n"), nil, Surface{Bytes: limit}), tooLong+"\n\n")
}

// cutBefore is how many characters earlier cuts left out of s: the sum of
// what the lines of s that say so (omittedMark) count, less the length of
// those lines, which Fit counted as characters.
func cutBefore(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(line, "… ")
		if !ok {
			continue
		}
		count, ok := strings.CutSuffix(rest, " characters not shown …")
		if !ok {
			continue
		}
		if c, err := strconv.Atoi(strings.ReplaceAll(count, ",", "")); err == nil && c > 0 {
			// The line and the line break Cut added for it are no
			// part of the text.
			n += c - utf8.RuneCountInString(line) - 1
		}
	}
	return n
}

// wrapLine breaks line into rows of at most cols columns, as a terminal
// counts them (a wide character takes two, a combining mark none): after
// the last space of a row, as text is wrapped between words; else before
// a marker (⟨…⟩, which Literal and Compact write) that would be broken;
// else between characters. It returns one row, maybe empty, for an empty
// line.
func wrapLine(line string, cols int) []string {
	var rows []string
	start, width := 0, 0
	space, spaceWidth := -1, 0 // just after the row's last space, and its width there
	mark, markWidth := -1, 0   // where the marker still open began, and the width before it
	state := -1
	for i := 0; i < len(line); {
		c, _, w, st := uniseg.FirstGraphemeClusterInString(line[i:], state)
		state = st
		for width+w > cols && i > start {
			switch {
			case space > start:
				rows = append(rows, line[start:space])
				start, width = space, width-spaceWidth
			case mark > start:
				rows = append(rows, line[start:mark])
				start, width = mark, width-markWidth
			default:
				rows = append(rows, line[start:i])
				start, width = i, 0
			}
			space = -1
		}
		if c == markOpen {
			mark, markWidth = i, width
		}
		width += w
		i += len(c)
		switch {
		case c == markClose:
			mark = -1
		case c == " " && mark < 0:
			space, spaceWidth = i, width
		}
	}
	return append(rows, line[start:])
}

// expandTabs replaces each tab in line with the spaces to the next stop
// of eight columns, so that Fit counts the columns a tab takes.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	state := -1
	for rest := line; rest != ""; {
		c, r, w, st := uniseg.FirstGraphemeClusterInString(rest, state)
		rest, state = r, st
		if c == "\t" {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteString(c)
		col += w
	}
	return b.String()
}

// rowsOf is how many rows text takes on s, wrapped as Fit wraps it.
func (s Surface) rowsOf(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if s.Columns > 0 {
			n += len(wrapLine(expandTabs(line), s.Columns))
		} else {
			n++
		}
	}
	return n
}

// Less is s with the room that text takes on it taken away, though never
// below a few rows or a few hundred bytes, so that a message fitted to
// what is left always keeps room for a head and a tail.
func (s Surface) Less(text string) Surface {
	if s.Rows > 0 {
		s.Rows = max(minRows, s.Rows-s.rowsOf(text))
	}
	if s.Bytes > 0 {
		s.Bytes = max(512, s.Bytes-len(text))
	}
	return s
}

// wrap is text broken into rows of s.Columns, as Fit breaks its lines,
// without cutting it: for the lines ask-confirm writes under a message.
func (s Surface) wrap(text string) string {
	if s.Columns <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = strings.Join(wrapLine(expandTabs(line), s.Columns), "\n")
	}
	return strings.Join(lines, "\n")
}

// thousands writes n with commas between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
