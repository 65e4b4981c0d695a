package cmd

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The countdown says where the question it waits for is open: a caller
// that joined a question asked on another terminal, or on the phone
// alone, sees that rather than a blank screen. It is quiet while another
// invocation's prompt has this terminal's lines, and then clears nothing.
func TestCountdownSaysWhereTheQuestionIsOpen(t *testing.T) {
	until := time.Date(2026, 1, 2, 15, 4, 5, 0, time.Local)
	cases := []struct{ channel, phone, want string }{
		{"", "", "dialog open until 15:04:05"},
		{"terminal", "", "ask-confirm: waiting… 1m0s left, open on another terminal until 15:04:05"},
		{"terminal", "also", "open on another terminal and on the phone"},
		{"", "only", "open on the phone until 15:04:05"},
		{"", "also", "open in the dialog and on the phone"},
	}
	for _, c := range cases {
		var b strings.Builder
		cd := &countdown{w: &b, now: func() time.Time { return until.Add(-time.Minute) }}
		cd.AskedOn(c.channel, c.phone)
		cd.Waiting(time.Minute, until)
		cd.Done()
		if !strings.Contains(b.String(), c.want) || !strings.HasSuffix(b.String(), "\r\033[K") {
			t.Errorf("asked on %q, phone %q: %q, want it to say %q", c.channel, c.phone, b.String(), c.want)
		}
	}
	var b strings.Builder
	cd := &countdown{w: &b, quiet: func() bool { return true }}
	cd.AskedOn("terminal", "")
	cd.Waiting(time.Minute, until)
	cd.Done()
	if b.Len() != 0 {
		t.Errorf("a quiet countdown wrote %q", b.String())
	}
}

// The countdown names the day the dialog closes when it is not today's.
func TestCountdownNamesTheDay(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 59, 0, 0, time.Local)
	for until, want := range map[time.Time]string{
		now.Add(30 * time.Second):                       "30s left, dialog open until 23:59:30",
		time.Date(2026, 11, 27, 0, 4, 0, 0, time.Local): "45s left, dialog open until 00:04:00 on Fri 27 Nov",
	} {
		var b strings.Builder
		left := until.Sub(now)
		if left > 45*time.Second {
			left = 45 * time.Second
		}
		(&countdown{w: &b, now: func() time.Time { return now }}).Waiting(left, until)
		if !strings.HasSuffix(b.String(), want) {
			t.Errorf("countdown %q, want it to end %q", b.String(), want)
		}
	}
}

// The countdown's line fits an 80-column terminal whatever it says (a
// line that wraps leaves a row behind at each tick), and the time it
// gives is the question's: a second terminal, which waits until the
// request ends and a moment past it, says at most the --timeout's 5m0s.
func TestCountdownFitsAndGivesTheQuestionsTime(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 59, 0, 0, time.Local)
	for _, where := range [][2]string{{"", ""}, {"terminal", ""}, {"terminal", "also"}, {"", "only"}, {"", "also"}, {"elicitation", "also"}} {
		for _, until := range []time.Time{now.Add(5 * time.Minute), now.Add(23*time.Hour + 59*time.Minute + 59*time.Second)} {
			var b strings.Builder
			cd := &countdown{w: &b, now: func() time.Time { return now }}
			cd.AskedOn(where[0], where[1])
			// A caller that waits until the end waits 5 s past it.
			cd.Waiting(until.Sub(now)+5*time.Second, until)
			line := strings.TrimPrefix(b.String(), "\r\033[K")
			if n := utf8.RuneCountInString(line); n > 79 {
				t.Errorf("asked on %q, phone %q, until %s: %d columns: %q", where[0], where[1], until, n, line)
			}
			if want := until.Sub(now).String() + " left"; !strings.Contains(line, want) {
				t.Errorf("asked on %q, phone %q: %q, want it to say %s", where[0], where[1], line, want)
			}
		}
	}
}
