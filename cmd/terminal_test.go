//go:build unix

package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/mdtable"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/terminal"
)

// fakePrompt stands in for the terminal in process: it records what it is
// asked and answers after took, as a person at the terminal would.
type fakePrompt struct {
	answer dialog.Answer
	took   time.Duration

	mu     sync.Mutex
	asked  []dialog.Request
	opened int
	closed int
	// deadline is the deadline of the last Ask's context.
	deadline time.Time
	// skew moves the fixture's clock on by a second for every answer.
	skew atomic.Int64
}

func (p *fakePrompt) Backend(string) dialog.Backend { return p }
func (p *fakePrompt) Name() string                  { return "/dev/pts/test" }
func (p *fakePrompt) PromptShown(string) bool       { return false }

func (p *fakePrompt) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed++
	return nil
}

func (p *fakePrompt) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, r)
	p.deadline, _ = ctx.Deadline()
	p.mu.Unlock()
	select {
	case <-time.After(p.took):
		p.skew.Add(int64(time.Second))
		return p.answer, nil
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
}

func (p *fakePrompt) asks() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

// withTerminal gives f's app a terminal that answers with ans, an
// environment of its own that turns no prompt off (the test's process may
// run where CI=true is set), and a clock that runs a second ahead for every
// answer, so the engine reads no answer as too fast for a person.
func withTerminal(f *cliFixture, ans dialog.Answer) *fakePrompt {
	p := &fakePrompt{answer: ans, took: 10 * time.Millisecond}
	f.clock = func() time.Time { return time.Now().Add(time.Duration(p.skew.Load())) }
	f.rebuild()
	f.a.lookupEnv = func(string) (string, bool) { return "", false }
	f.a.terminal = func() (terminalPrompt, error) {
		p.mu.Lock()
		p.opened++
		p.mu.Unlock()
		return p, nil
	}
	return p
}

// Where no dialog can be shown, a person at the terminal is asked there:
// the answer is the exit code, the request is the terminal's in the store
// and in every history event, and the terminal is closed afterwards.
func TestCLITerminalAskedWhereNoDialog(t *testing.T) {
	f := newCLIFixture(t)
	f.headless("no display")
	p := withTerminal(f, dialog.Answer{Approved: true})
	r := f.run("--json", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitApproved)
	if p.asks() != 1 || f.spawnCount() != 0 {
		t.Fatalf("%d terminal prompts and %d holders, want one prompt", p.asks(), f.spawnCount())
	}
	if p.closed != p.opened {
		t.Errorf("terminal opened %d times, closed %d", p.opened, p.closed)
	}
	if rec := f.record(r.res.Key); rec.Channel != terminal.ChannelName {
		t.Errorf("record channel %q", rec.Channel)
	}
	events := f.events()
	if len(events) == 0 {
		t.Fatal("no history")
	}
	for _, e := range events {
		if e.Channel != terminal.ChannelName {
			t.Errorf("history event %s names channel %q", e.Event, e.Channel)
		}
	}

	// The same command again returns the answer without asking.
	r = f.run("--json", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitApproved)
	if !r.res.Remembered || p.asks() != 1 {
		t.Fatalf("again: %+v after %d prompts, want the remembered answer", r.res, p.asks())
	}
}

// The prompt lives in the invoking process, so the invocation waits for it
// up to --timeout whatever --wait says, and the prompt closes at --timeout.
func TestCLITerminalWaitsPastWait(t *testing.T) {
	f := newCLIFixture(t)
	f.headless("no display")
	p := withTerminal(f, dialog.Answer{})
	p.took = 300 * time.Millisecond
	start := time.Now()
	r := f.run("--wait", "0", "--timeout", "1h", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitDenied)
	if until := time.Until(p.deadline); until < 50*time.Minute {
		t.Errorf("the prompt closes in %s, want --timeout 1h", until)
	}
	if time.Since(start) < p.took {
		t.Errorf("returned before the prompt was answered")
	}

	p.took = time.Hour
	r = f.run("--json", "--wait", "0", "--timeout", "500ms", "--message", "Tag v2?")
	f.expectCode(r, lifecycle.ExitExpired)
}

// The order of precedence: a dialog where one can be shown; else the
// terminal, unless --no-terminal; else --if-headless, which never decides
// while a person at the terminal can be asked.
func TestCLITerminalPrecedence(t *testing.T) {
	f := newCLIFixture(t)
	p := withTerminal(f, dialog.Answer{Approved: true})

	r := f.run("--wait", "0", "--message", "by dialog")
	f.expectCode(r, lifecycle.ExitPending)
	if f.spawnCount() != 1 || p.asks() != 0 {
		t.Fatalf("with a display: %d holders, %d prompts; want a dialog", f.spawnCount(), p.asks())
	}

	f.headless("no display")
	r = f.run("--if-headless", "approve", "--message", "on the terminal")
	f.expectCode(r, lifecycle.ExitApproved)
	if p.asks() != 1 || strings.Contains(r.stderr, "without asking") {
		t.Fatalf("--if-headless approve with a terminal: %d prompts, stderr %q; want the terminal asked", p.asks(), r.stderr)
	}

	r = f.run("--no-terminal", "--message", "not on the terminal")
	f.expectCode(r, lifecycle.ExitHeadless)
	r = f.run("--no-terminal", "--if-headless", "deny", "--message", "not on the terminal")
	f.expectCode(r, lifecycle.ExitDenied)
	if p.asks() != 1 {
		t.Fatalf("--no-terminal asked on the terminal")
	}

	if !strings.Contains(r.stderr, "the terminal was not asked: --no-terminal was given") {
		t.Fatalf("exit 1 of --if-headless deny does not say why the terminal was not asked:\n%s", r.stderr)
	}

	f.a.terminal = func() (terminalPrompt, error) {
		return nil, fmt.Errorf("%w: this process is not in the foreground of /dev/tty", terminal.ErrNoTerminal)
	}
	r = f.run("--json", "--message", "no terminal either")
	f.expectCode(r, lifecycle.ExitHeadless)
	if !strings.Contains(r.res.Message, "the terminal was not asked: no terminal to ask on: this process is not in the foreground") {
		t.Fatalf("exit 4 does not say why the terminal was not asked: %q", r.res.Message)
	}
}

// A working directory whose name holds a control character is the scope
// as it shows, escaped: not a --scope error the person never passed.
func TestCLIControlCharacterInWorkingDirectory(t *testing.T) {
	f := newCLIFixture(t)
	dir := filepath.Join(t.TempDir(), "a\x1b[31mb")
	must(t, os.Mkdir(dir, 0o700))
	t.Chdir(dir)
	r := f.run("--json", "--wait", "0", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitPending)
	if rec := f.record(r.res.Key); !strings.Contains(rec.Origin, `a\x1b[31mb`) {
		t.Fatalf("origin %q", rec.Origin)
	}
}

// choose and input ask on the terminal too, and print the answer.
func TestCLITerminalChooseAndInput(t *testing.T) {
	f := newCLIFixture(t)
	f.headless("no display")
	p := withTerminal(f, dialog.Answer{Approved: true, Values: []string{"production"}})
	r := f.runRaw("choose", "--message", "Where?", "--option", "staging", "--option", "production")
	f.expectCode(r, lifecycle.ExitApproved)
	if r.stdout != "production\n" || p.asks() != 1 || p.asked[0].Kind != dialog.Choose || p.asked[0].Via != terminal.ChannelName {
		t.Fatalf("choose: stdout %q, asked %+v", r.stdout, p.asked)
	}
	p.answer = dialog.Answer{Approved: true, Values: []string{"v2.1"}}
	r = f.runRaw("input", "--message", "Name?", "--default", "v2")
	f.expectCode(r, lifecycle.ExitApproved)
	if r.stdout != "v2.1\n" || p.asks() != 2 {
		t.Fatalf("input: stdout %q", r.stdout)
	}
}

// A terminal the engine never reaches is still closed.
func TestCLITerminalClosedWhenNotUsed(t *testing.T) {
	f := newCLIFixture(t)
	p := withTerminal(f, dialog.Answer{Approved: true})
	f.run("--wait", "0", "--message", "by dialog")
	f.run("--message", "\x1b[2J")
	if p.opened == 0 || p.opened != p.closed {
		t.Fatalf("terminal opened %d times, closed %d", p.opened, p.closed)
	}
}

// A variable of the invocation's environment that turns the prompt off
// keeps the terminal unasked and unopened: --if-headless decides.
func TestCLITerminalOffByEnvironment(t *testing.T) {
	for _, name := range []string{"CI", "CLAUDECODE", "ASK_CONFIRM_NO_TERMINAL"} {
		t.Run(name, func(t *testing.T) {
			f := newCLIFixture(t)
			f.headless("no display")
			p := withTerminal(f, dialog.Answer{Approved: true})
			f.a.lookupEnv = func(k string) (string, bool) {
				if k == name {
					return "1", true
				}
				return "", false
			}
			r := f.run("--message", "Ship v2?")
			f.expectCode(r, lifecycle.ExitHeadless)
			if want := "the terminal was not asked: turned off by " + name + "=1 in the environment"; !strings.Contains(r.stderr, want) {
				t.Fatalf("exit 4 does not say why the terminal was not asked (%q):\n%s", want, r.stderr)
			}
			r = f.run("--if-headless", "deny", "--message", "Ship v2?")
			f.expectCode(r, lifecycle.ExitDenied)
			if p.asks() != 0 || p.opened != 0 {
				t.Fatalf("%s=1: terminal opened %d times, asked %d times; want neither", name, p.opened, p.asks())
			}
		})
	}
}

// Which variables turn the terminal prompt off, and which values of CI
// do not.
func TestTerminalOffBy(t *testing.T) {
	for env, off := range map[string]bool{
		"":                          false,
		"CI=true":                   true,
		"CI=1":                      true,
		"CI=false":                  false,
		"CI=0":                      false,
		"CI=FALSE":                  false,
		"CI=False":                  false,
		"CLAUDECODE=1":              true,
		"ASK_CONFIRM_NO_TERMINAL=1": true,
		"ASK_CONFIRM_NO_TERMINAL=":  true, // set, though empty: off, as documented
		"CI=":                       false,
		"CLAUDECODE=":               false,
		"GITHUB_ACTIONS=true":       false,
	} {
		k, v, _ := strings.Cut(env, "=")
		got := terminalOffBy(func(name string) (string, bool) {
			if name == k {
				return v, true
			}
			return "", false
		})
		if (got != "") != off || (off && !strings.Contains(got, k)) {
			t.Errorf("%q: terminalOffBy = %q, want off %v", env, got, off)
		}
	}
}

// The environment table says which values turn the terminal prompt off,
// as terminalOffBy reads them: ASK_CONFIRM_NO_TERMINAL set to an empty
// value too (once documented as "any value" while an empty one left the
// prompt on).
func TestDocsSayWhatTurnsTheTerminalOff(t *testing.T) {
	rows, err := mdtable.Rows("../docs/trust-and-files.md", "## Environment variables")
	if err != nil {
		t.Fatal(err)
	}
	emptyOff := terminalOffBy(func(name string) (string, bool) { return "", name == "ASK_CONFIRM_NO_TERMINAL" }) != ""
	for _, row := range rows {
		if mdtable.Code(row[0]) != "ASK_CONFIRM_NO_TERMINAL" {
			continue
		}
		if says := strings.Contains(row[1], "an empty one too"); says != emptyOff {
			t.Errorf("the table says %q; an empty value turns the prompt off: %v", row[1], emptyOff)
		}
		return
	}
	t.Fatal("docs/trust-and-files.md has no row for ASK_CONFIRM_NO_TERMINAL")
}

// CI and CLAUDECODE set but empty count as unset, as terminalOffBy reads
// them, and every place that lists them says so: the environment table,
// docs/terminal.md and help terminal (they once read as if any value,
// an empty one too, turned the prompt off).
func TestDocsSayAnEmptyCIIsUnset(t *testing.T) {
	rows, err := mdtable.Rows("../docs/trust-and-files.md", "## Environment variables")
	if err != nil {
		t.Fatal(err)
	}
	terminalDoc, err := os.ReadFile("../docs/terminal.md")
	if err != nil {
		t.Fatal(err)
	}
	topic := strings.Join(strings.Fields(topicTerminal), " ")
	for _, name := range []string{"CI", "CLAUDECODE"} {
		if terminalOffBy(func(n string) (string, bool) { return "", n == name }) != "" {
			t.Fatalf("%s= turns the terminal off", name)
		}
		said := false
		for _, row := range rows {
			if mdtable.Code(row[0]) == name {
				said = strings.HasPrefix(row[1], "set and not empty (an empty one counts as unset)")
			}
		}
		if !said {
			t.Errorf("docs/trust-and-files.md's row for %s does not say an empty one counts as unset", name)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(terminalDoc)), " "), "`"+name+"` (set and not empty") {
			t.Errorf("docs/terminal.md does not say %s counts only set and not empty", name)
		}
		if !strings.Contains(topic, name+" (set and not empty") {
			t.Errorf("help terminal does not say %s counts only set and not empty", name)
		}
	}
}
