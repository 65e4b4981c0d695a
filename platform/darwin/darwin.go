//go:build darwin

// Package darwin holds the macOS bodies behind package platform.
package darwin

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// MarkInheritedCloseOnExec sets close-on-exec on every descriptor from 3 up.
// macOS has no close_range, so it walks /dev/fd.
func MarkInheritedCloseOnExec() error {
	entries, err := os.ReadDir("/dev/fd")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= 3 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

// GUISession reports whether this process can reach a logged-in Aqua
// session. A plain SSH login cannot show a dialog on the console.
func GUISession() (ok bool, reason string) {
	if os.Getenv("SSH_CONNECTION") != "" && os.Getenv("DISPLAY") == "" && os.Getenv("TERM_PROGRAM") == "" {
		return false, "this is an SSH session without a GUI: no one at the console can be asked from here"
	}
	return true, ""
}
