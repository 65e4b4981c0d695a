package platform

import (
	"context"
	"os/exec"

	"github.com/ask-confirm/ask-confirm/platform/darwin"
)

// markInheritedCloseOnExec sets close-on-exec on every descriptor from 3
// up. macOS has no close_range, so it walks /dev/fd.
func markInheritedCloseOnExec() error { return closeOnExecListed("/dev/fd") }

// closeOnExecHow says how markInheritedCloseOnExec works, for Inspect.
const closeOnExecHow = "walking /dev/fd"

// The zenity library shows its dialog through osascript, whose script
// activates it, so the dialog comes to the front of the screen.
const darwinBackend = "osascript"

func detect() Session { return fromDarwin(darwin.Detect()) }

func inspect(context.Context) Report {
	r := Report{Session: fromDarwin(darwin.Detect()), OSVersion: darwin.OSVersion()}
	r.BackendPath, _ = exec.LookPath(darwinBackend)
	r.CanDetach, r.Detach = unixDetach()
	r.ThirdButton = "offered: osascript's display dialog takes three buttons"
	return r
}

func fromDarwin(v darwin.Verdict) Session {
	s := Session{
		CanAsk:  v.OK,
		Reason:  v.Reason,
		Hint:    v.Hint,
		Backend: darwinBackend,
		Kind:    KindHeadless,
		Display: v.Display,
		Notes:   v.Notes,
	}
	if v.OK {
		s.Kind = KindAqua
	}
	return s
}

// orphanedDialogs returns the osascript processes (zenity's dialog program
// on macOS) whose process group is pgid.
func orphanedDialogs(pgid int) []int { return darwin.DialogsInGroup(pgid) }
