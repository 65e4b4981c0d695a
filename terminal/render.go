package terminal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// What the prompt writes to the terminal. All of it is pure, and all of it
// passes through inert: whatever the request holds, the terminal is sent
// no control character but CR and LF, and no escape sequence but the one
// the prompt itself uses to clear its line (clearLine).

// clearLine returns the cursor to the start of the line and clears it: the
// prompt line is redrawn in place, so the countdown stays on one line.
const clearLine = "\r\x1b[K"

// newline ends a line whatever the terminal's output mode.
const newline = "\r\n"

// tabStop is how far apart a message's tabs align its text.
const tabStop = 8

// inert returns s as text that shows as itself: control characters,
// invisible format characters and invalid UTF-8 written out as visible
// escapes (dialog.Literal), so no byte of it can move the cursor, set a
// title, reach the clipboard or ring the bell. With multiline, a newline
// starts a new line and a tab is expanded to spaces; otherwise both show as
// \n and \t.
func inert(s string, multiline bool) string {
	s = dialog.Literal(s, multiline)
	if !multiline {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = expandTabs(l)
	}
	return strings.Join(lines, newline)
}

// expandTabs replaces each tab in line with the spaces to the next tab stop.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	for _, r := range line {
		if r == '\t' {
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// header is what the prompt shows once, above its line: the title, the
// message with the line that says who asks and when the prompt closes, and
// for a choice its numbered options. now is when it is read, for the day
// of closes.
func header(r dialog.Request, closes, now time.Time) string {
	title := r.Title
	if title == "" {
		title = dialog.DefaultTitle
	}
	var b strings.Builder
	b.WriteString(inert(title, false) + newline)
	b.WriteString(inert(r.Shown(closes, now), true) + newline)
	if r.Kind == dialog.Choose {
		b.WriteString(optionList(r))
	}
	return b.String()
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

// line is the prompt line while it waits, drawn over the last one: how
// long it still waits (nothing when left is negative: no deadline), or
// the note about the last entry, then the prompt and what is typed, fitted
// to width columns.
func (q *question) line(left time.Duration, width int) string {
	lead := q.note
	if lead == "" && left >= 0 {
		lead = fmt.Sprintf(promptCountdown, dialog.ShortDuration(left.Round(time.Second)))
	}
	return clearLine + fit(lead+q.prompt(), inert(string(q.typed), false), width)
}

// final is the prompt line as it stays once the prompt has closed: the
// prompt and what was typed, then end.
func (q *question) final(end string, width int) string {
	return clearLine + fit(q.prompt(), inert(string(q.typed), false)+end, width) + newline
}

// fit returns prompt and typed as one line of fewer than width columns
// (counting a character as one column), so that redrawing it never wraps:
// when it is too long, the end of what is typed stays, where the cursor
// is, and "…" stands for what was cut. A width of 0 or less is unknown,
// and taken as 80.
func fit(prompt, typed string, width int) string {
	if width <= 0 {
		width = 80
	}
	room := width - 1
	s := []rune(prompt + typed)
	if len(s) <= room {
		return string(s)
	}
	if room < 2 {
		return "…"
	}
	p := []rune(prompt)
	if keep := room - len(p) - 1; keep >= 8 {
		t := []rune(typed)
		return prompt + "…" + string(t[len(t)-keep:])
	}
	return "…" + string(s[len(s)-(room-1):])
}
