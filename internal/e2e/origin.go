//go:build e2e && linux

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// DialogText returns the text of the zenity process showing the window
// titled title, from its command line (--text TEXT).
func DialogText(t *testing.T, title string) string {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	Must(t, err)
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("\x00--title\x00"+title+"\x00")) {
			continue
		}
		args := strings.Split(string(b), "\x00")
		for i, a := range args[:len(args)-1] {
			if a == "--text" {
				return args[i+1]
			}
		}
	}
	t.Fatalf("no zenity process shows a window titled %s", title)
	return ""
}

// ExpectOriginLine checks that the dialog titled title shows message and
// then the origin line of a request deploy.sh made in work: who asked,
// where, and when the dialog closes, about five minutes from now.
func ExpectOriginLine(t *testing.T, title, message, work string) {
	t.Helper()
	text := DialogText(t, title)
	want := message + "\n\nAsked by deploy.sh in " + work + " · closes at "
	if !strings.HasPrefix(text, want) || len(text) != len(want)+len("15:04") {
		t.Fatalf("the dialog shows %q, want %q and a time", text, want)
	}
	closes, err := time.ParseInLocation("15:04", text[len(want):], time.Local)
	Must(t, err)
	minuteOfDay := func(t time.Time) int { return t.Hour()*60 + t.Minute() }
	if d := (minuteOfDay(closes) - minuteOfDay(time.Now().Add(5*time.Minute)) + 1440) % 1440; d > 1 && d < 1439 {
		t.Fatalf("the dialog says it closes at %s, not about five minutes from now", text[len(want):])
	}
}

// ExpectCollectedByAnother runs the request that deploy.sh made (title,
// message) again from the test process, which collects the answer, and
// checks that the history names deploy.sh in h.Work as who asked.
func (h *Harness) ExpectCollectedByAnother(title, message string) {
	h.T.Helper()
	o := h.Run("--json", "--wait", "1s", "--title", title, "--message", message)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		h.T.Fatalf("the retry from another process asked again: %+v", o.Res)
	}
	origins := map[string]bool{}
	for _, e := range h.History() {
		if o, ok := e["origin"].(string); ok {
			origins[o] = true
		}
	}
	if !origins["deploy.sh in "+h.Work] {
		h.T.Fatalf("the history does not record who asked: %v", origins)
	}
}
