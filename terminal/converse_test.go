package terminal

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// fakeTTY is a terminal a test scripts: what was typed before the prompt
// appeared (ahead), and keys typed after it, each so long after it
// appeared by the fake's own clock. That clock moves on by fakeTick for
// every read that finds nothing due, so how the prompt times keys does not
// depend on how busy the machine running the test is.
type fakeTTY struct {
	ahead    string
	script   []typing
	drawn    bool
	clock    time.Duration // since the prompt appeared
	out      strings.Builder
	discards int
	readErr  error
	// deadline, if set, ends once the fake's clock reaches it.
	deadline *fakeDeadline
}

// fakeDeadline is a context whose deadline is on a fakeTTY's clock: it
// ends, with context.DeadlineExceeded, once a read of the fake has moved
// the clock to it.
type fakeDeadline struct {
	context.Context
	at   time.Time
	done chan struct{}
}

// withFakeDeadline gives f a context that ends after d by f's clock.
func withFakeDeadline(f *fakeTTY, d time.Duration) context.Context {
	f.deadline = &fakeDeadline{Context: context.Background(), at: f.now().Add(d), done: make(chan struct{})}
	return f.deadline
}

func (c *fakeDeadline) Deadline() (time.Time, bool) { return c.at, true }
func (c *fakeDeadline) Done() <-chan struct{}       { return c.done }

func (c *fakeDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

type typing struct {
	after time.Duration
	keys  string
}

// fakeTick is how far the fake's clock moves in a read that finds nothing;
// each such read also sleeps a millisecond, as a real one waits.
const fakeTick = 5 * time.Millisecond

// fakeEpoch is the fake's clock when its prompt appeared.
var fakeEpoch = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

func (f *fakeTTY) Write(p []byte) (int, error) {
	f.drawn = true
	return f.out.Write(p)
}

func (f *fakeTTY) now() time.Time { return fakeEpoch.Add(f.clock) }

func (f *fakeTTY) read(p []byte) (int, error) {
	if f.ahead != "" {
		n := copy(p, f.ahead)
		f.ahead = f.ahead[n:]
		return n, nil
	}
	if len(f.script) == 0 && f.readErr != nil {
		return 0, f.readErr
	}
	if !f.drawn {
		return 0, nil
	}
	// A read waits for the next key, up to fakeTick, and returns as soon
	// as it comes.
	if len(f.script) == 0 || f.clock < f.script[0].after {
		f.clock += fakeTick
	}
	if d := f.deadline; d != nil && !f.now().Before(d.at) {
		select {
		case <-d.done:
		default:
			close(d.done)
		}
	}
	if len(f.script) > 0 && f.clock >= f.script[0].after {
		n := copy(p, f.script[0].keys)
		f.script = f.script[1:]
		return n, nil
	}
	time.Sleep(time.Millisecond)
	return 0, nil
}

func (f *fakeTTY) raw() (func() error, error) { return func() error { return nil }, nil }

func (f *fakeTTY) discard() error {
	f.discards++
	f.ahead = ""
	return nil
}

func (f *fakeTTY) width() int  { return 120 }
func (f *fakeTTY) height() int { return 40 }

// talk runs one prompt for r on a fakeTTY, with no guard and a deadline a
// minute away by the fake's clock, typing each of keys in turn once the prompt has appeared.
func talk(t *testing.T, r dialog.Request, keys ...string) (dialog.Answer, error, string) {
	t.Helper()
	f := &fakeTTY{}
	for i, k := range keys {
		f.script = append(f.script, typing{time.Duration(i) * 10 * time.Millisecond, k})
	}
	ans, err := converse(withFakeDeadline(f, time.Minute), f, r, 0)
	checkInert(t, f.out.String())
	return ans, err, f.out.String()
}

// The keys of the table, through the whole prompt: only y and yes
// approve; Enter is the default button; Ctrl-C, Ctrl-D, n and anything
// else deny, with no error (exit 1, never 0).
func TestConverseConfirm(t *testing.T) {
	cases := []struct {
		keys           string
		defaultApprove bool
		approved       bool
		lastLine       string
	}{
		{"y\r", false, true, "Approve (y) or Cancel (n)? [y/N] y\r\n"},
		{"yes\r", false, true, "[y/N] yes\r\n"},
		{"Y\r", false, true, "[y/N] Y\r\n"},
		{"n\r", false, false, "[y/N] n\r\n"},
		{"\r", false, false, "[y/N] \r\n"},
		{"\r", true, true, "[Y/n] \r\n"},
		{"n\r", true, false, "[Y/n] n\r\n"},
		{"\x03", false, false, "[y/N] ^C\r\n"},
		{"\x03", true, false, "[Y/n] ^C\r\n"},
		{"\x04", true, false, "[Y/n] ^D\r\n"},
		{"whatever\r", false, false, "[y/N] whatever\r\n"},
		{"\x1b[A\r", true, true, "[Y/n] \r\n"},
	}
	for _, c := range cases {
		r := confirmRequest()
		r.DefaultApprove = c.defaultApprove
		ans, err, out := talk(t, r, c.keys)
		if err != nil || ans.Approved != c.approved {
			t.Errorf("keys %q (default approve %v): %+v, %v; want approved %v", c.keys, c.defaultApprove, ans, err, c.approved)
		}
		if !strings.HasSuffix(out, c.lastLine) {
			t.Errorf("keys %q: output ends %q, want %q", c.keys, out[max(0, len(out)-60):], c.lastLine)
		}
	}
}

func TestConverseChooseAndInput(t *testing.T) {
	other := chooseRequest()
	other.Other = true
	withDefault := inputRequest()
	withDefault.Text = "v2"
	cases := []struct {
		name string
		r    dialog.Request
		keys []string
		want dialog.Answer
		says []string
	}{
		{"choose a number", chooseRequest(), []string{"2\r"}, dialog.Answer{Approved: true, Values: []string{"production"}},
			[]string{"  1) staging — the staging cluster\r\n", "  2) production\r\n", "Pick one of 1-3 and press Enter: 2\r\n"}},
		{"choose after a wrong number", chooseRequest(), []string{"5\r", "1\r"}, dialog.Answer{Approved: true, Values: []string{"staging"}},
			[]string{`"5" is not one of 1-3. Pick one of 1-3`}},
		{"choose Other and type", other, []string{"4\r", "mine\r"}, dialog.Answer{Approved: true, Values: []string{"mine"}, Typed: true},
			[]string{"  4) Other…\r\n", "Your own answer, Enter for OK, Ctrl-C for Cancel: mine\r\n"}},
		{"cancel a choice", chooseRequest(), []string{"\x03"}, dialog.Answer{}, []string{"^C\r\n"}},
		{"input with its default edited", withDefault, []string{"\x7f3\r"}, dialog.Answer{Approved: true, Values: []string{"v3"}},
			[]string{"Type your answer, Enter for OK, Ctrl-C for Cancel: v2", "Cancel: v3\r\n"}},
		{"input ignores arrow keys, without echoing them", withDefault, []string{"\x1b[D\x1b[C", ".1\r"}, dialog.Answer{Approved: true, Values: []string{"v2.1"}},
			[]string{"Cancel: v2.1\r\n"}},
		{"cancel an input", withDefault, []string{"x\x04"}, dialog.Answer{}, []string{"Cancel: v2x^D\r\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans, err, out := talk(t, c.r, c.keys...)
			if err != nil || !reflect.DeepEqual(ans, c.want) {
				t.Fatalf("answer %+v, %v; want %+v", ans, err, c.want)
			}
			for _, s := range c.says {
				if !strings.Contains(out, s) {
					t.Errorf("output does not say %q:\n%q", s, out)
				}
			}
		})
	}
}

// What was typed before the prompt appeared is discarded unread: a y
// typed ahead approves nothing, and the prompt waits for a real answer.
func TestConverseDiscardsTypeahead(t *testing.T) {
	r := confirmRequest()
	r.DefaultApprove = true
	f := &fakeTTY{ahead: "y\r", script: []typing{{20 * time.Millisecond, "n\r"}}}
	ans, err := converse(withFakeDeadline(f, time.Minute), f, r, 0)
	if err != nil || ans.Approved {
		t.Fatalf("typed ahead: %+v, %v; want the later n", ans, err)
	}
	if f.discards == 0 {
		t.Fatal("the prompt never discarded pending input")
	}
	if !strings.HasSuffix(f.out.String(), "[Y/n] n\r\n") {
		t.Fatalf("output %q", f.out.String())
	}
}

// Keys within the guard after the prompt appeared are ignored: a y meant
// for something else approves nothing. A Ctrl-C in it still cancels, once
// the guard has passed, so no answer comes sooner than the guard.
func TestConverseGuard(t *testing.T) {
	guard := 150 * time.Millisecond
	r := confirmRequest()
	f := &fakeTTY{script: []typing{{0, "y\r"}, {guard + 50*time.Millisecond, "n\r"}}}
	ans, err := converse(withFakeDeadline(f, time.Minute), f, r, guard)
	if err != nil || ans.Approved {
		t.Fatalf("a y within the guard: %+v, %v", ans, err)
	}

	f = &fakeTTY{script: []typing{{0, "\x03"}}}
	ans, err = converse(withFakeDeadline(f, time.Minute), f, r, guard)
	if err != nil || ans.Approved || !strings.HasSuffix(f.out.String(), "^C\r\n") {
		t.Fatalf("a Ctrl-C within the guard: %+v, %v, %q", ans, err, f.out.String())
	}
	if f.clock < guard {
		t.Fatalf("the cancel came %s after the prompt, within the guard of %s", f.clock, guard)
	}
}

// A line begun within the guard is no answer, up to and including its
// Enter, even when the Enter comes after the guard: an "n" typed too soon
// would otherwise leave its Enter to press the default button, here
// Approve. The next line answers.
func TestConverseGuardVoidsALineBegunTooSoon(t *testing.T) {
	guard := 150 * time.Millisecond
	r := confirmRequest()
	r.DefaultApprove = true
	f := &fakeTTY{script: []typing{{0, "n"}, {guard + 50*time.Millisecond, "\r"}, {guard + 150*time.Millisecond, "n\r"}}}
	if ans, err := converse(withFakeDeadline(f, time.Minute), f, r, guard); err != nil || ans.Approved {
		t.Fatalf("the Enter of a line begun within the guard pressed the default button: %+v, %v", ans, err)
	}
	// The same, for a choice whose default Enter would pick.
	c := chooseRequest()
	c.Selected = []string{c.Options[1].Label}
	f = &fakeTTY{script: []typing{{0, "1"}, {guard + 50*time.Millisecond, "\r"}, {guard + 150*time.Millisecond, "\x03"}}}
	if ans, err := converse(withFakeDeadline(f, time.Minute), f, c, guard); err != nil || ans.Approved {
		t.Fatalf("a choice: %+v, %v", ans, err)
	}
}

// requestsWithADefault are requests that Enter alone answers with
// approval: Approve as the default button, a default option, a default
// text.
func requestsWithADefault() map[string]dialog.Request {
	confirm := confirmRequest()
	confirm.DefaultApprove = true
	choose := chooseRequest()
	choose.Selected = []string{"production"}
	input := inputRequest()
	input.Text = "prod"
	return map[string]dialog.Request{"confirm": confirm, "choose": choose, "input": input}
}

// repeats is Enter sent n times, every so often from first after the
// prompt appeared, as a key held down sends it.
func repeats(first, every time.Duration, n int) []typing {
	script := make([]typing, n)
	for i := range script {
		script[i] = typing{first + time.Duration(i)*every, "\r"}
	}
	return script
}

// thenCancel is script followed by Ctrl-C at the time given.
func thenCancel(script []typing, at time.Duration) []typing {
	return append(script, typing{at, "\x03"})
}

const ms = time.Millisecond

// converseScript runs one prompt for r on a fakeTTY typing script, with
// guard and a deadline a minute away by the fake's clock.
func converseScript(r dialog.Request, guard time.Duration, script []typing) (*fakeTTY, dialog.Answer, error) {
	f := &fakeTTY{script: script}
	ans, err := converse(withFakeDeadline(f, time.Minute), f, r, guard)
	return f, ans, err
}

// An Enter held down answers nothing, though Enter alone would approve:
// its repeats run past the guard (a keyboard starts repeating 250 ms to
// 1 s after the press, so even the first of them can come after it), at
// 30 a second or at Windows' slowest, 2.5; and none of them is a person's
// answer. Nor is Enter pasted twice, or pressed twice within settle. The
// Ctrl-C that ends each script is what the prompt answers, even the one
// that comes as settle passes after an Enter alone.
func TestConverseHeldEnterIsNoAnswer(t *testing.T) {
	guard := 400 * ms
	for name, r := range requestsWithADefault() {
		for what, script := range map[string][]typing{
			"held through the guard":           thenCancel(repeats(250*ms, 33*ms, 14), 1500*ms),
			"first repeat after the guard":     thenCancel(repeats(450*ms, 33*ms, 11), 1600*ms),
			"held at the slowest repeat":       thenCancel(repeats(500*ms, 400*ms, 4), 2500*ms),
			"Enter pasted twice":               thenCancel([]typing{{500 * ms, "\r\r"}}, 1300*ms),
			"Enter twice within settle":        thenCancel(repeats(500*ms, 500*ms, 2), 1700*ms),
			"Ctrl-C just as settle has passed": thenCancel(repeats(500*ms, 0, 1), 500*ms+settle),
		} {
			t.Run(name+"/"+what, func(t *testing.T) {
				t.Parallel()
				f, ans, err := converseScript(r, guard, script)
				if err != nil || ans.Approved || !strings.HasSuffix(f.out.String(), "^C\r\n") {
					t.Fatalf("answered %+v, %v, output %q; want the Ctrl-C's no answer", ans, err, f.out.String())
				}
				if held := len(script) > 2; held && !strings.Contains(f.out.String(), noteHeld) {
					t.Fatalf("output %q: no note on the held key", f.out.String())
				}
			})
		}
	}
}

// Enter alone, pressed once, answers with the default once the keyboard
// has stayed quiet for settle after it; so does one pressed once a held
// key has been let go for settle.
func TestConverseEnterAloneAnswersOnceQuiet(t *testing.T) {
	guard := 400 * ms
	for name, r := range requestsWithADefault() {
		for what, script := range map[string][]typing{
			"pressed once":             repeats(600*ms, 0, 1),
			"pressed after a held key": append(repeats(450*ms, 33*ms, 8), typing{681*ms + settle + 100*ms, "\r"}),
		} {
			t.Run(name+"/"+what, func(t *testing.T) {
				t.Parallel()
				f, ans, err := converseScript(r, guard, script)
				if err != nil || !ans.Approved {
					t.Fatalf("answered %+v, %v; want the default", ans, err)
				}
				if last := script[len(script)-1].after; f.clock < last+settle {
					t.Fatalf("answered %s after the prompt, within settle of the Enter at %s", f.clock, last)
				}
			})
		}
	}
}

// The prompt closes when its context ends, says why, and returns the
// context's error: a deadline is the --timeout. The deadline, and the
// countdown to it, run on the fake's clock, so every second of it is
// drawn however busy the machine.
func TestConverseDeadline(t *testing.T) {
	f := &fakeTTY{}
	ans, err := converse(withFakeDeadline(f, 1200*time.Millisecond), f, confirmRequest(), 0)
	if !errors.Is(err, context.DeadlineExceeded) || ans.Approved {
		t.Fatalf("at the deadline: %+v, %v", ans, err)
	}
	out := f.out.String()
	if !strings.HasSuffix(out, "[y/N]  (no answer before --timeout)\r\n") {
		t.Fatalf("output ends %q", out)
	}
	// The countdown was redrawn in place on the prompt line.
	if !strings.Contains(out, clearToEnd+"(1s left) ") || !strings.Contains(out, clearToEnd+"(0s left) ") {
		t.Fatalf("no countdown in %q", out)
	}
	checkInert(t, out)

	f = &fakeTTY{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := converse(ctx, f, confirmRequest(), 0); !errors.Is(err, context.Canceled) || !strings.HasSuffix(f.out.String(), "(closed without an answer)\r\n") {
		t.Fatalf("closed: %v, %q", err, f.out.String())
	}

	// Answered on the phone: the prompt says so, not that it closed
	// without an answer.
	f = &fakeTTY{}
	ctx, end := context.WithCancelCause(context.Background())
	end(&dialog.Closed{What: "Approved on the phone"})
	if _, err := converse(ctx, f, confirmRequest(), 0); !errors.Is(err, context.Canceled) || !strings.HasSuffix(f.out.String(), "(approved on the phone)\r\n") {
		t.Fatalf("answered on the phone: %v, %q", err, f.out.String())
	}
}

// A terminal that fails mid-prompt fails the asking: it is an error, not
// an answer.
func TestConverseTerminalGone(t *testing.T) {
	f := &fakeTTY{readErr: errors.New(msgTTYHangup)}
	ans, err := converse(context.Background(), f, confirmRequest(), 0)
	if err == nil || ans.Approved {
		t.Fatalf("hung up: %+v, %v", ans, err)
	}
}

// Alt with a key is dropped, never the key: Alt-y and Enter is Enter
// alone, the default button (Cancel).
func TestConverseAltKeyIsNotTheKey(t *testing.T) {
	ans, err, out := talk(t, confirmRequest(), "\x1by\r")
	if err != nil || ans.Approved || !strings.HasSuffix(out, "[y/N] \r\n") {
		t.Fatalf("Alt-y and Enter: %+v, %v; output ends %q", ans, err, out[max(0, len(out)-40):])
	}
}

// Esc alone cancels, as it does in the dialog, and the line says so; Ctrl-D
// shows as ^D.
func TestConverseEscAloneCancels(t *testing.T) {
	ans, err, out := talk(t, confirmRequest(), "\x1b")
	if err != nil || ans.Approved || !strings.HasSuffix(out, "[y/N]  (Esc)\r\n") {
		t.Fatalf("Esc alone: %+v, %v; output ends %q", ans, err, out[max(0, len(out)-40):])
	}
	ans, err, out = talk(t, confirmRequest(), "\x1b[A", "y\r")
	if err != nil || !ans.Approved {
		t.Fatalf("an arrow key then y: %+v, %v; output ends %q", ans, err, out[max(0, len(out)-40):])
	}
}

// Keys on a line begun before the question appeared answer nothing, and
// the prompt says so, as they come and at their Enter; the next line
// answers.
func TestConverseSaysALineBegunTooSoonAnswersNothing(t *testing.T) {
	guard := 400 * time.Millisecond
	f := &fakeTTY{script: []typing{{200 * time.Millisecond, "y"}, {1200 * time.Millisecond, "yes"}, {1250 * time.Millisecond, "\r"}, {2500 * time.Millisecond, "y\r"}}}
	ans, err := converse(withFakeDeadline(f, time.Minute), f, confirmRequest(), guard)
	out := f.out.String()
	checkInert(t, out)
	if err != nil || !ans.Approved {
		t.Fatalf("the line after: %+v, %v", ans, err)
	}
	if !strings.Contains(out, noteVoid) || !strings.Contains(out, noteVoidEnded) {
		t.Fatalf("the prompt did not say the line answered nothing:\n%q", out)
	}
}

// A refused text is followed by a space before the prompt.
func TestConverseRefusedTextNote(t *testing.T) {
	_, _, out := talk(t, inputRequest(), "a\u200bb\r", "\x03")
	if !strings.Contains(strings.ReplaceAll(out, newline, " "), "type it again. Type your answer") {
		t.Fatalf("the note runs into the prompt:\n%q", out)
	}
}
