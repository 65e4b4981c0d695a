//go:build linux

// Package linux holds the Linux bodies behind package platform.
package linux

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// MarkInheritedCloseOnExec sets close-on-exec on every descriptor from 3 up,
// so none of them reaches a child we start.
func MarkInheritedCloseOnExec() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	// Kernels before 5.11 lack CLOSE_RANGE_CLOEXEC: walk the table instead.
	entries, err := os.ReadDir("/proc/self/fd")
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

// dialogPrograms is the order in which github.com/ncruces/zenity looks for a
// dialog program.
var dialogPrograms = []string{"qarma", "zenity", "matedialog"}

// DialogProgram returns the dialog program the zenity library will run, and
// its path, or empty strings if none is on PATH.
func DialogProgram() (name, path string) {
	for _, p := range dialogPrograms {
		if path, err := exec.LookPath(p); err == nil {
			return p, path
		}
	}
	return "", ""
}

// Display reports whether a Wayland or X11 display is reachable in the
// environment getenv describes. It connects to the display's socket rather
// than trusting the variables: GNOME zenity exits 1 when it cannot open the
// display, which would look like a person pressing Cancel.
func Display(getenv func(string) string) (ok bool, reason string) {
	if w := getenv("WAYLAND_DISPLAY"); w != "" {
		path := w
		if !filepath.IsAbs(w) {
			path = filepath.Join(getenv("XDG_RUNTIME_DIR"), w)
		}
		if reachable("unix", path) {
			return true, ""
		}
		if getenv("DISPLAY") == "" {
			return false, fmt.Sprintf("WAYLAND_DISPLAY=%s does not answer at %s", w, path)
		}
	}
	d := getenv("DISPLAY")
	if d == "" {
		return false, "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
	}
	network, addr, err := XAddress(d)
	if err != nil {
		return false, err.Error()
	}
	if reachable(network, addr) || (network == "unix" && reachable("unix", "@"+addr)) {
		return true, ""
	}
	return false, fmt.Sprintf("DISPLAY=%s does not answer at %s", d, addr)
}

// XAddress turns an X11 display name ([host]:display[.screen], or a socket
// path followed by :display) into the network and address to dial.
func XAddress(display string) (network, addr string, err error) {
	colon := strings.LastIndexByte(display, ':')
	if colon < 0 {
		return "", "", fmt.Errorf("DISPLAY=%q is not of the form [host]:number", display)
	}
	host, num := display[:colon], display[colon+1:]
	if dot := strings.IndexByte(num, '.'); dot >= 0 {
		num = num[:dot]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 65535-6000 {
		return "", "", fmt.Errorf("DISPLAY=%q has no valid display number", display)
	}
	switch {
	case strings.HasPrefix(host, "/"):
		return "unix", host + ":" + num, nil
	case host == "" || host == "unix":
		return "unix", "/tmp/.X11-unix/X" + num, nil
	default:
		return "tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)), nil
	}
}

func reachable(network, addr string) bool {
	c, err := net.DialTimeout(network, addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
