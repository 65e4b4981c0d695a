package terminal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rivo/uniseg"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// What the prompt writes to the terminal. All of it is pure, and all of it
// passes through inert: whatever the request holds, the terminal is sent
// no control character but CR and LF, and no escape sequence but the
// prompt's own, which move over and clear its rows (clearLine, cursorUp,
// clearToEnd).

// clearLine returns the cursor to the start of the line and clears it
// (freshLine).
const clearLine = "\r\x1b[K"

// newline ends a line whatever the terminal's output mode.
const newline = "\r\n"

// inert returns s as text that shows as itself: control characters,
// invisible format characters and invalid UTF-8 written out as visible
// escapes and markers (dialog.Literal), so no byte of it can move the
// cursor, set a title, reach the clipboard or ring the bell. With
// multiline, a newline starts a new line (tabs are the message's, which
// dialog.Fit has expanded to spaces); otherwise newlines and tabs show as
// \n and \t.
func inert(s string, multiline bool) string {
	s = dialog.Literal(s, multiline)
	if !multiline {
		return s
	}
	return strings.ReplaceAll(s, "\n", newline)
}

// header is what the prompt shows once, above its line, on a terminal
// that Fit sees as s: the title, the message fitted to s with the line
// that says who asks and when the prompt closes, and for a choice its
// numbered options; and whether the message is shown whole. now is when
// it is read, for the day of closes.
func header(r dialog.Request, closes, now time.Time, s dialog.Surface) (text string, whole bool) {
	title := r.Title
	if title == "" {
		title = dialog.DefaultTitle
	}
	var options string
	if r.Kind == dialog.Choose {
		options = optionList(r)
	}
	// The title and the options take rows of their own, which the
	// message's room leaves them.
	shown, whole := r.Shown(s.Less(inert(title, false)+"\n"+strings.ReplaceAll(options, newline, "\n")), closes, now)
	return inert(title, false) + newline + inert(shown, true) + newline + options, whole
}

// optionList numbers a choice's options, one a line, with the default
// ones marked, and Other… last where the request offers it.
func optionList(r dialog.Request) string {
	lines := make([]string, 0, len(r.Options)+1)
	for _, o := range r.Options {
		l := inert(o.Display(), false)
		for _, s := range r.Selected {
			if s == o.Label {
				l += defaultMark
			}
		}
		lines = append(lines, l)
	}
	if r.Other {
		lines = append(lines, dialog.OtherLabel)
	}
	width := len(strconv.Itoa(len(lines)))
	var b strings.Builder
	b.WriteString(newline)
	for i, l := range lines {
		fmt.Fprintf(&b, "  %*d) %s%s", width, i+1, l, newline)
	}
	b.WriteString(newline)
	return b.String()
}

// prompt is what the prompt line says before what is typed.
func (q *question) prompt() string {
	r := q.r
	ok, cancel := inert(r.OKLabel, false), inert(r.CancelLabel, false)
	switch q.stage {
	case stageChoose:
		n := len(r.Options)
		if r.Other {
			n++
		}
		var defaults []string
		for i, o := range r.Options {
			for _, s := range r.Selected {
				if s == o.Label {
					defaults = append(defaults, strconv.Itoa(i+1))
				}
			}
		}
		switch {
		case r.Multiple && len(defaults) > 0:
			return fmt.Sprintf(promptChooseManyDefault, n, strings.Join(defaults, " "))
		case r.Multiple:
			return fmt.Sprintf(promptChooseMany, n)
		case len(defaults) > 0:
			return fmt.Sprintf(promptChooseOneDefault, n, defaults[0])
		}
		return fmt.Sprintf(promptChooseOne, n)
	case stageInput:
		return fmt.Sprintf(promptInput, ok, cancel)
	case stageOther:
		return fmt.Sprintf(promptOther, ok, cancel)
	}
	switch {
	case r.ApproveFor > 0 && r.DefaultApprove:
		return fmt.Sprintf(promptConfirmForApprove, ok, inert(r.ApproveForLabel(), false), cancel)
	case r.ApproveFor > 0:
		return fmt.Sprintf(promptConfirmFor, ok, inert(r.ApproveForLabel(), false), cancel)
	case r.DefaultApprove:
		return fmt.Sprintf(promptConfirmApprove, ok, cancel)
	}
	return fmt.Sprintf(promptConfirm, ok, cancel)
}

// rows is the prompt line while it waits, as the rows it takes at width
// columns: how long it still waits (nothing when left is negative: no
// deadline), or the note about the last entry, then the prompt and what
// is typed (layout).
func (q *question) rows(left time.Duration, width int) []string {
	lead := q.note
	if lead == "" && left >= 0 {
		lead = fmt.Sprintf(promptCountdown, dialog.ShortDuration(left.Round(time.Second)))
	}
	return layout(lead+q.prompt(), inert(string(q.typed), false), width)
}

// finalRows is the prompt line as it stays once the prompt has closed:
// the prompt and what was typed, then end.
func (q *question) finalRows(end string, width int) []string {
	return layout(q.prompt(), inert(string(q.typed), false)+end, width)
}

// Moving over the rows drawn before: the cursor up one row, and clearing
// from the cursor to the end of the screen.
const (
	cursorUp   = "\x1b[A"
	clearToEnd = "\x1b[J"
)

// minTypedRoom is the fewest columns left on the prompt's last row that
// what is typed shares with it, cut; with fewer, it takes a row of its
// own.
const minTypedRoom = 12

// redraw returns what replaces drawn, the rows drawn last (none: the
// cursor is at the start of an empty line), with rows, leaving the cursor
// after the last of them. Each row is narrower than the terminal
// (layout), so none wrapped and the cursor is on the last of drawn.
func redraw(drawn int, rows []string) string {
	return "\r" + strings.Repeat(cursorUp, max(0, drawn-1)) + clearToEnd + strings.Join(rows, newline)
}

// freshLine starts the prompt on a line of its own, whatever was written
// before it without a line end ("progress: deploying..."): width spaces
// from the start of a line fill it without moving to the next, and from
// anywhere else wrap to the next line, where clearLine then leaves the
// cursor at its start. A width of 0 or less is unknown, and taken as 80.
func freshLine(width int) string {
	if width <= 0 {
		width = 80
	}
	return strings.Repeat(" ", width) + clearLine
}

// layout returns prompt and typed as the rows they take on a terminal of
// width columns, each narrower than width so that none wraps and the
// prompt can be redrawn in place: the prompt is wrapped between words,
// never cut, so every key and what it does stays in view (a word wider
// than a row is broken); what is typed follows on the last row, or on a
// row of its own when too little room is left, and when it is too long
// the end of it stays, where the cursor is, and "…" stands for what was
// cut. Columns are counted as the terminal shows them: a wide (CJK)
// character or an emoji takes two, a combining mark none. A width of 0
// or less is unknown, and taken as 80.
func layout(prompt, typed string, width int) []string {
	if width <= 0 {
		width = 80
	}
	room := max(1, width-1)
	rows := wrap(prompt, room)
	last := rows[len(rows)-1]
	free := room - uniseg.StringWidth(last)
	switch tw := uniseg.StringWidth(typed); {
	case tw <= free:
		rows[len(rows)-1] = last + typed
	case free >= minTypedRoom:
		rows[len(rows)-1] = last + "…" + lastColumns(typed, free-1)
	case tw <= room:
		rows = append(rows, typed)
	default:
		rows = append(rows, "…"+lastColumns(typed, room-1))
	}
	return rows
}

// wrap breaks s into rows of at most room columns, between words where
// it can; spaces at the end of a row that do not fit are dropped.
func wrap(s string, room int) []string {
	var rows []string
	row := ""
	for s != "" {
		word := s[:wordEnd(s)]
		s = s[len(word):]
		bare := strings.TrimRight(word, " ")
		if row != "" && uniseg.StringWidth(row+bare) > room {
			rows = append(rows, strings.TrimRight(row, " "))
			row = ""
		}
		// A word wider than a row is broken.
		for row == "" && uniseg.StringWidth(bare) > room {
			head := firstColumns(bare, room)
			rows = append(rows, head)
			bare = bare[len(head):]
		}
		row += bare + word[len(strings.TrimRight(word, " ")):]
		for uniseg.StringWidth(row) > room && strings.HasSuffix(row, " ") {
			row = row[:len(row)-1]
		}
	}
	return append(rows, row)
}

// wordEnd is where the first word of s ends, with the spaces after it.
func wordEnd(s string) int {
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return len(s)
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// firstColumns returns the longest start of s, in whole characters, that
// takes at most n columns, and at least one character.
func firstColumns(s string, n int) string {
	end, cols, state := 0, 0, -1
	for rest := s; rest != ""; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if cols+w > n && end > 0 {
			break
		}
		end, cols = end+len(c), cols+w
	}
	return s[:end]
}

// lastColumns returns the longest end of s, in whole characters, that
// takes at most n columns.
func lastColumns(s string, n int) string {
	var starts []int
	var widths []int
	state, at := -1, 0
	for rest := s; rest != ""; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		starts, widths = append(starts, at), append(widths, w)
		at += len(c)
	}
	start, cols := len(s), 0
	for i := len(starts) - 1; i >= 0 && cols+widths[i] <= n; i-- {
		start, cols = starts[i], cols+widths[i]
	}
	return s[start:]
}

// screen is the prompt line as it is on the terminal: the rows drawn last.
type screen struct {
	rows []string
}

// draw returns what replaces the rows drawn last with rows, on a terminal
// now width columns wide, and nothing when they are the same and the
// width has not changed. Rows drawn at another width may have been
// reflowed by the terminal (as tmux, VTE, iTerm2 and Windows Terminal
// do): each now takes as many rows of the new width as it needs.
func (s *screen) draw(rows []string, width int) string {
	if slices.Equal(rows, s.rows) {
		return ""
	}
	if width <= 0 {
		width = 80
	}
	on := 0
	for _, r := range s.rows {
		on += max(1, (uniseg.StringWidth(r)+width-1)/width)
	}
	s.rows = rows
	return redraw(on, rows)
}
