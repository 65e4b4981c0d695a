//go:build e2e && linux

package terminal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/adversarial"
	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// What the person sees is what they approve, on a terminal too: with no
// display, ask-confirm asks at the terminal, and a message an agent shaped
// to hide its end must still end on the screen with its tail word, and the
// prompt line, what each key does, must be there under it. Read from tmux's
// screen (capture-pane, the rows in view, not the scrollback) at 80 and at
// 40 columns, 24 rows, for the reported case (ls and 3,000 A's) and the
// first plain cases of the corpus of ASK_CONFIRM_CORPUS_SEED; then n and
// Enter must deny.
func TestTerminalScreenShowsTheTail(t *testing.T) {
	t.Parallel()
	seed, _, err := adversarial.FromEnv()
	e2e.Must(t, err)
	issue := adversarial.IssueCases()
	cases := []adversarial.Case{issue[len(issue)-1]}
	for _, c := range adversarial.Generate(seed, 2*len(adversarial.Families())) {
		if len(cases) == 4 {
			break
		}
		if c.Plain() {
			cases = append(cases, c)
		}
	}
	for _, width := range []int{80, 40} {
		t.Run(fmt.Sprintf("%d-columns", width), func(t *testing.T) {
			t.Parallel()
			th := newTmuxHarness(t)
			th.tmux("resize-window", "-t", "main", "-x", fmt.Sprint(width), "-y", "24")
			for i, c := range cases {
				th.terminalShowsTheTail(c, seed, i > 0)
			}
		})
	}
}

// terminalShowsTheTail asks c's command at the terminal, with the message
// read from a file (a shell's command line would not hold 64 KiB), checks
// what the screen shows, and denies.
func (th *tmuxHarness) terminalShowsTheTail(c adversarial.Case, seed uint64, generated bool) {
	th.T.Helper()
	th.clear()
	file := filepath.Join(th.Dir, "message-"+fmt.Sprint(th.runs))
	e2e.Must(th.T, os.WriteFile(file, []byte(c.Command), 0o600))
	code := th.start(`ask-confirm --title Tail --message "$(cat ` + e2e.ShellQuote(file) + `)"`)
	th.waitFor("[y/N]")
	rows := strings.Split(strings.TrimRight(th.tmux("capture-pane", "-p", "-t", "main"), "\n "), "\n")
	var problems []string
	// A word the terminal wrapped is in two rows: joined by -J, or
	// written one row after the other.
	if !strings.Contains(th.screen(), c.Tail) && !strings.Contains(strings.Join(rows, ""), c.Tail) {
		problems = append(problems, fmt.Sprintf("the tail word %q is not on the screen", c.Tail))
	}
	const prompt = "Approve (y) or Cancel (n)? [y/N]"
	if !strings.Contains(strings.Join(strings.Fields(strings.Join(rows, " ")), " "), prompt) {
		problems = append(problems, fmt.Sprintf("the prompt line %q is not on the screen whole", prompt))
	}
	th.answer("n", "Enter")
	if got := th.exitCode(code); got != 1 {
		problems = append(problems, fmt.Sprintf("n and Enter: exit %d, want 1 (denied)", got))
	}
	if len(problems) > 0 {
		th.T.Errorf("%s\n%s\nthe screen, %d rows:\n%s", strings.Join(problems, "\n"), e2e.CaseReport(c, seed, generated),
			len(rows), strings.Join(rows, "\n"))
	}
}
