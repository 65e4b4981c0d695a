package platform

import (
	"errors"
	"fmt"
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

func adoptLock(int) (Lock, error) {
	return nil, errors.New("locks are not handed over on windows")
}

func startDetached(argv []string, _ Lock) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding own executable: %w", err)
	}
	c := &exec.Cmd{
		Path:        exe,
		Args:        argv,
		Dir:         os.Getenv("SystemRoot"),
		SysProcAttr: &syscall.SysProcAttr{CreationFlags: windows.CreationFlags(), HideWindow: true},
	}
	if err := c.Start(); err != nil {
		return fmt.Errorf("starting holder: %w", err)
	}
	return c.Process.Release()
}

var errNoSignal = errors.New("windows has no signal to interrupt a holder")

func interruptHolder(int) error { return errNoSignal }

// killOrphanedDialog has nothing to do: the Win32 dialog lives inside the
// holder process and dies with it.
func killOrphanedDialog(int) {}

func detect() Session {
	if ok, reason := windows.Interactive(); !ok {
		return Session{Reason: reason, Backend: "win32"}
	}
	return Session{CanAsk: true, Backend: "win32"}
}
