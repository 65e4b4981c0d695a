//go:build e2e && linux

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
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
	// The dialog breaks lines longer than its rows itself (dialog.Fit),
	// and a test's directory makes a long origin line: read it whole.
	text := strings.ReplaceAll(DialogText(t, title), "\n", "")
	want := message + "Asked by deploy.sh in " + work + " · closes at "
	if !strings.HasPrefix(text, want) {
		t.Fatalf("the dialog shows %q, want %q and a time", text, want)
	}
	// The time as the dialog says it, read when it was shown (a moment
	// ago): about five minutes from now, with its day if that is not
	// today's, which near midnight it is not.
	said, now := text[len(want):], time.Now()
	for _, shown := range []time.Time{now, now.Add(-time.Minute)} {
		for d := -time.Minute; d <= time.Minute; d += time.Minute {
			if said == dialog.Clock(shown.Add(5*time.Minute+d).Local(), shown) {
				return
			}
		}
	}
	t.Fatalf("the dialog says it closes at %s, not about five minutes from now", said)
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

// TickBelowText is Tick for a list whose text takes more than one line,
// however many the dialog shows (its --text's: an origin line, which
// dialog.Fit breaks where a test's long directory makes it wider than a
// row, among them): each line moves the first row textLine px lower.
func (h *Harness) TickBelowText(title string, rows ...int) {
	h.T.Helper()
	h.WaitStable(h.WaitWindow(title))
	h.TickFrom(title, 46+textLine*strings.Count(DialogText(h.T, title), "\n"), rows...)
}

// textLine is the height of a line of a dialog's text, in GTK 3's
// default font.
const textLine = 17
