package platform

import (
	"context"

	"github.com/ask-confirm/ask-confirm/platform/linux"
)

func markInheritedCloseOnExec() error { return linux.MarkInheritedCloseOnExec() }

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
		CanAsk:  v.OK,
		Reason:  v.Reason,
		Hint:    v.Hint,
		Backend: backend,
		Kind:    Kind(v.Kind),
		Display: v.Display,
		Notes:   v.Notes,
	}
}

// orphanedDialogs returns the dialog programs in process group pgid.
func orphanedDialogs(pgid int) []int { return linux.DialogsInGroup(pgid) }
