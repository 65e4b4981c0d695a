package terminal

import "golang.org/x/sys/unix"

// The termios requests; TIOCSETAF waits for output and discards input.
const (
	ioctlGetTermios      = unix.TIOCGETA
	ioctlSetTermios      = unix.TIOCSETA
	ioctlSetTermiosFlush = unix.TIOCSETAF
)

// fread is FREAD from <sys/fcntl.h>: TIOCFLUSH with it drops input only.
const fread = 0x1

// discardInput drops what was typed and not read yet: TIOCFLUSH(FREAD).
func discardInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }

// ttyName names the terminal open at fd; macOS has no /proc to tell which
// one it is.
func ttyName(int) string { return "/dev/tty" }
