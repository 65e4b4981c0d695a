// Package terminal asks a person on the terminal that ran the command,
// where no dialog can be shown: over SSH, on a Linux console, in
// docker run -it. It is a way of asking (a dialog.Backend) that the
// command line hands the request engine as a lifecycle.Channel named
// ChannelName, so a terminal answer has the identity, store, history and
// exit codes of any other.
//
// The prompt is written to the terminal itself (/dev/tty on Unix, the
// console's CONIN$ and CONOUT$ on Windows), never to stdout, so that
// out=$(ask-confirm --json ...) still captures only the outcome. What it
// shows is rendered by pure functions (render.go) that let no control
// character reach the terminal, and what is typed is read as keys by pure
// functions (keys.go); only opening the terminal and switching its mode
// differ by OS.
package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
)

// ChannelName names the terminal prompt in the store, the history and
// ask-confirm list, and in the request's identity (dialog.Request.Via).
const ChannelName = "terminal"

// ErrNoTerminal is returned (wrapped, with the reason) by Open when no
// person can be asked on a terminal here: the process has no controlling
// terminal (a daemon, cron, CI, a detached holder), or none of its
// standard streams is that terminal (a program that runs ask-confirm with
// every stream on a pipe, as an agent's shell tool does).
var ErrNoTerminal = errors.New("no terminal to ask on")

// guard is how long after the prompt appears its keys are ignored, apart
// from Ctrl-C and Ctrl-D, which still cancel once it has passed: a key
// pressed sooner was meant for something else (a previous prompt, the
// shell), since no person reads a question that fast. What was typed
// before the prompt appeared is discarded unread.
const guard = 400 * time.Millisecond

// settle is how long the keyboard must stay quiet around an Enter pressed
// alone, which answers with the request's default, before that Enter
// counts: a key within it of another is a key held down or text pasted,
// and neither is a person's answer. A held key repeats 2 to 50 times a
// second at the settings keyboards offer (Windows' slowest is about 2.5 a
// second), and starts repeating 250 ms to 1 s after the press, so even
// the first repeat of a key pressed before the prompt appeared can come
// after guard; the quiet after it is what tells it from a press.
const settle = 600 * time.Millisecond

// readTick is about how long one read of the terminal waits for a key:
// how often the prompt looks at its deadline and redraws its countdown.
const readTick = 100 * time.Millisecond

// device is a terminal as the prompt uses it. The OS files implement it on
// a real terminal; the tests implement it with scripted bytes.
type device interface {
	// Write shows text, which is always rendered and inert.
	io.Writer
	// read returns what was typed since the last call, waiting up to about
	// readTick for it: 0 bytes and no error when nothing was typed. An
	// error means the terminal is gone.
	read(p []byte) (int, error)
	// raw switches to the prompt's mode: keys are read one by one without
	// echo or line editing, and Ctrl-C and Ctrl-D arrive as keys rather
	// than as a signal or an end of file. What was typed before is
	// discarded. restore switches back, and may be called more than once.
	raw() (restore func() error, err error)
	// discard drops what was typed and not read yet.
	discard() error
	// width is the terminal's width in columns, or 0 when unknown.
	width() int
	// height is the terminal's height in rows, or 0 when unknown.
	height() int
	// now is the time, by which keys are timed against guard and settle.
	now() time.Time
}

// wallClock times a device's keys by the system's clock.
type wallClock struct{}

func (wallClock) now() time.Time { return time.Now() }

// Terminal is the terminal a person runs ask-confirm from, open for
// asking.
type Terminal struct {
	dev    device
	close  func() error
	name   string
	lockID string

	// turn is the terminal's lock, once a prompt has taken it: kept until
	// Close, so that the next prompt on the terminal waits until this
	// invocation has printed its outcome too.
	mu   sync.Mutex
	turn platform.Lock
}

// Open opens the controlling terminal of this process for asking, after
// checking that a person is typing at it: one of stdin, stdout and stderr
// must be that terminal. It fails with an error wrapping ErrNoTerminal
// that says why not.
func Open() (*Terminal, error) { return open() }

// Close lets the next prompt on the terminal have it, and closes it. A
// prompt must have ended first.
func (t *Terminal) Close() error {
	t.mu.Lock()
	if t.turn != nil {
		t.turn.Release()
		t.turn = nil
	}
	t.mu.Unlock()
	return t.close()
}

// PromptShown reports whether another invocation's prompt is on this
// terminal now (it holds the terminal's lock in lockDir, as Backend's
// prompts do): a caller waiting for an answer must then leave the
// terminal's lines to it.
func (t *Terminal) PromptShown(lockDir string) bool {
	t.mu.Lock()
	ours := t.turn != nil
	t.mu.Unlock()
	if ours {
		return false
	}
	held, err := platform.LockHeld(filepath.Join(lockDir, t.lockID+".lock"))
	return held || err != nil
}

// Name names the terminal for a person: /dev/pts/3, or the console.
func (t *Terminal) Name() string { return t.name }

// Backend returns the way of asking on t: a prompt, which waits until no
// other ask-confirm prompt is open on the same terminal (each holds a lock
// file in lockDir, named after the terminal, while it is shown), so two
// prompts never interleave.
//
// Its Ask shows the request and reads the answer. A confirmation reads a
// line: y or yes approves, a approves for the request's ApproveFor, Enter
// alone presses the default button (Cancel, or Approve with
// DefaultApprove), anything else denies. A choice reads option numbers; an
// input, a line of text. Ctrl-C and Ctrl-D cancel. Ask returns an Answer
// without Approved for a denial or a cancel, ctx's error when ctx ends
// first (the prompt says so and closes), and any other error when the
// terminal failed. On Unix, a signal that ends the process while the
// prompt is shown (SIGINT, SIGTERM, SIGHUP, SIGQUIT) restores the
// terminal's mode first.
func (t *Terminal) Backend(lockDir string) dialog.Backend {
	return &prompt{t: t, lockDir: lockDir, guard: guard}
}

// prompt is the Backend of one terminal.
type prompt struct {
	t       *Terminal
	lockDir string
	guard   time.Duration
}

// Ask implements dialog.Backend.
func (p *prompt) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if err := p.waitTurn(ctx); err != nil {
		return dialog.Answer{}, err
	}
	restore, err := p.t.dev.raw()
	if err != nil {
		return dialog.Answer{}, fmt.Errorf(msgTTYMode, err)
	}
	var once sync.Once
	restoreOnce := func() { once.Do(func() { _ = restore() }) }
	// A signal that ends the process ends the prompt's line first, so the
	// shell's next words ("Terminated") start a line of their own.
	stop := onSignal(func() {
		_, _ = io.WriteString(p.t.dev, newline)
		restoreOnce()
	})
	defer stop()
	defer restoreOnce()
	return converse(ctx, p.t.dev, r, p.guard)
}

// waitTurn takes the terminal's lock, unless this invocation holds it
// already (a prompt shown again), waiting while another invocation holds
// it, until ctx ends. The lock is kept until Terminal.Close.
func (p *prompt) waitTurn(ctx context.Context) error {
	p.t.mu.Lock()
	held := p.t.turn != nil
	p.t.mu.Unlock()
	if held {
		return nil
	}
	path := filepath.Join(p.lockDir, p.t.lockID+".lock")
	for {
		l, ok, err := platform.TryLock(path)
		if err != nil {
			return fmt.Errorf(msgTerminalLock, err)
		}
		if ok {
			p.t.mu.Lock()
			p.t.turn = l
			p.t.mu.Unlock()
			return nil
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-platform.LockReleased(path):
		case <-t.C:
		}
		t.Stop()
	}
}

// converse shows r on dev and reads its answer, as Backend's Ask
// describes, once dev is in raw mode. When a key counts is timing's to
// say, with guard the time after the prompt appears in which keys are no
// answer; converse reads the keys and draws.
func converse(ctx context.Context, dev device, r dialog.Request, guard time.Duration) (dialog.Answer, error) {
	closes, _ := ctx.Deadline()
	q := newQuestion(r)
	// The countdown reads the device's clock, as the keys' times do.
	left := func() time.Duration {
		if closes.IsZero() {
			return -1
		}
		return max(0, closes.Sub(dev.now()))
	}
	var scr screen
	width := dev.width()
	// The prompt's rows are under the text, on the screen with it.
	room := dialog.Terminal(width, dev.height()).Less(strings.Join(q.rows(left(), width), "\n"))
	text, whole := header(r, closes, dev.now(), room)
	if !whole {
		// A message too long to show whole is denied by a bare Enter.
		q.r.DefaultApprove = false
	}
	if _, err := io.WriteString(dev, freshLine(width)+text+scr.draw(q.rows(left(), width), width)); err != nil {
		return dialog.Answer{}, fmt.Errorf(msgTTYWrite, err)
	}
	// Whatever was typed while the prompt was being drawn was not typed
	// for it.
	_ = dev.discard()
	t := newTiming(dev.now().Add(guard))
	end := func(ending string) {
		width := dev.width()
		_, _ = io.WriteString(dev, scr.draw(q.finalRows(ending, width), width)+newline)
	}
	var dec decoder
	var cancelKey key // the last cancel typed, for the ending
	buf := make([]byte, 256)
	for {
		if err := ctx.Err(); err != nil {
			var closed *dialog.Closed
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				end(endTimedOut)
			case errors.As(context.Cause(ctx), &closed) && closed.What != "":
				// Answered another way (the phone), or closed for a
				// reason the person should read, not "without an answer".
				end(" (" + inert(lowerFirst(closed.What), false) + ")")
			default:
				end(endClosed)
			}
			return dialog.Answer{}, err
		}
		if t.cancelDue(dev.now()) {
			end(cancelEnding(cancelKey))
			return dialog.Answer{}, nil
		}
		n, err := dev.read(buf)
		if err != nil {
			end(endClosed)
			return dialog.Answer{}, fmt.Errorf(msgTTYRead, err)
		}
		at := dev.now()
		keys := dec.feed(buf[:n])
		if n == 0 {
			keys = append(keys, dec.idle()...)
		}
		for _, k := range keys {
			if k.kind == keyCancel {
				cancelKey = k
			}
		}
		if ans, done, ending := answerOf(t, q, keys, at); done {
			end(ending)
			return ans, nil
		}
		width := dev.width()
		if d := scr.draw(q.rows(left(), width), width); d != "" {
			if _, err := io.WriteString(dev, d); err != nil {
				return dialog.Answer{}, fmt.Errorf(msgTTYWrite, err)
			}
		}
	}
}

// answerOf takes keys, read at at, through t to q, and returns the answer
// they give, if any, with the prompt's ending.
func answerOf(t *timing, q *question, keys []key, at time.Time) (ans dialog.Answer, done bool, ending string) {
	// A read returns as soon as a key comes, so one read after settle has
	// passed saw none come within it. A cancel read with it still wins:
	// the prompt looked open.
	if ans, ok := t.settled(at); ok {
		if i := slices.IndexFunc(keys, func(k key) bool { return k.kind == keyCancel }); i >= 0 {
			return dialog.Answer{}, true, cancelEnding(keys[i])
		}
		return ans, true, ""
	}
	for _, k := range keys {
		st := t.key(k, at)
		switch st {
		case stepIgnore:
			continue
		case stepHeld:
			q.note = noteHeld
			continue
		case stepVoid:
			q.note = noteVoid
			if k.kind == keyEnter {
				q.note = noteVoidEnded
			}
			continue
		}
		ans, done := q.key(k)
		switch {
		case !done:
		case k.kind == keyCancel:
			return ans, true, cancelEnding(k)
		case st == stepKeyAlone:
			t.wait(ans, at)
		default:
			return ans, true, ""
		}
	}
	return dialog.Answer{}, false, ""
}

// cancelEnding is how the prompt line ends after k, a cancel: as it was
// typed.
func cancelEnding(k key) string {
	switch k.r {
	case ctrlD:
		return endCtrlD
	case esc:
		return endEsc
	}
	return endCancelled
}

// lowerFirst lowers s's first letter, for a sentence set in parentheses.
func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
