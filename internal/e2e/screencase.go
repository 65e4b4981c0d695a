//go:build e2e && linux

package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/adversarial"
)

// ReadAndDeny reads what the dialog titled title, which run r shows,
// shows of adversarial case c, and then denies it with Escape (GTK's
// Cancel: whatever the layout, it needs no button on the screen). It
// returns the reading (a zero Reading where no window showed) and what
// keeps the person from seeing c's tail and both buttons
// (Reading.Problems). The caller checks what r answered: the hook and the
// command line say deny in their own ways.
//
// Where the tail word is not read, the problems say whether zenity was
// given it at all: a tail zenity never had was cut by ask-confirm; a tail
// it had, in a window within the screen, was hidden by the layout (or
// misread, which the screenshot, ASK_CONFIRM_SCREENSHOTS, tells).
func (h *Harness) ReadAndDeny(c adversarial.Case, title string, r *Running, buttons ...string) (Reading, []string) {
	h.T.Helper()
	w := h.WaitWindowOrEnd(title, r)
	if w == "" {
		return Reading{}, []string{"the dialog never showed"}
	}
	rd := h.ReadWindow(w, []string{c.Tail}, buttons)
	problems := rd.Problems(c.Tail, buttons...)
	if !rd.Shows(c.Tail) {
		given := DialogText(h.T, title)
		problems = append(problems, fmt.Sprintf("zenity was given the tail word: %v (its text: %d bytes)",
			strings.Contains(Squash(given), Squash(c.Tail)), len(given)))
	}
	h.T.Logf("%s: %dx%d window, read in %s (%d OCR passes); %d problems", c.Name, rd.Window.Dx(), rd.Window.Dy(),
		rd.Took.Round(time.Millisecond), rd.Passes, len(problems))
	h.Key(title, "Escape")
	return rd, problems
}

// HomeIsTheTestDir makes the harness's directory the home of the programs
// it runs, so that the origin line under a dialog's text names the project
// as a person's would be named, ~/src/shop, rather than by the test's
// temporary directory: its hundred characters would take a line of their
// own in the dialog, and widen the window, as no person's path does.
func (h *Harness) HomeIsTheTestDir() {
	h.Env = append(WithoutEnv(h.Env, "HOME"), "HOME="+h.Dir)
}

// WaitWindowOrEnd waits for one window titled title, as WaitWindow does,
// or for run r to end without one (a dialog program that could not show
// the text, a hook that handed the question back): it returns the
// window's id, or "" when r ended first.
func (h *Harness) WaitWindowOrEnd(title string, r *Running) string {
	h.T.Helper()
	var ws []string
	Eventually(h.T, 30*time.Second, "one window titled "+title+", or the run's end", func() bool {
		ws = h.Windows(title)
		select {
		case <-r.Done:
			return true
		default:
			return len(ws) == 1
		}
	})
	if len(ws) != 1 {
		return ""
	}
	h.WaitStable(ws[0])
	return ws[0]
}

// CaseReport describes adversarial case c for a failure's message, whole:
// its name, how to run it again (the seed of a generated case, or none for
// the reported ones, adversarial.IssueCases), and the command in Go syntax,
// every invisible character and escape written out.
func CaseReport(c adversarial.Case, seed uint64, generated bool) string {
	again := "one of the reported cases (adversarial.IssueCases)"
	if generated {
		again = fmt.Sprintf("seed %d: %s=%d %s=%d reproduce it", seed, adversarial.SeedEnv, seed, adversarial.CasesEnv, c.Index+1)
	}
	return fmt.Sprintf("case %s (%s), %s\nthe command, %d bytes, ending in the tail word %q:\n%q",
		c.Name, c.Family, again, len(c.Command), c.Tail, c.Command)
}
