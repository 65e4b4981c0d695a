package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
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

func startDetached(argv []string, _ Lock, input []byte) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding own executable: %w", err)
	}
	plan := windows.PlanDetach(windows.CurrentJob())
	dir := windows.HolderDir()
	start := func(flags uint32) (*exec.Cmd, *os.File, error) {
		c := &exec.Cmd{
			Path: exe,
			Args: argv,
			// Stdout and Stderr stay nil: NUL; so does Stdin, unless it
			// carries input. Only those handles are inherited.
			Dir: dir,
			// No HideWindow: DETACHED_PROCESS already opens no console,
			// and SW_HIDE in the start-up info would apply to the holder's
			// first top-level window, which is the dialog.
			SysProcAttr: &syscall.SysProcAttr{CreationFlags: flags},
		}
		var w *os.File
		if len(input) > 0 {
			r, pw, err := os.Pipe()
			if err != nil {
				return nil, nil, err
			}
			c.Stdin, w = r, pw
		}
		err := c.Start()
		if r, ok := c.Stdin.(*os.File); ok {
			r.Close()
		}
		if err != nil && w != nil {
			w.Close()
			w = nil
		}
		return c, w, err
	}
	c, w, err := start(plan.Flags)
	if err != nil && windows.RetryWithoutBreakaway(plan.Flags, err) {
		c, w, err = start(plan.Flags &^ windows.CreateBreakawayFromJob)
	}
	if err != nil {
		return fmt.Errorf("starting holder: %w", err)
	}
	if w != nil {
		// The holder reads it first thing; a holder gone before it did
		// breaks the pipe, which ends the write.
		_, err := w.Write(input)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("starting holder: handing its input over: %w", err)
		}
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

func execProgram(path string, argv []string, h Handoff) (int, error) {
	c := exec.Command(path, argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	var w *os.File
	if len(h.Data) > 0 {
		r, pw, err := os.Pipe()
		if err != nil {
			return 0, fmt.Errorf("handing over: %w", err)
		}
		defer r.Close()
		w = pw
		handle := syscall.Handle(r.Fd())
		if err := syscall.SetHandleInformation(handle, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
			w.Close()
			return 0, fmt.Errorf("handing over: %w", err)
		}
		// Only the handles listed are inherited, so the program that
		// another thread starts meanwhile gets none of it.
		c.SysProcAttr = &syscall.SysProcAttr{AdditionalInheritedHandles: []syscall.Handle{handle}}
		c.Env = append(withoutVar(os.Environ(), h.Env), h.Env+"="+strconv.FormatUint(uint64(handle), 10))
	}
	if err := c.Start(); err != nil {
		if w != nil {
			w.Close()
		}
		return 0, err
	}
	if w != nil {
		// Written beside the program, which reads it as it starts: the
		// pipe's buffer may hold less. A program that ends without reading
		// breaks the pipe, which ends the write.
		go func() {
			_, _ = w.Write(h.Data)
			w.Close()
		}()
	}
	err := c.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// handoffPipe is the pipe at the handle v names (Exec).
func handoffPipe(v string) (*os.File, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("handle %q", v)
	}
	handle := syscall.Handle(n)
	if t, err := syscall.GetFileType(handle); err != nil || t != syscall.FILE_TYPE_PIPE {
		return nil, fmt.Errorf("handle %d is not a pipe", n)
	}
	// Not inherited by what this program starts.
	_ = syscall.SetHandleInformation(handle, syscall.HANDLE_FLAG_INHERIT, 0)
	return os.NewFile(uintptr(handle), "handed over"), nil
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
