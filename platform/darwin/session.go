// This file has no build constraint: the decisions in it are pure, so their
// table tests run on every OS, while the rest of the package is macOS only.

package darwin

import "strconv"

// Facts are what a macOS session is judged from.
type Facts struct {
	// EUID is this process's effective user id.
	EUID int
	// ConsoleUID owns /dev/console: the user logged in at the screen, or
	// root (0) while the login window shows. -1 when unknown.
	ConsoleUID int
	// Manager is what `launchctl managername` prints for this process's
	// launchd session: "Aqua" inside a GUI login, "Background" over SSH and
	// for per-user background jobs, "System" for daemons, "LoginWindow"
	// before anyone logs in. Empty when unknown.
	Manager string
	// SSH is true when SSH_CONNECTION, SSH_CLIENT or SSH_TTY is set.
	SSH bool
	// ParentIsLaunchd is true when launchd (PID 1) started this process
	// directly, as it starts daemons and agents.
	ParentIsLaunchd bool
}

// Verdict is what a macOS session offers a dialog.
type Verdict struct {
	// OK is true when a dialog would reach a person: this process lives in
	// an Aqua (GUI) session.
	OK bool
	// Display describes the session the dialog would appear in.
	Display string
	// Reason explains OK == false; Hint says what to do about it.
	Reason, Hint string
	// Notes are facts worth knowing that do not stop a person being asked.
	Notes []string
}

const hintTerminal = "run ask-confirm in Terminal on the Mac, or in a tmux session started there"

// judge decides whether a dialog started by this process would reach a
// person. The launchd session type decides where it is known: osascript
// shows its dialog in the caller's launchd session, and only an Aqua one
// has a screen. Without it, the owner of the console and the way in (SSH,
// launchd) stand in for it.
func judge(f Facts) Verdict {
	var v Verdict
	switch {
	case f.Manager == "Aqua":
		v.OK = true
		v.Display = "Aqua session of uid " + strconv.Itoa(f.EUID)
		if f.ConsoleUID >= 0 && f.ConsoleUID != f.EUID && f.EUID != 0 {
			v.Notes = append(v.Notes, "the console shows another session now: the dialog waits in this one until its user switches back")
		}
	case f.Manager == "System":
		v.Reason = "running in launchd's system session (a LaunchDaemon, or a process it started): no person sees its windows"
		v.Hint = "run ask-confirm from a LaunchAgent or a Terminal in the user's login session"
	case f.Manager == "LoginWindow":
		v.Reason = "only the login window is up: nobody is logged in"
		v.Hint = "log in at the Mac, then " + hintTerminal
	case f.SSH:
		v.Reason = "this is an SSH session: a dialog would not reach the person at the Mac's screen"
		v.Hint = hintTerminal
	case f.Manager == "Background":
		v.Reason = "running in a background launchd session, outside the GUI login: no person sees its windows"
		v.Hint = hintTerminal + ", or as a LaunchAgent limited to the Aqua session type"
	default:
		// launchctl could not tell: judge by who owns the console.
		v.Notes = append(v.Notes, "launchctl did not name this session; judged by the owner of /dev/console")
		switch {
		case f.ConsoleUID < 0:
			v.Reason = "cannot tell whether this is a GUI session: neither launchctl nor /dev/console answered"
			v.Hint = hintTerminal
		case f.ConsoleUID == 0:
			v.Reason = "nobody is logged in at the console"
			v.Hint = "log in at the Mac, then " + hintTerminal
		case f.EUID == 0 && f.ParentIsLaunchd:
			v.Reason = "running as root straight from launchd, like a LaunchDaemon: no person sees its windows"
			v.Hint = "run ask-confirm from a LaunchAgent or a Terminal in the user's login session"
		case f.ConsoleUID == f.EUID || f.EUID == 0:
			v.OK = true
			v.Display = "console user uid " + strconv.Itoa(f.ConsoleUID)
		default:
			v.Reason = "the console belongs to another user (uid " + strconv.Itoa(f.ConsoleUID) + "): the dialog would not reach them"
			v.Hint = "run ask-confirm as the user logged in at the Mac"
		}
	}
	return v
}
