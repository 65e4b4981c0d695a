package platform

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"

	"github.com/ask-confirm/ask-confirm/platform/linux"
)

// markInheritedCloseOnExec sets close-on-exec on every descriptor from 3
// up, so none of them reaches a child we start. Kernels before 5.11 lack
// CLOSE_RANGE_CLOEXEC: there it walks the table instead.
func markInheritedCloseOnExec() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return closeOnExecListed("/proc/self/fd")
}

// closeOnExecHow says how markInheritedCloseOnExec works, for Inspect.
const closeOnExecHow = "close_range"

func detect() Session {
	name, _ := linux.DialogProgram()
	return fromLinux(linux.Detect(), name)
}

func inspect(ctx context.Context) Report {
	name, path := linux.DialogProgram()
	r := Report{Session: fromLinux(linux.Detect(), name), BackendPath: path, OSVersion: linux.OSVersion()}
	switch {
	case path != "" && r.Kind == KindHeadless:
		// GNOME zenity opens the display before it prints its version.
		r.Notes = append(r.Notes, "dialog program version not checked: there is no display to run it on")
	case path != "":
		v, err := linux.ProgramVersion(ctx, path)
		if err != nil {
			r.Notes = append(r.Notes, "dialog program version unknown: "+err.Error())
		}
		r.BackendVersion = v
	}
	r.ThirdButton = linux.ThirdButton(ctx, name, path, r.Kind != KindHeadless)
	r.CanDetach, r.Detach = unixDetach()
	return r
}

func fromLinux(v linux.Verdict, backend string) Session {
	return Session{
		CanAsk:      v.OK,
		Reason:      v.Reason,
		Hint:        v.Hint,
		Backend:     backend,
		Kind:        Kind(v.Kind),
		Display:     v.Display,
		Unreachable: v.Unreachable,
		Notes:       v.Notes,
	}
}

// orphanedDialogs returns the dialog programs in process group pgid.
func orphanedDialogs(pgid int) []int { return linux.DialogsInGroup(pgid) }
