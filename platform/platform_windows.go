package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"

	"github.com/gofrs/flock"

	"github.com/ask-confirm/ask-confirm/platform/windows"
)

// On Windows a lock cannot be handed to a child; the holder takes it itself.
const lockHandedOff = false

type flockLock struct{ f *flock.Flock }

func (l *flockLock) Release() error { return l.f.Close() }

func tryLock(path string) (Lock, bool, error) {
	f := flock.New(path)
	ok, err := f.TryLock()
	if err != nil || !ok {
		return nil, false, err
	}
	return &flockLock{f}, true, nil
}

// existingOnly makes gofrs/flock open the file read-only without O_CREATE,
// its default: a probe that created the file would leave an empty one
// behind for every request that never starts a holder.
var existingOnly = flock.SetFlag(os.O_RDONLY)

func lockHeld(path string) (bool, error) {
	f := flock.New(path, existingOnly)
	ok, err := f.TryRLock()
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("testing lock on %s: %w", path, err)
	}
	if !ok {
		return true, nil
	}
	f.Close()
	return false, nil
}

// openWait returns the blocking wait for the release of the lock at path,
// or nil when there is no file to wait on. gofrs/flock opens the file only
// inside RLock, so the missing file is seen here with Lstat; a file removed
// after that fails to open in the wait, which then ends as a release.
func openWait(path string) (wait func()) {
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	return func() {
		f := flock.New(path, existingOnly)
		if err := f.RLock(); err == nil {
			f.Close()
		}
	}
}

// holdShared takes a shared lock on the file at path, creating it, and
// returns what releases it.
func holdShared(path string) (func(), error) {
	f := flock.New(path)
	if err := f.RLock(); err != nil {
		return nil, fmt.Errorf("watching %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

func watched(path string) bool {
	f := flock.New(path, existingOnly)
	ok, err := f.TryLock()
	if err != nil {
		return false
	}
	if ok {
		f.Close()
	}
	return !ok
}

func adoptLock(int) (Lock, error) {
	return nil, errors.New("locks are not handed over on windows")
}

func startDetached(argv []string, _ Lock) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding own executable: %w", err)
	}
	plan := windows.PlanDetach(windows.CurrentJob())
	dir := windows.HolderDir()
	start := func(flags uint32) (*exec.Cmd, error) {
		c := &exec.Cmd{
			Path: exe,
			Args: argv,
			// Stdin, Stdout and Stderr stay nil: NUL. Only those handles
			// are inherited.
			Dir: dir,
			// No HideWindow: DETACHED_PROCESS already opens no console,
			// and SW_HIDE in the start-up info would apply to the holder's
			// first top-level window, which is the dialog.
			SysProcAttr: &syscall.SysProcAttr{CreationFlags: flags},
		}
		return c, c.Start()
	}
	c, err := start(plan.Flags)
	if err != nil && windows.RetryWithoutBreakaway(plan.Flags, err) {
		c, err = start(plan.Flags &^ windows.CreateBreakawayFromJob)
	}
	if err != nil {
		return fmt.Errorf("starting holder: %w", err)
	}
	windows.AllowForeground(c.Process.Pid)
	return c.Process.Release()
}

var errNoSignal = errors.New("windows has no signal to interrupt a holder")

func interruptHolder(int) error { return errNoSignal }

// killOrphanedDialog has nothing to do: the Win32 dialog lives inside the
// holder process and dies with it.
func killOrphanedDialog(int) {}

// The zenity library shows a Win32 message box inside the holder process,
// asking for the foreground (MB_SETFOREGROUND).
const windowsBackend = "win32"

func detect() Session { return fromWindows(windows.Detect()) }

func inspect(context.Context) Report {
	r := Report{Session: fromWindows(windows.Detect()), OSVersion: windows.OSVersion()}
	plan := windows.PlanDetach(windows.CurrentJob())
	r.CanDetach, r.Detach = plan.Survives, plan.How+"; working directory "+windows.HolderDir()
	if _, err := os.Executable(); err != nil {
		r.CanDetach, r.Detach = false, "cannot find its own executable to start a holder: "+err.Error()
	}
	r.ThirdButton = "offered: the message box has a third button"
	return r
}

func fromWindows(v windows.Verdict) Session {
	s := Session{
		CanAsk:  v.OK,
		Reason:  v.Reason,
		Hint:    v.Hint,
		Backend: windowsBackend,
		Kind:    KindHeadless,
		Display: v.Display,
		Notes:   v.Notes,
	}
	if v.OK {
		s.Kind = KindWindows
	}
	return s
}

// openToOthers is false on Windows, as the store assumes: permission bits
// are not the access control there.
func openToOthers(fs.FileInfo) bool { return false }

func execProgram(path string, argv []string) (int, error) {
	c := exec.Command(path, argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// createNoWindow is CREATE_NO_WINDOW: a console program started so opens
// no console window of its own.
const createNoWindow = 0x08000000

// NoConsole makes c, a console program this one runs as a helper, open no
// console window: a holder has no console to share, and the window would
// stand beside the dialog.
func NoConsole(c *exec.Cmd) {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.CreationFlags |= createNoWindow
}
