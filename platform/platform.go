// Package platform is the one place that knows how the operating system
// starts a detached holder, locks a file so the lock can outlive the process
// that took it, tests and waits on that lock, and tells whether a person can
// be shown a dialog. Callers use only this file's API; the bodies live in the
// per-OS files beside it and in platform/linux, platform/darwin and
// platform/windows.
package platform

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"time"
)

// Lock is an exclusive lock on a file, held until Release or until the
// process holding it (or, after StartDetached, its child) exits.
type Lock interface {
	Release() error
}

// HolderLockFD is the descriptor number at which a holder started by
// StartDetached finds the lock handed to it, when LockHandedOff is true.
const HolderLockFD = 3

// Kind names the sort of session a dialog would appear in.
type Kind string

// The session kinds.
const (
	KindX11      Kind = "x11"      // an X11 display
	KindWayland  Kind = "wayland"  // a Wayland display, with or without Xwayland
	KindWSL      Kind = "wsl"      // WSLg's displays under Windows Subsystem for Linux
	KindAqua     Kind = "aqua"     // a macOS GUI login session
	KindWindows  Kind = "windows"  // an interactive Windows desktop
	KindHeadless Kind = "headless" // nowhere a person would see a dialog
)

// Session says whether a person can be asked in this session, and if not why.
type Session struct {
	CanAsk bool
	// Reason explains CanAsk == false in a form fit for an error message.
	Reason string
	// Hint says what to do when CanAsk is false: what to run, install or
	// set. It may be empty.
	Hint string
	// Backend names the dialog program or API that will be used: qarma,
	// zenity or matedialog on Linux (empty when none is on PATH),
	// osascript on macOS, win32 on Windows.
	Backend string
	// Kind is the session a dialog would appear in; KindHeadless when
	// there is none. A session with a display can still have CanAsk false,
	// for instance with no dialog program on PATH.
	Kind Kind
	// Display names where the dialog would appear, for a person:
	// "DISPLAY=:0", "Aqua session of uid 501", "session 1, window station
	// WinSta0". Empty when headless.
	Display string
	// Unreachable are the displays the environment names that do not
	// answer, each saying why, for a person: "DISPLAY=:99 does not answer
	// at /tmp/.X11-unix/X99". Linux only.
	Unreachable []string
	// Notes are facts worth knowing that do not decide CanAsk.
	Notes []string
}

// NoBackend reports whether s has a display, but nothing that can show a
// dialog on it (no dialog program on PATH): a dialog that cannot be shown,
// rather than nobody to show it to.
func (s Session) NoBackend() bool {
	return !s.CanAsk && s.Kind != "" && s.Kind != KindHeadless
}

// Detect inspects the current session: display or GUI session, and the
// dialog backend. It is cheap enough to call before every dialog: on Linux
// it connects to the display's socket, on macOS it runs launchctl, which
// takes a few milliseconds.
func Detect() Session { return detect() }

// Report is what Inspect finds out about this machine, for a person
// checking why ask-confirm can or cannot ask here.
type Report struct {
	Session
	// OS and Arch are the platform ask-confirm was built for.
	OS, Arch string
	// OSVersion names the operating system's release, or is empty.
	OSVersion string
	// BackendPath is the dialog program's path, where it is a program.
	BackendPath string
	// BackendVersion is what the dialog program says its version is, or
	// empty when it cannot tell (GNOME zenity needs a display for that).
	BackendVersion string
	// CanDetach is false when a holder started here is known not to
	// outlive its caller.
	CanDetach bool
	// Detach describes how a holder is detached from its caller.
	Detach string
	// ThirdButton says whether the dialog can offer a third button (the
	// approve-for button), and how or why not.
	ThirdButton string
}

// Inspect returns Detect's findings and more: the backend's path and
// version, the OS release and how a holder would be detached. It may run
// the dialog program with --version and --help-general, each for at most
// ten seconds, or until ctx ends.
func Inspect(ctx context.Context) Report {
	r := inspect(ctx)
	r.OS, r.Arch = runtime.GOOS, runtime.GOARCH
	return r
}

// OpenToOthers reports whether group or other users may use the file fi
// (from os.Lstat or os.Stat). On Windows, where permission bits are not the
// access control and the XDG directories are inside the user's own profile,
// it is always false.
func OpenToOthers(fi fs.FileInfo) bool { return openToOthers(fi) }

// TryLock takes an exclusive lock on path without waiting, creating the file
// with mode 0600. It returns ok == false, with no error, if another process
// holds a lock on the file.
func TryLock(path string) (l Lock, ok bool, err error) { return tryLock(path) }

// LockHeld reports whether some process holds a lock on the file at path: a
// holder showing its dialog, or a caller about to start one. It only tests
// the lock. It never creates the file, so a missing file means nobody holds
// it (false, nil), and it never removes it, since another process may hold
// it. It returns an error when the file cannot be opened or its lock tested;
// on Unix that includes a path that is a symbolic link, refused as TryLock
// refuses it.
func LockHeld(path string) (bool, error) { return lockHeld(path) }

// LockReleased returns a channel that is closed once nobody holds the lock at
// path exclusively: at once when there is no such file, or when it cannot be
// opened (LockHeld then says why). It does not poll: a blocking shared lock
// wakes the moment the holder releases its lock or dies. When the channel
// closes the lock was free at that moment; a new holder may have taken it
// since.
//
// A process keeps at most one wait per path, however many callers ask:
// callers share the pending wait's channel, and a call after it fired starts
// a fresh one. The wait is a goroutine, and the OS thread it blocks, that
// lives until the holder lets go, whether or not anyone still reads the
// channel; sharing bounds them to one per open dialog the process waits on.
// The wait takes the shared lock only to learn that the exclusive one is
// gone, and drops it and closes its descriptor at once, so once the dialog
// ends no descriptor of the lock file is left open.
func LockReleased(path string) <-chan struct{} { return lockReleased(path) }

// WaitReleased waits until LockReleased's channel for path closes or timeout
// passes, and reports whether the lock was released. It shares LockReleased's
// wait, so it starts no goroutine when one already waits on path; a wait it
// does start outlives a timeout, like any LockReleased wait.
func WaitReleased(path string, timeout time.Duration) bool { return waitReleased(path, timeout) }

// Watch marks this process as waiting for the answer of the request whose
// watch file is path, until stop is called: it holds a shared lock on the
// file, created with mode 0600 if missing. A holder that ends the request
// asks Watched whether anyone was waiting, so that the answer counts as
// received without any waiter writing to the store. Calls for one path
// within a process share one descriptor and lock, released when the last
// of them stops. stop may be called more than once.
func Watch(path string) (stop func(), err error) { return watch(path) }

// Watched reports whether some process holds a Watch on path. It never
// creates the file; a missing file, or one that cannot be tested, is not
// watched.
func Watched(path string) bool { return watched(path) }

// StartDetached starts argv[0] (re-resolved as this executable) with argv as
// its arguments, fully detached from the caller: its own session or process
// group, working directory / (on Windows the Windows directory), no
// standard streams, no inherited descriptors but the lock. The caller's process group may be killed afterwards without
// affecting it. When LockHandedOff is true the child receives lock at
// HolderLockFD, so the lock is never free between the caller's decision to
// start a holder and the holder's own start. Where input is not empty,
// the child's stdin is a pipe that carries input and then ends: a secret
// for the child, kept out of its arguments and environment. The child must
// read it at once; an error is returned where it is gone before it did.
func StartDetached(argv []string, lock Lock, input []byte) error {
	return startDetached(argv, lock, input)
}

// AdoptLock returns the lock a holder received at descriptor fd from
// StartDetached, and makes sure no process the holder starts inherits it:
// a dialog program holding the lock would outlive a killed holder and keep
// it looking alive.
func AdoptLock(fd int) (Lock, error) { return adoptLock(fd) }

// LockHandedOff reports whether StartDetached passes the lock to the child.
// Where it does not, the child must take the lock itself and a fresh
// "requested" record has to stand in for the lock until it does.
const LockHandedOff = lockHandedOff

// InterruptHolder asks the live holder process pid to close its dialog at
// once. It returns an error where the OS has no such signal; the holder then
// notices the request in the store within a second.
func InterruptHolder(pid int) error { return interruptHolder(pid) }

// KillOrphanedDialog ends the dialog process left behind by holder pid after
// the holder itself died. Call it only after seeing that holder's lock free.
func KillOrphanedDialog(pid int) { killOrphanedDialog(pid) }

// ProcessName returns the name of the program process pid runs, as the
// system keeps it (on Linux and macOS cut to 15 or 16 bytes), or "" when
// it cannot be told: for the line that says who asks.
func ProcessName(pid int) string { return processName(pid) }

// Exec runs the program at path with argv (argv[0] is its name) in place of
// this process, with the same standard streams and environment. On Unix the
// process is replaced and Exec returns only on failure; on Windows the
// program runs as a child and Exec returns its exit code once it ends.
// The program can read h.Data once with ReadHandoff(h.Env).
func Exec(path string, argv []string, h Handoff) (code int, err error) {
	return execProgram(path, argv, h)
}

// Handoff is data for the program Exec runs, which it reads once, with
// ReadHandoff, from an inherited pipe whose descriptor (on Windows, its
// handle) the variable Env names: a secret kept out of the program's
// arguments and environment. The zero Handoff hands nothing over.
type Handoff struct {
	Env  string
	Data []byte
}

// maxHandoff bounds what ReadHandoff reads.
const maxHandoff = 1 << 20

// ReadHandoff reads what Exec handed this program under the variable env,
// then closes the pipe and unsets env, which no program this one starts
// then inherits. ok is false where env is not set. A descriptor that is
// not a pipe is refused, unread.
func ReadHandoff(env string) (data []byte, ok bool, err error) {
	v, ok := os.LookupEnv(env)
	if !ok {
		return nil, false, nil
	}
	_ = os.Unsetenv(env)
	f, err := handoffPipe(v)
	if err != nil {
		return nil, true, fmt.Errorf("reading what was handed over: %w", err)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxHandoff))
	if err != nil {
		return nil, true, fmt.Errorf("reading what was handed over: %w", err)
	}
	return data, true, nil
}

// withoutVar is env without the variable name.
func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
