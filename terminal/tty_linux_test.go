package terminal

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// openPTY opens a pseudo terminal pair with /dev/ptmx, not as this
// process's controlling terminal: master is the side a terminal emulator
// (or tmux) holds, slave the side a program reads.
func openPTY(t *testing.T) (master, slave int) {
	t.Helper()
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo terminals here: %v", err)
	}
	t.Cleanup(func() { unix.Close(master) })
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	slave, err = unix.Open("/dev/pts/"+strconv.Itoa(int(n)), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("opening the pty's slave: %v", err)
	}
	t.Cleanup(func() { unix.Close(slave) })
	return master, slave
}

// ptyTerminal is a Terminal on a fresh pseudo terminal, with the master
// side a test types on and reads the screen from.
func ptyTerminal(t *testing.T, lockID string) (master int, tm *Terminal) {
	t.Helper()
	master, slave := openPTY(t)
	return master, &Terminal{dev: &ttyDevice{fd: slave}, close: func() error { return nil }, name: "pty", lockID: lockID}
}

// ptyAnswer is what a prompt's Ask returned.
type ptyAnswer struct {
	approved bool
	err      error
}

// askAsync asks b in the background; the channel receives its answer.
func askAsync(ctx context.Context, b dialog.Backend, r dialog.Request) <-chan ptyAnswer {
	done := make(chan ptyAnswer, 1)
	go func() {
		ans, err := b.Ask(ctx, r)
		done <- ptyAnswer{ans.Approved, err}
	}()
	return done
}

// readMaster collects what the program wrote to the terminal, until want
// shows up or 30 s pass: it shows in milliseconds, and a program that never
// shows it fails the test however long it is given.
func readMaster(t *testing.T, master int, got *strings.Builder, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it showed %q", want, got.String())
		}
		fds := []unix.PollFd{{Fd: int32(master), Events: unix.POLLIN}}
		if n, _ := unix.Poll(fds, 100); n <= 0 {
			continue
		}
		n, err := unix.Read(master, buf)
		if err != nil {
			t.Fatalf("reading the pty's master: %v", err)
		}
		got.Write(buf[:n])
	}
}

// The real device on a real (pseudo) terminal: raw mode discards what was
// typed ahead, reads keys one by one without echo and Ctrl-C as a key,
// returns nothing after a tick when nothing was typed, and restore puts
// the terminal's mode back as it was.
func TestTTYDeviceOnAPseudoTerminal(t *testing.T) {
	master, slave := openPTY(t)
	d := &ttyDevice{fd: slave}
	before, err := unix.IoctlGetTermios(slave, ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(master, []byte("typed ahead")); err != nil {
		t.Fatal(err)
	}
	// The kernel hands what the master wrote to the terminal's line
	// discipline later, on a worker of its own: once it has, the echo can
	// be read back from the master.
	fds := []unix.PollFd{{Fd: int32(master), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 30000); n != 1 || err != nil {
		t.Fatalf("the typeahead was never echoed: %d, %v", n, err)
	}
	restore, err := d.raw()
	if err != nil {
		t.Fatalf("raw: %v", err)
	}
	buf := make([]byte, 64)
	start := time.Now()
	if n, err := d.read(buf); n != 0 || err != nil {
		t.Fatalf("read after raw: %q, %v; want the typeahead discarded", buf[:n], err)
	}
	if took := time.Since(start); took < readTick/2 {
		t.Errorf("an empty read returned after %s, not after about %s", took, readTick)
	}
	if _, err := unix.Write(master, []byte("y\x03")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for deadline := time.Now().Add(2 * time.Second); len(got) < 2 && time.Now().Before(deadline); {
		n, err := d.read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "y\x03" {
		t.Fatalf("raw read %q, want y and Ctrl-C as bytes", got)
	}
	if _, err := unix.Write(master, []byte("late")); err != nil {
		t.Fatal(err)
	}
	// Raw, no echo: the input queue says when the bytes have come.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if n, err := unix.IoctlGetInt(slave, unix.TIOCINQ); err == nil && n >= len("late") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bytes written late never reached the terminal's input queue")
		}
	}
	if err := d.discard(); err != nil {
		t.Fatalf("discard: %v", err)
	}
	if n, _ := d.read(buf); n != 0 {
		t.Fatalf("read after discard: %q", buf[:n])
	}
	if err := restore(); err != nil {
		t.Fatalf("restore: %v", err)
	}
	after, err := unix.IoctlGetTermios(slave, ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Cc != before.Cc {
		t.Fatalf("restore left the mode changed: lflag %#x -> %#x, iflag %#x -> %#x", before.Lflag, after.Lflag, before.Iflag, after.Iflag)
	}
	if err := unix.IoctlSetWinsize(slave, unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 97}); err == nil && d.width() != 97 {
		t.Errorf("width %d, want 97", d.width())
	}
}

// The whole prompt on a pseudo terminal, typed as a person types: the
// question appears, a y typed before it is dropped, and y Enter after it
// approves.
func TestPromptOnAPseudoTerminal(t *testing.T) {
	master, tm := ptyTerminal(t, "tty-test")
	dir := t.TempDir()
	if _, err := unix.Write(master, []byte("y\r")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := tm.Backend(dir).(*prompt)
	p.guard = 100 * time.Millisecond
	done := askAsync(ctx, p, confirmRequest())
	var out strings.Builder
	readMaster(t, master, &out, "[y/N] ")
	select {
	case r := <-done:
		t.Fatalf("the prompt ended before it was answered: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := unix.Write(master, []byte("y\r")); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !r.approved {
		t.Fatalf("y Enter: %+v", r)
	}
	// Output processing stays on in raw mode: the terminal turns the
	// prompt's CR LF into CR CR LF, which shows the same.
	readMaster(t, master, &out, "[y/N] y\r\r\n")
	checkInert(t, out.String())
	if _, err := os.Stat(dir + "/tty-test.lock"); err != nil {
		t.Errorf("the prompt held no terminal lock: %v", err)
	}
}

// Enter held down at a real (pseudo) terminal, from before the prompt
// appeared to well after its guard, presses no default button: the keys
// arrive through raw mode as a person's would, timed by the wall clock,
// and the prompt still waits once they stop. Ctrl-C then cancels.
//
// A machine that stalls the key writer for half of settle or more has let
// go of the key for a moment, and that attempt proves nothing either way;
// it is run again, up to heldAttempts times: a loaded machine stalls a
// writer now and then, not for a minute on end.
func TestHeldEnterOnAPseudoTerminal(t *testing.T) {
	const heldAttempts = 20
	for attempt := 1; ; attempt++ {
		gap := holdEnter(t)
		if gap < writerStall {
			return
		}
		if attempt == heldAttempts {
			t.Fatalf("the key writer stalled for %v in each of %d attempts; this machine is too loaded to hold a key", gap, heldAttempts)
		}
		t.Logf("attempt %d: the key writer stalled for %v; holding the key again", attempt, gap)
	}
}

// The key's repeat, and the pause in it that counts as the writer stalling:
// half of settle, and never as short as a few repeats.
const (
	keyRepeat   = 33 * time.Millisecond
	writerStall = max(settle/2, 5*keyRepeat)
)

// holdEnter holds Enter at a fresh pseudo terminal's prompt and checks
// what the prompt made of it, unless the writer stalled: it returns the
// longest gap between two of its keys.
func holdEnter(t *testing.T) time.Duration {
	master, tm := ptyTerminal(t, "tty-held")
	r := confirmRequest()
	r.DefaultApprove = true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var gap time.Duration
	held := make(chan struct{})
	go func() {
		// A key repeating 30 times a second for 1.5 s.
		defer close(held)
		var last time.Time
		for range int(1500 * time.Millisecond / keyRepeat) {
			if _, err := unix.Write(master, []byte("\r")); err != nil {
				return
			}
			now := time.Now()
			if !last.IsZero() {
				gap = max(gap, now.Sub(last))
			}
			last = now
			time.Sleep(keyRepeat)
		}
	}()
	done := askAsync(ctx, tm.Backend(t.TempDir()), r)
	var out strings.Builder
	readMaster(t, master, &out, "[Y/n] ")
	<-held
	if gap >= writerStall {
		cancel()
		<-done
		return gap
	}
	select {
	case res := <-done:
		t.Fatalf("a held Enter answered: %+v; the terminal showed %q", res, out.String())
	case <-time.After(2 * settle):
	}
	readMaster(t, master, &out, noteHeld)
	if _, err := unix.Write(master, []byte("\x03")); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.err != nil || res.approved {
		t.Fatalf("Ctrl-C after the held Enter: %+v", res)
	}
	return gap
}
