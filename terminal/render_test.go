package terminal

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/padding"
)

// checkInert fails the test unless out, everything the prompt wrote, is
// safe for a terminal: valid UTF-8 without C1 controls, no control byte
// but CR and LF, and ESC only in the prompt's own clearLine, cursorUp and
// clearToEnd.
func checkInert(t *testing.T, out string) {
	t.Helper()
	rest := strings.NewReplacer(clearLine, "\r", cursorUp, "", clearToEnd, "").Replace(out)
	if !utf8.ValidString(rest) {
		t.Errorf("output is not valid UTF-8: %q", out)
	}
	for i, r := range rest {
		switch {
		case r == '\r' || r == '\n':
		case r < 0x20 || r == 0x7f:
			t.Errorf("output holds control character U+%04X at %d: %q", r, i, out)
			return
		case r >= 0x80 && r < 0xa0:
			t.Errorf("output holds C1 control U+%04X at %d: %q", r, i, out)
			return
		case r == 0x202e || r == 0x2066:
			t.Errorf("output holds bidirectional control U+%04X at %d: %q", r, i, out)
			return
		}
	}
}

// hostileSequences are terminal escape sequences and controls that would
// be interpreted if they reached the terminal as they are.
var hostileSequences = []struct{ name, s string }{
	{"clear screen", "\x1b[2J\x1b[H"},
	{"OSC 52 clipboard write", "\x1b]52;c;cm0gLXJmIH4K\x07"},
	{"OSC 0 title", "\x1b]0;pwned\x07"},
	{"OSC 8 hyperlink", "\x1b]8;;https://example.com\x1b\\click\x1b]8;;\x1b\\"},
	{"C1 CSI", "\u009b2J"},
	{"C1 OSC", "\u009d0;pwned\u009c"},
	{"hidden text", "\x1b[8mhidden\x1b[0m"},
	{"cursor up and erase", "\x1b[1A\x1b[2K"},
	{"BEL", "ding\a"},
	{"backspaces over text", "yes\b\b\bno"},
	{"carriage return over text", "safe\roverwritten"},
	{"DEL", "a\x7fb"},
	{"DCS", "\x1bPq#0\x1b\\"},
	{"lone ESC", "a\x1bb"},
	{"NUL", "a\x00b"},
	{"right-to-left override", "invoice\u202efdp.exe"},
	{"invalid UTF-8", "caf\xe9 \xff"},
}

// hostileFields are the places a request's text is shown on the terminal.
var hostileFields = []struct {
	name string
	base func() dialog.Request
	set  func(r *dialog.Request, s string)
}{
	{"--title", confirmRequest, func(r *dialog.Request, s string) { r.Title = s }},
	{"--message", confirmRequest, func(r *dialog.Request, s string) { r.Message = "Ship " + s }},
	{"--ok-label", confirmRequest, func(r *dialog.Request, s string) { r.OKLabel = "Go" + s }},
	{"--cancel-label", confirmRequest, func(r *dialog.Request, s string) { r.CancelLabel = "Stop" + s }},
	{"origin", confirmRequest, func(r *dialog.Request, s string) { r.Origin = "deploy.sh" + s }},
	{"--option label", chooseRequest, func(r *dialog.Request, s string) { r.Options[1].Label = "prod" + s }},
	{"--option description", chooseRequest, func(r *dialog.Request, s string) { r.Options[0].Description = s }},
	{"--default of a choice", chooseRequest, func(r *dialog.Request, s string) {
		r.Options[2].Label = "c" + s
		r.Selected = []string{r.Options[2].Label}
	}},
	{"--default of an input", inputRequest, func(r *dialog.Request, s string) { r.Text = s }},
}

// Every terminal escape in every text field is refused by validation, and
// were it not, the prompt would still show it as inert text: the header,
// the prompt line and its last form hold nothing a terminal interprets.
func TestHostileTextIsRefusedOrInert(t *testing.T) {
	for _, f := range hostileFields {
		for _, h := range hostileSequences {
			t.Run(f.name+"/"+h.name, func(t *testing.T) {
				r := f.base()
				f.set(&r, h.s)
				err := r.Validate()
				if !errors.Is(err, dialog.ErrInvalid) {
					t.Errorf("Validate() = %v, want it refused", err)
				}
				q := newQuestion(r)
				checkInert(t, headerText(r, fakeEpoch.Add(time.Minute), fakeEpoch))
				checkInert(t, line(q, time.Minute, 0))
				checkInert(t, final(q, endCancelled, 0))
			})
		}
	}
}

// What is typed is echoed inert too: the decoder drops controls, and the
// line shows invisible characters as escapes.
func TestTypedTextIsEchoedInert(t *testing.T) {
	for _, h := range hostileSequences {
		q := newQuestion(inputRequest())
		drive(q, h.s)
		// Straight into the line, past the decoder, as a stand-in for
		// a decoder bug.
		q.typed = append(q.typed, []rune(h.s)...)
		checkInert(t, line(q, time.Minute, 40))
		checkInert(t, final(q, "", 40))
	}
}

// line is the prompt line while it waits, its rows joined.
func line(q *question, left time.Duration, width int) string {
	return strings.Join(q.rows(left, width), newline)
}

// final is the prompt line once the prompt has closed, its rows joined.
func final(q *question, end string, width int) string {
	return strings.Join(q.finalRows(end, width), newline)
}

func TestHeader(t *testing.T) {
	closes := time.Date(2026, 11, 22, 14, 5, 0, 0, time.Local)
	now := closes.Add(-time.Hour)
	r := confirmRequest()
	r.Message = "Ship v2?\n\tnow"
	r.Origin = "deploy.sh in ~/src/app"
	want := "Deploy\r\nShip v2?\r\n        now\r\n\r\nAsked by deploy.sh in ~/src/app · closes at 14:05\r\n"
	if got := headerText(r, closes, now); got != want {
		t.Errorf("header\n%q, want\n%q", got, want)
	}
	// Read the evening before, the line names the day.
	if got, want := headerText(r, closes, time.Date(2026, 11, 21, 18, 5, 0, 0, time.Local)), "closes at 14:05 on Sun 22 Nov\r\n"; !strings.HasSuffix(got, want) {
		t.Errorf("header the day before\n%q, want it to end %q", got, want)
	}
	r.Title = ""
	if got := headerText(r, closes, now); !strings.HasPrefix(got, dialog.DefaultTitle+"\r\n") {
		t.Errorf("header without a title starts %q", got)
	}

	c := chooseRequest()
	c.Other, c.Selected = true, []string{"production"}
	want = "Deploy\r\nDeploy v2 to?\r\n\r\n" +
		"  1) staging — the staging cluster\r\n" +
		"  2) production (default)\r\n" +
		"  3) canary\r\n" +
		"  4) Other…\r\n\r\n"
	if got := headerText(c, time.Time{}, fakeEpoch); got != want {
		t.Errorf("choice header\n%q, want\n%q", got, want)
	}
}

func TestPromptLine(t *testing.T) {
	withFor := confirmRequest()
	withFor.ApproveFor = time.Hour
	defaultApprove := confirmRequest()
	defaultApprove.DefaultApprove = true
	one := chooseRequest()
	one.Selected = []string{"canary"}
	many := chooseRequest()
	many.Multiple, many.Selected = true, []string{"staging", "canary"}
	cases := []struct {
		name string
		r    dialog.Request
		left time.Duration
		want string
	}{
		{"confirm", confirmRequest(), 299600 * time.Millisecond, "(5m left) Approve (y) or Cancel (n)? [y/N] "},
		{"confirm with the default approve", defaultApprove, 59 * time.Second, "(59s left) Approve (y) or Cancel (n)? [Y/n] "},
		{"confirm with approve-for", withFor, 61 * time.Second, "(1m1s left) Approve (y), Approve for 1h (a) or Cancel (n)? [y/a/N] "},
		{"confirm without a deadline", confirmRequest(), -1, "Approve (y) or Cancel (n)? [y/N] "},
		{"choose", chooseRequest(), 0, "(0s left) Pick one of 1-3 and press Enter: "},
		{"choose with a default", one, -1, "Pick one of 1-3 and press Enter (Enter alone: 3): "},
		{"choose several with defaults", many, -1, "Pick any of 1-3, separated by spaces, and press Enter (Enter alone: 1 3): "},
		{"input", inputRequest(), -1, "Type your answer, Enter for OK, Ctrl-C for Cancel: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := line(newQuestion(c.r), c.left, 200); got != c.want {
				t.Errorf("line\n%q, want\n%q", got, c.want)
			}
		})
	}
	q := newQuestion(chooseRequest())
	drive(q, "9\r")
	if got, want := line(q, time.Minute, 200), `"9" is not one of 1-3. Pick one of 1-3 and press Enter: `; got != want {
		t.Errorf("after a wrong entry\n%q, want\n%q", got, want)
	}
	drive(q, "1")
	if got := line(q, time.Minute, 200); strings.Contains(got, "not one of") || !strings.HasSuffix(got, ": 1") {
		t.Errorf("the next key keeps the note: %q", got)
	}
}

// A message padded with blank lines, spaces, tabs, Unicode spaces or line
// separators shows its tail right under its head: the padding is a
// marker, so nothing scrolls the head or the tail out of view.
func TestHeaderShowsAPaddedMessageWhole(t *testing.T) {
	for _, c := range padding.Cases {
		t.Run(c.Name, func(t *testing.T) {
			r := confirmRequest()
			r.Message = padding.Head + c.Pad + padding.Tail
			got := headerText(r, time.Time{}, fakeEpoch)
			checkInert(t, got)
			if !strings.HasPrefix(got, "Deploy\r\n"+padding.Head) || !strings.Contains(got, padding.Tail) {
				t.Fatalf("header lacks the head or the tail:\n%.600q", got)
			}
			if lines := strings.Count(got, "\n"); lines > 5 {
				t.Errorf("header takes %d lines:\n%.600q", lines, got)
			}
		})
	}
}

// headerText is the header on an 80 by 24 terminal.
func headerText(r dialog.Request, closes, now time.Time) string {
	text, _ := header(r, closes, now, dialog.Terminal(80, 24))
	return text
}
