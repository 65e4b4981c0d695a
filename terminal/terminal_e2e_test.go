//go:build e2e && linux

package terminal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// The terminal prompt end to end: the real binary in a real terminal,
// tmux's, with no display, driven as a person would with send-keys and
// read back with capture-pane. Each test has its own tmux server, shell and
// XDG tree, so they run in parallel.

// humanPause is how long a test waits after a prompt appears before it
// types: longer than the prompt's guard (the terminal package's guard, 0.4 s) and the
// engine's fastest human answer (0.4 s after asking started), as a person
// reading the question would.
const humanPause = 1500 * time.Millisecond

// tmuxHarness is one shell in a tmux pane, 120 by 30, whose ask-confirm is
// this test binary.
type tmuxHarness struct {
	*e2e.Harness
	sock string
	runs int
}

func newTmuxHarness(t *testing.T) *tmuxHarness {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		msg := "terminal test needs tmux; run scripts/test, which installs it"
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	h := e2e.NewHarness(t) // no DISPLAY, no WAYLAND_DISPLAY: no dialog can be shown
	h.Exe = e2e.LookPathOrFail(t, "ask-confirm")
	env := h.Env[:0]
	for _, kv := range h.Env {
		// Nor any variable that turns the prompt off (terminalOffBy),
		// such as the CI a runner sets: the tests set them themselves.
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "TMUX", "TMUX_PANE", "PS1", "TERM", "CI", "CLAUDECODE", "ASK_CONFIRM_NO_TERMINAL":
		default:
			env = append(env, kv)
		}
	}
	h.Env = append(env, "PATH="+os.Getenv("PATH"), "PS1=$ ", "HISTFILE=/dev/null", "TERM=tmux-256color", "LC_ALL=C.UTF-8")
	// The shell gets exactly h.env, whatever tmux's server keeps in its
	// global environment.
	shell := filepath.Join(h.Dir, "shell")
	var launcher strings.Builder
	launcher.WriteString("#!/bin/sh\nexec env -i")
	for _, kv := range h.Env {
		launcher.WriteString(" " + e2e.ShellQuote(kv))
	}
	launcher.WriteString(" bash --norc --noprofile -i\n")
	e2e.Must(t, os.WriteFile(shell, []byte(launcher.String()), 0o700))
	th := &tmuxHarness{Harness: h, sock: filepath.Join(h.Dir, "tmux.sock")}
	th.tmux("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "30", "-s", "main", "-c", h.Work, shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", th.sock, "kill-server").Run() })
	th.waitScreen("the shell's prompt", func(s string) bool { return strings.HasPrefix(s, "$") })
	return th
}

// tmux runs tmux on this harness's server and returns what it printed.
func (th *tmuxHarness) tmux(args ...string) string {
	th.T.Helper()
	c := exec.Command("tmux", append([]string{"-S", th.sock}, args...)...)
	c.Env = th.Env
	out, err := c.CombinedOutput()
	if err != nil {
		th.T.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is what the pane shows now, wrapped lines joined, trailing blank
// lines dropped.
func (th *tmuxHarness) screen() string {
	return strings.TrimRight(th.tmux("capture-pane", "-p", "-J", "-t", "main"), "\n ")
}

// scrollback is everything the pane has shown since it was last cleared.
func (th *tmuxHarness) scrollback() string {
	return strings.TrimRight(th.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main"), "\n ")
}

// waitScreen waits until cond holds for the screen, and returns it.
func (th *tmuxHarness) waitScreen(what string, cond func(string) bool) string {
	th.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := th.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			th.T.Fatalf("timed out waiting for %s; the screen shows:\n%s", what, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitFor waits until the screen shows text, and returns the screen.
func (th *tmuxHarness) waitFor(text string) string {
	th.T.Helper()
	return th.waitScreen(strconv.Quote(text), func(s string) bool { return strings.Contains(s, text) })
}

// clear empties the screen and its history, so the next command's output
// stands alone.
func (th *tmuxHarness) clear() {
	th.T.Helper()
	th.typeLine("clear")
	th.waitScreen("a cleared screen", func(s string) bool { return s == "$" })
	th.tmux("clear-history", "-t", "main")
}

// typeLine types line into the shell and presses Enter.
func (th *tmuxHarness) typeLine(line string) {
	th.T.Helper()
	th.tmux("send-keys", "-t", "main", "-l", line)
	th.tmux("send-keys", "-t", "main", "Enter")
}

// keys presses keys, in tmux's names: y, Enter, C-c, BSpace, Left.
func (th *tmuxHarness) keys(keys ...string) {
	th.T.Helper()
	th.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// answer waits humanPause, as a person reads the question, and presses
// keys.
func (th *tmuxHarness) answer(keys ...string) {
	th.T.Helper()
	time.Sleep(humanPause)
	th.keys(keys...)
}

// start types command into the shell with its exit code written to a file
// afterwards, and returns the file.
func (th *tmuxHarness) start(command string) string {
	th.T.Helper()
	th.runs++
	code := filepath.Join(th.Dir, fmt.Sprintf("exit-%d", th.runs))
	th.typeLine(command + "; echo $? > " + code)
	return code
}

// exitCode waits for the exit code written to file by start.
func (th *tmuxHarness) exitCode(file string) int {
	th.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			code, err := strconv.Atoi(strings.TrimSpace(string(b)))
			e2e.Must(th.T, err)
			return code
		}
		if time.Now().After(deadline) {
			th.T.Fatalf("the command never ended; the screen shows:\n%s", th.screen())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// notEnded fails the test if the command of file has ended.
func (th *tmuxHarness) notEnded(file, why string) {
	th.T.Helper()
	if _, err := os.Stat(file); err == nil {
		b, _ := os.ReadFile(file)
		th.T.Fatalf("%s, yet the command ended with %s; the screen shows:\n%s", why, b, th.screen())
	}
}

// historyOf returns the events of the request with identity id.
func (th *tmuxHarness) historyOf(id string) []map[string]any {
	var evs []map[string]any
	for _, e := range th.History() {
		if e["identity"] == id {
			evs = append(evs, e)
		}
	}
	return evs
}

// Every key of the table, typed at a real terminal: y approves
// (exit 0); n, Enter, Ctrl-C and Ctrl-D deny (exit 1); Enter approves only
// with --default-approve.
func TestTerminalConfirmKeys(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	cases := []struct {
		name  string
		flags string
		keys  []string
		code  int
		final string
	}{
		{"y", "", []string{"y", "Enter"}, 0, "[y/N] y"},
		{"yes", "", []string{"-l", "yes"}, 0, "[y/N] yes"},
		{"n", "", []string{"n", "Enter"}, 1, "[y/N] n"},
		{"Enter", "", []string{"Enter"}, 1, "[y/N] "},
		{"Enter with --default-approve", "--default-approve", []string{"Enter"}, 0, "[Y/n] "},
		{"n with --default-approve", "--default-approve", []string{"n", "Enter"}, 1, "[Y/n] n"},
		{"Ctrl-C", "--default-approve", []string{"C-c"}, 1, "[Y/n] ^C"},
		{"Ctrl-D", "", []string{"C-d"}, 1, "[y/N] ^D"},
		{"Esc", "--default-approve", []string{"Escape"}, 1, "[Y/n]  (Esc)"},
		{"Alt-y, then Enter", "", []string{"M-y", "Enter"}, 1, "[y/N] "},
		{"anything else", "", []string{"-l", "sure"}, 1, "[y/N] sure"},
	}
	for i, c := range cases {
		th.clear()
		title := fmt.Sprintf("Key-%d", i)
		code := th.start(fmt.Sprintf("ask-confirm %s --title %s --message 'Ship v%d to production?'", c.flags, title, i))
		s := th.waitFor("(y) or Cancel (n)? [")
		if !strings.Contains(s, title+"\nShip v"+strconv.Itoa(i)+" to production?\n\nAsked by bash in ") || !strings.Contains(s, "left) Approve (y)") {
			t.Fatalf("%s: the prompt shows:\n%s", c.name, s)
		}
		th.answer(c.keys...)
		if c.keys[0] == "-l" {
			th.keys("Enter")
		}
		got := th.exitCode(code)
		s = th.screen()
		if got != c.code {
			t.Fatalf("%s: exit %d, want %d; the screen shows:\n%s", c.name, got, c.code, s)
		}
		if !strings.Contains(s, "\nApprove (y) or Cancel (n)? "+c.final+"\n") {
			t.Errorf("%s: the prompt line did not end as %q:\n%s", c.name, c.final, s)
		}
		want := "ask-confirm: approved"
		if c.code != 0 {
			want = "ask-confirm: denied"
		}
		if !strings.Contains(s, want) {
			t.Errorf("%s: the screen does not say %q:\n%s", c.name, want, s)
		}
	}
}

// Text typed before the prompt appeared does not answer it, even text
// that would approve: the prompt discards it and waits.
func TestTerminalTypeaheadDoesNotAnswer(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	code := th.start("sleep 1; ask-confirm --default-approve --title Ahead --message 'Ship v2?'")
	// Typed while sleep runs, before ask-confirm started: the terminal
	// queues it.
	th.keys("y", "Enter")
	th.waitFor("[Y/n]")
	time.Sleep(1500 * time.Millisecond)
	th.notEnded(code, "y and Enter were typed before the prompt appeared")
	if s := th.screen(); !strings.HasSuffix(s, "Approve (y) or Cancel (n)? [Y/n]") {
		t.Fatalf("the prompt does not wait with an empty line:\n%s", s)
	}
	th.keys("n", "Enter")
	if got := th.exitCode(code); got != 1 {
		t.Fatalf("exit %d, want 1 for the n typed at the prompt", got)
	}
	// Discarded unread: not even read as an answer too fast for a person,
	// which the engine would have refused and asked again.
	var kinds []string
	for _, e := range th.History() {
		kinds = append(kinds, e["event"].(string))
	}
	if got := strings.Join(kinds, " "); got != "requested shown answered collected" {
		t.Fatalf("history %q, want one prompt, answered once", got)
	}
}

// out=$(ask-confirm --json ...) holds one JSON object while the prompt is
// on the terminal only; the same command again within --remember returns
// the answer without a prompt; every history event names the terminal.
func TestTerminalJSONAndRemember(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	out := filepath.Join(th.Dir, "out.json")
	capture := "out=$(ask-confirm --json --title Json --message 'Tag v2?'); code=$?; printf '%s' \"$out\" > " + out + "; (exit $code)"
	code := th.start(capture)
	th.waitFor("[y/N]")
	th.answer("y", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("exit %d, want 0:\n%s", got, th.screen())
	}
	b, err := os.ReadFile(out)
	e2e.Must(t, err)
	var res map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&res); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON object (%v):\n%s", err, b)
	}
	if res["status"] != "approved" || res["exit_code"] != 0.0 || res["remembered"] != false || strings.Contains(string(b), "[y/N]") {
		t.Fatalf("stdout %s", b)
	}
	id, _ := res["key"].(string)
	if s := th.screen(); !strings.Contains(s, "Tag v2?") || !strings.Contains(s, "[y/N] y") {
		t.Fatalf("the prompt is not on the terminal:\n%s", s)
	}

	th.clear()
	code = th.start(capture)
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("again: exit %d, want the remembered 0:\n%s", got, th.screen())
	}
	b, err = os.ReadFile(out)
	e2e.Must(t, err)
	if !strings.Contains(string(b), `"remembered":true`) || !strings.Contains(string(b), `"key":"`+id+`"`) {
		t.Fatalf("again: stdout %s", b)
	}
	if s := th.screen(); strings.Contains(s, "[y/N]") {
		t.Fatalf("the remembered answer prompted again:\n%s", s)
	}

	var kinds []string
	for _, e := range th.historyOf(id) {
		kinds = append(kinds, e["event"].(string))
		if e["channel"] != "terminal" {
			t.Errorf("history event %v names channel %v", e["event"], e["channel"])
		}
	}
	if got := strings.Join(kinds, " "); got != "requested shown answered collected reused" {
		t.Fatalf("history %q", got)
	}
}

// Two invocations on one terminal: different questions queue, one prompt
// at a time; the same question is asked once and answers both.
func TestTerminalTwoInvocationsDoNotInterleave(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	script := filepath.Join(th.Dir, "two.sh")
	codes := filepath.Join(th.Dir, "codes")
	e2e.Must(t, os.WriteFile(script, []byte(`#!/bin/sh
# Both in the background of a non-interactive shell: the same process group,
# both in the terminal's foreground.
(ask-confirm --title First --message 'Alpha?'; echo "Alpha $?" >> `+codes+`) &
(ask-confirm --title Second --message 'Beta?'; echo "Beta $?" >> `+codes+`) &
wait
`), 0o700))
	th.clear()
	code := th.start("sh " + script)
	s := th.waitFor("[y/N]")
	time.Sleep(humanPause)
	s = th.screen()
	first, second := "Alpha?", "Beta?"
	if strings.Contains(s, "Beta?") {
		first, second = second, first
	}
	if strings.Contains(s, second) || strings.Count(s, "[y/N]") != 1 {
		t.Fatalf("two prompts on the screen at once:\n%s", s)
	}
	th.keys("y", "Enter")
	s = th.waitScreen("the second prompt", func(s string) bool { return strings.Count(s, "[y/N]") == 2 })
	firstEnd := strings.Index(s, "[y/N] y\n")
	if firstEnd < 0 || strings.Index(s, first) > firstEnd || strings.Index(s, second) < firstEnd {
		t.Fatalf("the second prompt did not wait for the first to end:\n%s", s)
	}
	// The first one's outcome is printed before the second prompt shows,
	// on a line of its own, not on the second prompt's line.
	outcome := strings.Index(s, "ask-confirm: approved\n")
	if outcome < firstEnd || outcome > strings.Index(s, second) {
		t.Fatalf("the first outcome is not printed between the two prompts:\n%s", s)
	}
	th.answer("n", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("the script exited %d", got)
	}
	b, err := os.ReadFile(codes)
	e2e.Must(t, err)
	name := func(m string) string { return strings.TrimSuffix(m, "?") }
	for _, want := range []string{name(first) + " 0", name(second) + " 1"} {
		if !strings.Contains(string(b), want+"\n") {
			t.Fatalf("exit codes %q, want %q for the first prompt approved and the second denied", b, want)
		}
	}

	// The same question twice: one prompt, whose answer both receive.
	e2e.Must(t, os.WriteFile(script, []byte(`#!/bin/sh
(ask-confirm --title Same --message 'Gamma?'; echo "one $?" >> `+codes+`) &
(ask-confirm --title Same --message 'Gamma?'; echo "two $?" >> `+codes+`) &
wait
`), 0o700))
	e2e.Must(t, os.Remove(codes))
	th.clear()
	code = th.start("sh " + script)
	th.waitFor("[y/N]")
	time.Sleep(humanPause)
	if s := th.screen(); strings.Count(s, "Gamma?") != 1 {
		t.Fatalf("the same question prompted twice:\n%s", s)
	}
	th.keys("y", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("the script exited %d", got)
	}
	b, err = os.ReadFile(codes)
	e2e.Must(t, err)
	if !strings.Contains(string(b), "one 0\n") || !strings.Contains(string(b), "two 0\n") {
		t.Fatalf("exit codes %q, want both approved by the one prompt", b)
	}
	if s := th.screen(); strings.Count(s, "[y/N]") != 1 {
		t.Fatalf("the same question prompted again:\n%s", s)
	}
}

// Without a terminal person nothing changes: exit 4, as with no terminal
// at all. setsid leaves no controlling terminal; a caller whose streams
// are all elsewhere is not a person at the terminal; --no-terminal, and
// CI, CLAUDECODE or ASK_CONFIRM_NO_TERMINAL in the environment, turn the
// prompt off; a background job is not where the person types.
func TestTerminalNotAskedWithoutATerminal(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	for _, command := range []string{
		"setsid -w ask-confirm --message 'No tty?' </dev/null",
		"ask-confirm --message 'Streams elsewhere?' </dev/null >/dev/null 2>" + filepath.Join(th.Dir, "stderr"),
		"ask-confirm --no-terminal --message 'Turned off?'",
		// A CI job or an agent's tool under a pseudo-terminal, and a
		// background job, whose keys the person types go elsewhere.
		"CI=true ask-confirm --message 'In CI?'",
		"CLAUDECODE=1 ask-confirm --message 'In an agent?'",
		"ASK_CONFIRM_NO_TERMINAL=1 ask-confirm --message 'Turned off for all?'",
		"ask-confirm --message 'In the background?' & wait $!",
	} {
		th.clear()
		code := th.start(command)
		if got := th.exitCode(code); got != 4 {
			t.Fatalf("%s: exit %d, want 4:\n%s", command, got, th.screen())
		}
		if s := th.screen(); strings.Contains(s, "[y/N]") {
			t.Fatalf("%s: prompted:\n%s", command, s)
		}
	}
	if s := th.screen(); !strings.Contains(s, "nobody can be asked") {
		t.Fatalf("--no-terminal does not say nobody can be asked:\n%s", s)
	}
}

// choose shows numbered options and reads a number; a wrong one is
// refused on the same prompt. input reads one line, with Backspace, and
// ignores arrow keys without echoing them.
func TestTerminalChooseAndInput(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	out := filepath.Join(th.Dir, "out")
	code := th.start(`out=$(ask-confirm choose --title Where --message 'Deploy v2 to?' --option 'staging=the staging cluster' --option production); code=$?; printf '%s' "$out" > ` + out + `; (exit $code)`)
	s := th.waitFor("Pick one of 1-2")
	if !strings.Contains(s, "  1) staging — the staging cluster\n  2) production\n") {
		t.Fatalf("the options are not numbered:\n%s", s)
	}
	th.answer("-l", "7")
	th.keys("Enter")
	th.waitFor(`"7" is not one of 1-2. Pick one of 1-2`)
	th.notEnded(code, "7 is not an option")
	th.keys("2", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("choose: exit %d:\n%s", got, th.screen())
	}
	if b, _ := os.ReadFile(out); string(b) != "production" {
		t.Fatalf("choose printed %q", b)
	}

	th.clear()
	code = th.start(`out=$(ask-confirm input --title Name --message 'Name of the release?' --default v2); code=$?; printf '%s' "$out" > ` + out + `; (exit $code)`)
	th.waitFor("Ctrl-C for Cancel: v2")
	th.answer("BSpace", "Left", "Up")
	th.keys("-l", "3.0")
	th.waitFor("Ctrl-C for Cancel: v3.0")
	th.keys("Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("input: exit %d:\n%s", got, th.screen())
	}
	if b, _ := os.ReadFile(out); string(b) != "v3.0" {
		t.Fatalf("input printed %q", b)
	}
	if s := th.screen(); strings.Contains(s, "^[") || strings.Contains(s, "[D") || strings.Contains(s, "[A") {
		t.Fatalf("arrow keys were echoed:\n%s", s)
	}

	th.clear()
	code = th.start("ask-confirm input --message 'Name?'")
	th.waitFor("Ctrl-C for Cancel:")
	th.answer("-l", "abc")
	th.keys("C-c")
	if got := th.exitCode(code); got != 1 {
		t.Fatalf("input cancelled with Ctrl-C: exit %d", got)
	}
}

// The prompt counts down on its own line and expires at --timeout: exit 5.
func TestTerminalTimeout(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	code := th.start("ask-confirm --timeout 10s --title Late --message 'Anyone?'")
	th.waitFor("(2s left) Approve")
	th.waitFor("(1s left) Approve")
	if got := th.exitCode(code); got != 5 {
		t.Fatalf("exit %d, want 5", got)
	}
	s := th.screen()
	if strings.Count(s, "[y/N]") != 1 || !strings.Contains(s, "[y/N]  (no answer before --timeout)\n") {
		t.Fatalf("the countdown did not stay on one line:\n%s", s)
	}
	if !strings.Contains(s, "expired: nobody answered before --timeout") {
		t.Fatalf("the outcome is not on the screen:\n%s", s)
	}
}

// A prompt killed with SIGKILL leaves no open request that blocks the
// next: the same command asks again at once.
func TestTerminalKilledPromptDoesNotBlock(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	pidFile := filepath.Join(th.Dir, "pid")
	command := "sh -c 'echo $$ > " + pidFile + "; exec ask-confirm --title Killed --message \"Ship v2?\"'"
	code := th.start(command)
	th.waitFor("[y/N]")
	b, err := os.ReadFile(pidFile)
	e2e.Must(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	e2e.Must(t, err)
	e2e.Must(t, syscall.Kill(pid, syscall.SIGKILL))
	if got := th.exitCode(code); got != 128+int(syscall.SIGKILL) {
		t.Fatalf("killed prompt: exit %d", got)
	}

	th.clear()
	started := time.Now()
	code = th.start(command)
	th.waitFor("[y/N]")
	if took := time.Since(started); took > 30*time.Second {
		t.Fatalf("the next prompt appeared after %s: the dead one blocked it", took)
	}
	th.answer("y", "Enter")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("after the kill: exit %d:\n%s", got, th.screen())
	}
	requested := 0
	for _, e := range th.History() {
		if e["event"] == "requested" {
			requested++
		}
	}
	if requested != 2 {
		t.Fatalf("%d requests, want the killed one and the new one", requested)
	}
}

// doctor says the terminal prompt is available, and which terminal, and
// that it is not when no stream is the terminal.
func TestTerminalDoctor(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	code := th.start("ask-confirm doctor")
	if got := th.exitCode(code); got != 0 {
		t.Fatalf("doctor: exit %d, want 0 with a terminal to ask on:\n%s", got, th.screen())
	}
	s := th.screen()
	if !regexp.MustCompile(`(?m)^terminal +/dev/pts/\d+: where no dialog can be shown`).MatchString(s) ||
		!regexp.MustCompile(`(?m)^can ask +on the terminal only: no display`).MatchString(s) {
		t.Fatalf("doctor does not report the terminal:\n%s", s)
	}
	th.clear()
	out := filepath.Join(th.Dir, "doctor.json")
	code = th.start("ask-confirm doctor --json </dev/null >" + out + " 2>/dev/null")
	if got := th.exitCode(code); got != 4 {
		t.Fatalf("doctor with no stream on the terminal: exit %d, want 4", got)
	}
	b, err := os.ReadFile(out)
	e2e.Must(t, err)
	var rep struct {
		Terminal struct {
			Available bool   `json:"available"`
			Reason    string `json:"reason"`
		} `json:"terminal"`
	}
	e2e.Must(t, json.Unmarshal(b, &rep))
	if rep.Terminal.Available || !strings.Contains(rep.Terminal.Reason, "none of stdin, stdout and stderr") {
		t.Fatalf("doctor --json terminal: %+v", rep.Terminal)
	}
}

// Terminal escapes in every text field are refused before anything is
// shown: the screen is not cleared and the pane's title is not set.
func TestTerminalHostileInputRefused(t *testing.T) {
	t.Parallel()
	th := newTmuxHarness(t)
	titleBefore := th.tmux("display-message", "-p", "-t", "main", "#{pane_title}")
	th.typeLine("echo still-here")
	th.waitFor("still-here\n")
	cases := []string{
		`ask-confirm --title "$(printf 'T\033]0;pwned\007')" --message hi`,
		`ask-confirm --message "$(printf 'clear\033[2J\033[H')"`,
		`ask-confirm --message hi --ok-label "$(printf 'Go\033]52;c;cm0gLXJmIH4K\007')"`,
		`ask-confirm --message hi --cancel-label "$(printf 'No\302\233')2J"`,
		`ask-confirm choose --message hi --option a --option "$(printf 'b\033[8m')"`,
		`ask-confirm choose --message hi --option a --option "b=$(printf '\033]0;pwned\007')"`,
		`ask-confirm input --message hi --default "$(printf 'v2\r\033[1A')"`,
		`ask-confirm --message "$(printf 'ding\007\010\010')"`,
	}
	for _, c := range cases {
		code := th.start(c)
		if got := th.exitCode(code); got != 2 {
			t.Fatalf("%s: exit %d, want 2", c, got)
		}
	}
	s := th.scrollback()
	if !strings.Contains(s, "still-here") || strings.Contains(s, "[y/N]") {
		t.Fatalf("the screen was cleared or prompted:\n%s", s)
	}
	if got := strings.Count(s, "ask-confirm: error: "); got != len(cases) {
		t.Fatalf("%d errors for %d refused commands:\n%s", got, len(cases), s)
	}
	if after := th.tmux("display-message", "-p", "-t", "main", "#{pane_title}"); after != titleBefore || strings.Contains(after, "pwned") {
		t.Fatalf("the pane title changed from %q to %q", titleBefore, after)
	}
}
