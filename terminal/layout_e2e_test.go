//go:build e2e && linux

package terminal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// rows is what the pane shows now, row by row as the terminal has them
// (wrapped lines not joined), trailing blank rows dropped.
func (th *tmuxHarness) rows() []string {
	return strings.Split(strings.TrimRight(th.tmux("capture-pane", "-p", "-t", "main"), "\n "), "\n")
}

// resize makes the pane width columns wide.
func (th *tmuxHarness) resize(width int) {
	th.T.Helper()
	th.tmux("resize-window", "-t", "main", "-x", fmt.Sprint(width))
}

// promptText is the text of the prompt line: those after the origin
// line, its words joined by single spaces.
func promptText(rows []string) string {
	for i, r := range rows {
		if strings.HasPrefix(r, "Asked by ") {
			return strings.Join(strings.Fields(strings.Join(rows[i+1:], " ")), " ")
		}
	}
	return ""
}

// The prompt line in a real terminal at 40, 80 and 120 columns, with
// labels near the 64-byte limit and with wide (CJK) ones: the title starts
// a line of its own after output that did not end one; the whole prompt,
// what each key does, is on the screen, once; typing wide characters and
// resizing the terminal from 80 or 120 to 40 columns leave no stale copy.
func TestTerminalLayoutAtWidths(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	long := []string{"Deploy everything to production now and restart every worker", "Do not deploy anything and roll back the staging env too"}
	wide := []string{"本番環境にすべてをデプロイ", "何もデプロイせずに戻す"}
	for _, c := range []struct {
		width  int
		labels []string
	}{{40, long}, {80, long}, {120, long}, {40, wide}, {80, wide}} {
		th.resize(c.width)
		th.clear()
		title := fmt.Sprintf("Width-%d", c.width)
		code := th.start(fmt.Sprintf("printf 'progress: deploying...'; ask-confirm --title %s --ok-label '%s' --cancel-label '%s' --message 'Ship v2?'",
			title, c.labels[0], c.labels[1]))
		th.waitFor("[y/N]")
		rows := th.rows()
		name := fmt.Sprintf("%d columns, %s", c.width, c.labels[0])
		at := -1
		for i, r := range rows {
			if strings.TrimRight(r, " ") == title {
				at = i
			}
		}
		if at < 1 || !strings.HasPrefix(rows[at-1], "$ printf") && !strings.Contains(strings.Join(rows[:at], "\n"), "progress: deploying...") {
			t.Fatalf("%s: the title is not on a line of its own after the output before it:\n%s", name, strings.Join(rows, "\n"))
		}
		want := c.labels[0] + " (y) or " + c.labels[1] + " (n)? [y/N]"
		if got := promptText(rows); !strings.Contains(got, want) || strings.Count(got, "[y/N]") != 1 {
			t.Fatalf("%s: the prompt is not shown whole and once; want %q in:\n%s", name, want, strings.Join(rows, "\n"))
		}
		time.Sleep(humanPause)
		th.keys("-l", "はいはい")
		th.waitFor("はいはい")
		if c.width > 40 {
			th.resize(40)
		}
		time.Sleep(1500 * time.Millisecond) // a countdown's redraw or two
		rows = th.rows()
		if got := promptText(rows); strings.Count(got, "[y/N]") != 1 || strings.Count(got, "はいはい") != 1 || !strings.Contains(got, want) {
			t.Fatalf("%s: after typing wide characters (and a resize), the prompt is not shown once, whole:\n%s", name, strings.Join(rows, "\n"))
		}
		th.keys("C-u", "n", "Enter")
		if got := th.exitCode(code); got != 1 {
			t.Fatalf("%s: exit %d, want 1", name, got)
		}
	}
}

// A second caller of the same question, on another terminal, says there
// that the question is open on another terminal and counts down; both get
// the answer given on the first.
func TestTerminalSecondCallerOnAnotherTerminal(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	th.tmux("new-window", "-d", "-t", "main", "-n", "second", "-c", th.Work, filepath.Join(th.Dir, "shell"))
	second := func() string {
		return strings.TrimRight(th.tmux("capture-pane", "-p", "-J", "-t", "main:second"), "\n ")
	}
	command := "ask-confirm --title Same --message 'Gamma?'"
	code := th.start(command)
	th.waitFor("[y/N]")
	code2 := filepath.Join(th.Dir, "exit-second")
	th.tmux("send-keys", "-t", "main:second", "-l", command+"; echo $? > "+code2)
	th.tmux("send-keys", "-t", "main:second", "Enter")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(second(), "open on another terminal until") {
		if time.Now().After(deadline) {
			t.Fatalf("the second terminal does not say where the question is open:\n%s", second())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// One line that fits 80 columns, rewritten in place (a wider one
	// wraps, and leaves a row behind at each tick), with the question's
	// time: at most --timeout's 5m0s, not the second caller's wait past it.
	time.Sleep(2500 * time.Millisecond)
	var waiting []string
	for _, l := range strings.Split(second(), "\n") {
		if strings.Contains(l, "left, open") {
			waiting = append(waiting, l)
		}
	}
	if len(waiting) != 1 || utf8.RuneCountInString(waiting[0]) > 79 {
		t.Fatalf("the second terminal's waiting lines, after two ticks: %q; want one of at most 79 columns", waiting)
	}
	m := append(regexp.MustCompile(`waiting… (\S+) left`).FindStringSubmatch(waiting[0]), "")
	if left, err := time.ParseDuration(m[1]); err != nil || left >= 5*time.Minute || left < 4*time.Minute {
		t.Fatalf("the second terminal's waiting line %q; want under the --timeout's 5m0s left", waiting[0])
	}
	if strings.Contains(second(), "[y/N]") {
		t.Fatalf("the second terminal prompts too:\n%s", second())
	}
	th.answer("y", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("first caller: exit %d", got)
	}
	for {
		b, err := os.ReadFile(code2)
		if err == nil && strings.TrimSpace(string(b)) != "" {
			if strings.TrimSpace(string(b)) != "0" {
				t.Fatalf("second caller: exit %s:\n%s", b, second())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second caller never ended:\n%s", second())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := second(); !strings.Contains(s, "ask-confirm: approved") {
		t.Fatalf("the second terminal does not say approved:\n%s", s)
	}
}

// A prompt ended by SIGTERM ends its line first: what the shell prints
// next starts a line of its own.
func TestTerminalSignalEndsThePromptLine(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	script := filepath.Join(th.Dir, "term.sh")
	e2e.Must(t, os.WriteFile(script, []byte(`#!/bin/sh
ask-confirm --title Term --message 'Ship v2?' &
p=$!
while [ ! -s "`+filepath.Join(th.Dir, "go")+`" ]; do sleep 0.05; done
kill -TERM $p
wait $p
echo "after $?"
`), 0o700))
	code := th.start("sh " + script)
	th.waitFor("[y/N]")
	time.Sleep(humanPause)
	th.keys("y", "e")
	th.waitFor("[y/N] ye")
	e2e.Must(t, os.WriteFile(filepath.Join(th.Dir, "go"), []byte("1"), 0o600))
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("the script exited %d", got)
	}
	// Whatever the shell prints ("Terminated"), it starts a line.
	if s := th.screen(); !regexp.MustCompile(`\[y/N\] ye\n(Terminated\n)?after 143`).MatchString(s) {
		t.Fatalf("the prompt's line was not ended before the shell's next words:\n%s", s)
	}
}
