package cmd

import (
	"strings"
	"testing"
	"time"
)

// The countdown says where the question it waits for is open: a caller
// that joined a question asked on another terminal, or on the phone
// alone, sees that rather than a blank screen. It is quiet while another
// invocation's prompt has this terminal's lines, and then clears nothing.
func TestCountdownSaysWhereTheQuestionIsOpen(t *testing.T) {
	until := time.Date(2026, 1, 2, 15, 4, 5, 0, time.Local)
	cases := []struct{ channel, phone, want string }{
		{"", "", "dialog open until 15:04:05"},
		{"terminal", "", "the question is open on another terminal; waiting for answer… 1m0s left, open until 15:04:05"},
		{"terminal", "also", "the question is open on another terminal and on the phone;"},
		{"", "only", "the question is open on the phone;"},
		{"", "also", "the question is open in the dialog and on the phone;"},
	}
	for _, c := range cases {
		var b strings.Builder
		cd := &countdown{w: &b}
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
