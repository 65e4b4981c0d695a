package terminal

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The termios requests; TCSETSF waits for output and discards input.
const (
	ioctlGetTermios      = unix.TCGETS
	ioctlSetTermios      = unix.TCSETS
	ioctlSetTermiosFlush = unix.TCSETSF
)

// discardInput drops what was typed and not read yet: tcflush(TCIFLUSH).
func discardInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }

// ttyName names the terminal open at fd as a person knows it: /dev/pts/3.
func ttyName(fd int) string {
	if name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err == nil {
		return name
	}
	return "/dev/tty"
}
