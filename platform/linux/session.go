// This file has no build constraint: the decisions in it are pure, so their
// table tests run on every OS, while the rest of the package is Linux only.

package linux

import (
	"fmt"
	"net"
	"path"
	"strconv"
	"strings"
)

// The session kinds judge reports, as package platform names them.
const (
	kindX11      = "x11"
	kindWayland  = "wayland"
	kindWSL      = "wsl"
	kindHeadless = "headless"
)

// dialogPrograms is the order in which github.com/ncruces/zenity looks for a
// dialog program on PATH: the first one found is the one it runs.
var dialogPrograms = []string{"qarma", "zenity", "matedialog"}

// Verdict is what a Linux session offers a dialog.
type Verdict struct {
	// OK is true when a person can be asked: a dialog program and a display
	// that answers.
	OK bool
	// Kind is kindX11, kindWayland or kindWSL when a display answers, and
	// kindHeadless otherwise.
	Kind string
	// Display names the display the dialog would appear on, as the
	// environment gives it: "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0".
	Display string
	// Unreachable are the displays the environment names that do not
	// answer, each saying why: "DISPLAY=:99 does not answer at
	// /tmp/.X11-unix/X99".
	Unreachable []string
	// Reason explains OK == false; Hint says what to do about it.
	Reason, Hint string
	// Notes are facts worth knowing that do not stop a person being asked.
	Notes []string
}

// dialer reports whether something accepts a connection at addr.
type dialer func(network, addr string) bool

// isWSL reports whether this is Windows Subsystem for Linux, from the
// variables WSL sets in every process it starts, or failing those from the
// kernel's version string (the contents of /proc/version), which names
// Microsoft on WSL 1 and WSL 2 alike.
func isWSL(getenv func(string) string, procVersion string) bool {
	if getenv("WSL_DISTRO_NAME") != "" || getenv("WSL_INTEROP") != "" {
		return true
	}
	return strings.Contains(strings.ToLower(procVersion), "microsoft")
}

// judge decides whether a person can be asked, and where, in the
// environment getenv describes. wsl says whether this is WSL, program names
// the dialog program found on PATH ("" for none), and dial tells which
// display sockets answer. It trusts no variable without a connection: GNOME
// zenity exits 1 when it cannot open the display, which would look like a
// person pressing Cancel.
func judge(getenv func(string) string, wsl bool, program string, dial dialer) Verdict {
	wayland, x11 := getenv("WAYLAND_DISPLAY"), getenv("DISPLAY")
	waylandOK, x11OK, dead := probeDisplays(getenv, dial)
	var v Verdict
	var shown []string
	if waylandOK {
		shown = append(shown, "WAYLAND_DISPLAY="+wayland)
	}
	if x11OK {
		shown = append(shown, "DISPLAY="+x11)
	}
	v.Display = strings.Join(shown, ", ")
	v.Unreachable = dead
	switch {
	case wsl && (waylandOK || x11OK):
		v.Kind = kindWSL
	case waylandOK:
		v.Kind = kindWayland
	case x11OK:
		v.Kind = kindX11
	default:
		v.Kind = kindHeadless
	}
	v.Notes = displayNotes(v.Kind, wsl, waylandOK && !x11OK, dead)
	switch {
	case program == "":
		v.Reason = "no dialog program found on PATH (install zenity, qarma or matedialog)"
		v.Hint = "install zenity (Debian and Ubuntu: sudo apt-get install zenity) and run again"
	case v.Kind == kindHeadless && len(dead) == 0:
		v.Reason = "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
		v.Hint = headlessHint(wsl)
	case v.Kind == kindHeadless:
		v.Reason = strings.Join(dead, "; ")
		v.Hint = headlessHint(wsl)
	default:
		v.OK = true
	}
	return v
}

// probeDisplays reports which of the displays getenv names answer at
// their sockets, and why each other one set does not.
func probeDisplays(getenv func(string) string, dial dialer) (waylandOK, x11OK bool, dead []string) {
	if wayland := getenv("WAYLAND_DISPLAY"); wayland != "" {
		switch sock, err := waylandSocket(wayland, getenv("XDG_RUNTIME_DIR")); {
		case err != nil:
			dead = append(dead, err.Error())
		case dial("unix", sock):
			waylandOK = true
		default:
			dead = append(dead, fmt.Sprintf("WAYLAND_DISPLAY=%s does not answer at %s", wayland, sock))
		}
	}
	if x11 := getenv("DISPLAY"); x11 != "" {
		network, addr, err := xAddress(x11)
		switch {
		case err != nil:
			dead = append(dead, err.Error())
		case dial(network, addr) || (network == "unix" && dial("unix", "@"+addr)):
			x11OK = true
		default:
			dead = append(dead, fmt.Sprintf("DISPLAY=%s does not answer at %s", x11, addr))
		}
	}
	return waylandOK, x11OK, dead
}

// displayNotes is what is worth saying beside a session of kind: the
// displays set but dead, a Wayland session without X, and WSL's display.
func displayNotes(kind string, wsl, waylandOnly bool, dead []string) []string {
	var notes []string
	if kind != kindHeadless {
		// A display answers; anything else set but dead is worth a note,
		// since GTK and Qt fall back from Wayland to X11 but not the other
		// way round.
		notes = append(notes, dead...)
		if waylandOnly {
			notes = append(notes, "Wayland only, no X display: the dialog program must speak Wayland (GNOME zenity does; qarma needs Qt's Wayland platform plugin)")
		}
	}
	if wsl {
		if kind == kindWSL {
			notes = append(notes, "WSL: the dialog appears on the Windows desktop through WSLg")
		} else {
			notes = append(notes, "WSL without a display: WSLg is missing or not running")
		}
	}
	return notes
}

func headlessHint(wsl bool) string {
	if wsl {
		return "update WSL for WSLg (run 'wsl --update' in Windows, then 'wsl --shutdown'), or set DISPLAY to an X server running on Windows"
	}
	return "run ask-confirm from a terminal inside the desktop session, or set DISPLAY or WAYLAND_DISPLAY to that session's display"
}

// waylandSocket returns the socket a Wayland client connects to for
// WAYLAND_DISPLAY name: the name itself if it is a path, otherwise the name
// under XDG_RUNTIME_DIR, which must be set either way.
func waylandSocket(name, runtimeDir string) (string, error) {
	// These are Linux paths even where the tests run on Windows: path,
	// not path/filepath.
	if runtimeDir == "" && path.IsAbs(name) {
		// libwayland would connect, but GTK 3 opens no Wayland display
		// without a runtime directory, and the dialog would fail.
		return "", fmt.Errorf("WAYLAND_DISPLAY=%s is a path, but XDG_RUNTIME_DIR is not set, without which GTK opens no Wayland display", name)
	}
	if path.IsAbs(name) {
		return name, nil
	}
	if runtimeDir == "" {
		return "", fmt.Errorf("WAYLAND_DISPLAY=%s names no path and XDG_RUNTIME_DIR is not set", name)
	}
	return path.Join(runtimeDir, name), nil
}

// xAddress turns an X11 display name ([host]:display[.screen], or a socket
// path followed by :display) into the network and address to dial.
func xAddress(display string) (network, addr string, err error) {
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

// versionLine returns the version a dialog program printed for --version:
// its first non-blank line, trimmed and cut to 100 bytes.
func versionLine(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 100 {
				line = strings.ToValidUTF8(line[:100], "")
			}
			return line
		}
	}
	return ""
}

// prettyName returns PRETTY_NAME from the contents of /etc/os-release, or
// "" when it has none.
func prettyName(osRelease string) string {
	for _, line := range strings.Split(osRelease, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME=")
		if !ok {
			continue
		}
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return strings.Trim(v, `"'`)
	}
	return ""
}

// thirdButtonFrom is ThirdButton's verdict on what the program printed.
func thirdButtonFrom(name, help string, err error) string {
	switch {
	case strings.Contains(help, "--extra-button"):
		return "offered: " + name + " --extra-button"
	case err != nil:
		return "not checked: " + name + " --help-general failed: " + err.Error()
	}
	return "not offered: " + name + " has no --extra-button, so a request with --approve-for cannot be shown there (exit 6)"
}
