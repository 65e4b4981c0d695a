//go:build e2e && linux

package cmd_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/adversarial"
	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// What the person sees is what they approve, through the command line
// too: a script that passes an agent's text to --message shows it in the
// real dialog, and the screen, read with OCR, must show its tail word, the
// window within the screen and small enough for a 1024x768 one, and both
// buttons; then Escape must deny. The reported case (ls and 3,000 A's) and
// the first plain cases of the corpus of ASK_CONFIRM_CORPUS_SEED (the
// others hold what --message refuses, exit 2): the hook's tests try the
// whole corpus, and these that the command line's dialog is the same.
func TestScreenShowsTheTailOfMessages(t *testing.T) {
	seed, _, err := adversarial.FromEnv()
	e2e.Must(t, err)
	issue := adversarial.IssueCases()
	cliScreenShowsTheTail(t, issue[len(issue)-1], 0, false)
	tried := 0
	for _, c := range adversarial.Generate(seed, 2*len(adversarial.Families())) {
		if tried == 4 {
			break
		}
		if c.Plain() {
			tried++
			cliScreenShowsTheTail(t, c, seed, true)
		}
	}
}

func cliScreenShowsTheTail(t *testing.T, c adversarial.Case, seed uint64, generated bool) {
	t.Run(c.Name, func(t *testing.T) {
		e2e.NeedOCR(t)
		h := e2e.NewRealHarness(t)
		h.HomeIsTheTestDir()
		title := h.Title("SC-message")
		r := h.Start("--json", "--title", title, "--message", c.Command)
		rd, problems := h.ReadAndDeny(c, title, r, "Cancel", "Approve")
		if o := r.Wait(30 * time.Second); o.Code != 1 || o.Res.Status != lifecycle.StatusDenied {
			problems = append(problems, "after Escape: exit "+strconv.Itoa(o.Code)+", "+o.Res.Status+"; stderr: "+o.Stderr)
		}
		if len(problems) > 0 {
			t.Errorf("%s\n%s\n%s", strings.Join(problems, "\n"), e2e.CaseReport(c, seed, generated), rd.Report(t, t.Name()))
		}
	})
}

// The reader reads: every word a case may end in, in a message that fits
// the dialog, is read on the screen, and both buttons are. Without this, a
// failure of the tests above could be OCR's rather than the dialog's.
func TestScreenReaderReadsEveryTailWord(t *testing.T) {
	e2e.NeedOCR(t)
	h := e2e.NewRealHarness(t)
	h.HomeIsTheTestDir()
	title := h.Title("SC-reader")
	tails := adversarial.Tails()
	var lines []string
	for i := 0; i < len(tails); i += 4 {
		lines = append(lines, "rm -rf ~/"+strings.Join(tails[i:min(i+4, len(tails))], " ~/"))
	}
	r := h.Start("--json", "--title", title, "--message", strings.Join(lines, "\n"))
	w := h.WaitWindow(title)
	h.WaitStable(w)
	rd := h.ReadWindow(w, tails, []string{"Cancel", "Approve"})
	problems := rd.Problems(tails[0], "Cancel", "Approve")
	for _, tail := range tails[1:] {
		if !rd.Shows(tail) {
			problems = append(problems, "the word "+strconv.Quote(tail)+" is not read on the screen")
		}
	}
	h.Key(title, "Escape")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if len(problems) > 0 {
		t.Fatalf("%s\n%s", strings.Join(problems, "\n"), rd.Report(t, t.Name()))
	}
}
