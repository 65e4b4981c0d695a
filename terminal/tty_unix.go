//go:build unix

package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ttyDevice is the controlling terminal, /dev/tty, opened for the prompt.
// Its descriptor stays in blocking mode, outside Go's poller: raw mode
// sets VMIN 0 and VTIME 1, so a read returns what was typed or, after a
// tenth of a second, nothing, and the prompt can redraw its countdown and
// notice its deadline without a thread blocked on the terminal forever.
type ttyDevice struct {
	wallClock
	fd int
	// zeros counts reads in a row that returned nothing at once: a
	// terminal that hung up reads as empty without waiting.
	zeros int
}

func open() (*Terminal, error) {
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: "+msgNoTTY, ErrNoTerminal, err)
	}
	std, rdev, ok := personsStream()
	if !ok {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: "+msgNotOnStdio, ErrNoTerminal, "/dev/tty")
	}
	if fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || fg != unix.Getpgrp() {
		// Run in the background (cmd &, or left behind by a wrapper that
		// exited): the person's keys go to the foreground job, and a
		// prompt here would be stopped, or leave the terminal raw under
		// the shell.
		unix.Close(fd)
		return nil, fmt.Errorf("%w: "+msgBackground, ErrNoTerminal, "/dev/tty")
	}
	d := &ttyDevice{fd: fd}
	return &Terminal{
		dev:    d,
		close:  func() error { return unix.Close(fd) },
		name:   ttyName(std),
		lockID: lockName(rdev),
	}, nil
}

// personsStream returns the first of stdin, stdout and stderr that is this
// process's controlling terminal, and the terminal's device number; ok is
// false when none is. A program that runs ask-confirm with all three on
// pipes or files (an agent's shell tool, a CI runner started from a
// terminal) is not a person typing at it, even though the terminal is
// still its controlling one. tcgetpgrp fails with ENOTTY on anything but
// the caller's controlling terminal, the master side of its pseudo
// terminal included.
func personsStream() (fd int, rdev uint64, ok bool) {
	for fd := 0; fd <= 2; fd++ {
		var st unix.Stat_t
		if _, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err != nil || unix.Fstat(fd, &st) != nil {
			continue
		}
		return fd, uint64(st.Rdev), true
	}
	return -1, 0, false
}

// lockName names the lock file of the terminal with device number rdev.
func lockName(rdev uint64) string { return fmt.Sprintf("tty-%x", rdev) }

func (d *ttyDevice) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Write(d.fd, p[n:])
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

func (d *ttyDevice) read(p []byte) (int, error) {
	start := time.Now()
	n, err := unix.Read(d.fd, p)
	switch {
	case err == unix.EINTR || err == unix.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, err
	case n > 0 || time.Since(start) >= readTick/4:
		d.zeros = 0
		return n, nil
	}
	if d.zeros++; d.zeros >= 3 {
		return 0, errors.New(msgTTYHangup)
	}
	return 0, nil
}

func (d *ttyDevice) raw() (func() error, error) {
	old, err := unix.IoctlGetTermios(d.fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	// ISIG off: Ctrl-C and Ctrl-\ are keys, not signals. Output processing
	// stays on, unlike cfmakeraw: a newline still starts a new line.
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 0
	t.Cc[unix.VTIME] = uint8(readTick / (100 * time.Millisecond))
	// The flushing variant: what was typed before the prompt is
	// discarded, as sudo does.
	if err := unix.IoctlSetTermios(d.fd, ioctlSetTermiosFlush, &t); err != nil {
		return nil, err
	}
	return func() error { return unix.IoctlSetTermios(d.fd, ioctlSetTermios, old) }, nil
}

func (d *ttyDevice) discard() error { return discardInput(d.fd) }

func (d *ttyDevice) width() int {
	w, _, err := term.GetSize(d.fd)
	if err != nil {
		return 0
	}
	return w
}

func (d *ttyDevice) height() int {
	_, h, err := term.GetSize(d.fd)
	if err != nil {
		return 0
	}
	return h
}

// onSignal calls restore when a signal that ends the process arrives while
// the prompt is shown, and then lets the signal end the process as it
// would have: a killed prompt leaves the terminal as it found it. Signals
// the process ignores stay ignored (bash starts background jobs with
// SIGINT ignored). stop ends the watch.
func onSignal(restore func()) (stop func()) {
	var sigs []os.Signal
	for _, s := range []os.Signal{unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-c:
			restore()
			signal.Reset(s)
			_ = unix.Kill(os.Getpid(), s.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}
