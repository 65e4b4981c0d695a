//go:build unix

package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Unix the lock is a flock(2) on a descriptor we open ourselves rather
// than through gofrs/flock, because the descriptor has to be passed to the
// holder: a flock belongs to the open file description, so the child's copy
// keeps the lock after the caller closes its own.
const lockHandedOff = true

type fileLock struct{ f *os.File }

func (l *fileLock) Release() error { return l.f.Close() }

func tryLock(path string) (Lock, bool, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, false, fmt.Errorf("opening lock file: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("locking %s: %w", path, err)
		}
		// ask-confirm gc deletes unused lock files while holding them. If
		// that happened between our open and our lock, we hold a lock on a
		// file nobody else will ever open: try again with the new one.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &fileLock{f}, true, nil
		}
		f.Close()
	}
}

// openLockFile opens an existing lock file to test or wait on its lock.
// Without O_CREATE: a probe that created the file would leave an empty one
// behind for every request that never starts a holder.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// stillAt reports whether path still names the file f has open. ask-confirm
// gc deletes an unused lock file while holding it, so a lock granted on a
// file opened before that says nothing about the file now at path.
func stillAt(f *os.File, path string) bool {
	held, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}

func lockHeld(path string) (bool, error) {
	for {
		f, err := openLockFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("opening lock file: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		if err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return true, nil
			}
			return false, fmt.Errorf("testing lock on %s: %w", path, err)
		}
		current := stillAt(f, path)
		// Closing drops the shared lock at once, so the probe stands in
		// the way of a caller's TryLock for as short a time as it can.
		f.Close()
		if current {
			return false, nil
		}
	}
}

// openWait opens the lock file at path and returns the blocking wait for
// its release, or nil when there is no file to wait on. The file is opened
// here rather than in the wait so that a missing one is known at once.
func openWait(path string) (wait func()) {
	f, err := openLockFile(path)
	if err != nil {
		return nil
	}
	return func() { waitUnlocked(f, path) }
}

// waitUnlocked blocks until a shared lock on f is granted, that is until no
// process holds it exclusively, then drops the lock and closes f.
func waitUnlocked(f *os.File, path string) {
	for {
		err := flockShared(f)
		current := err == nil && stillAt(f, path)
		f.Close()
		if err != nil || current {
			return
		}
		// gc removed the file while we waited. A file now at path belongs
		// to a newer request, whose holder is the one to wait for.
		if f, err = openLockFile(path); err != nil {
			return
		}
	}
}

// flockShared takes a blocking shared lock on f. A signal can interrupt the
// wait where the OS does not restart it; that is not a release, so it waits
// again.
func flockShared(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if err != unix.EINTR {
			return err
		}
	}
}

// holdShared takes a shared lock on the file at path, creating it, and
// returns what releases it.
func holdShared(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening watch file: %w", err)
	}
	if err := flockShared(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("watching %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

func watched(path string) bool {
	f, err := openLockFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK)
}

func adoptLock(fd int) (Lock, error) {
	f := os.NewFile(uintptr(fd), "holder lock")
	if f == nil {
		return nil, fmt.Errorf("no lock at descriptor %d", fd)
	}
	unix.CloseOnExec(fd)
	return &fileLock{f}, nil
}

func startDetached(argv []string, lock Lock, input []byte) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding own executable: %w", err)
	}
	// A caller that leaked a pipe to us (fd 3 and up) would otherwise wait
	// for EOF on it until the dialog closes.
	if err := markInheritedCloseOnExec(); err != nil {
		return fmt.Errorf("closing inherited descriptors: %w", err)
	}
	c := &exec.Cmd{
		Path: exe,
		Args: argv,
		// Stdout and Stderr stay nil: /dev/null; so does Stdin, unless it
		// carries input.
		Dir: "/",
		// Setsid rather than Setpgid: a new session has no controlling
		// terminal, so closing the caller's terminal sends the holder no
		// SIGHUP, and killing the caller's process group misses it. It also
		// makes the holder's PID the group of its dialog process, which lets
		// a successor clean up after a killed holder.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if l, ok := lock.(*fileLock); ok {
		c.ExtraFiles = []*os.File{l.f}
	}
	in, err := inputPipe(c, input)
	if err != nil {
		return fmt.Errorf("starting holder: %w", err)
	}
	if err := c.Start(); err != nil {
		if in != nil {
			in.Close()
		}
		return fmt.Errorf("starting holder: %w", err)
	}
	if err := handInput(c, in, input); err != nil {
		return fmt.Errorf("starting holder: %w", err)
	}
	return c.Process.Release()
}

// handInputWithin bounds the write of a child's input: far more than a
// child takes to start and read it, and only a child that never reads
// makes it wait, since a pipe holds 64 KiB (16 KiB at first on macOS).
const handInputWithin = 30 * time.Second

// inputPipe makes c's stdin a pipe and returns its writing end, where
// input is not empty; else nil, and stdin stays /dev/null.
func inputPipe(c *exec.Cmd, input []byte) (*os.File, error) {
	if len(input) == 0 {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.Stdin = r
	return w, nil
}

// handInput writes input to w, the writing end of the stdin of c, which
// has started, and closes both ends of the pipe that this process holds.
func handInput(c *exec.Cmd, w *os.File, input []byte) error {
	if w == nil {
		return nil
	}
	c.Stdin.(*os.File).Close()
	_ = w.SetWriteDeadline(time.Now().Add(handInputWithin))
	_, err := w.Write(input)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("handing its input over: %w", err)
	}
	return nil
}

func interruptHolder(pid int) error {
	if pid <= 1 {
		return fmt.Errorf("no holder process recorded")
	}
	return unix.Kill(pid, unix.SIGTERM)
}

func killOrphanedDialog(pid int) {
	if pid <= 1 {
		return
	}
	// The holder led its own process group; its dialog is still in it. A
	// group outlives its leader only while it has members, so the PID
	// cannot have been reused while the dialog lives; orphanedDialogs also
	// checks the members, where the OS lets us, before anything is killed.
	for _, p := range orphanedDialogs(pid) {
		_ = unix.Kill(p, unix.SIGKILL)
	}
}

// unixDetach says whether and how StartDetached detaches a holder here.
func unixDetach() (bool, string) {
	if _, err := os.Executable(); err != nil {
		return false, "cannot find its own executable to start a holder: " + err.Error()
	}
	return true, "new session (setsid), working directory /, standard streams on /dev/null (stdin a pipe that carries the phone's setup, where one was given in the environment), descriptors from 3 up close-on-exec (" + closeOnExecHow + "), identity lock handed over as descriptor 3"
}

func openToOthers(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }

func execProgram(path string, argv []string, h Handoff) (int, error) {
	env := os.Environ()
	if len(h.Data) == 0 {
		return 0, syscall.Exec(path, argv, env)
	}
	// The pipe's buffer holds it all before the program runs: nobody
	// reads it until then.
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("handing over: %w", err)
	}
	defer r.Close()
	_ = w.SetWriteDeadline(time.Now().Add(time.Second))
	_, err = w.Write(h.Data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("handing over: %w", err)
	}
	fd := r.Fd()
	if _, err := unix.FcntlInt(fd, unix.F_SETFD, 0); err != nil {
		return 0, fmt.Errorf("handing over: %w", err)
	}
	env = append(withoutVar(env, h.Env), h.Env+"="+strconv.Itoa(int(fd)))
	return 0, syscall.Exec(path, argv, env)
}

// handoffPipe is the pipe at the descriptor v names (Exec).
func handoffPipe(v string) (*os.File, error) {
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("descriptor %q", v)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, fmt.Errorf("descriptor %d is not a pipe", fd)
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "handed over"), nil
}

// closeOnExecListed sets close-on-exec on every descriptor from 3 up that
// dir, the process's descriptor table (/proc/self/fd, /dev/fd), lists.
// ReadDir's own descriptor on dir is listed too, and is closed by the time
// the loop reaches it: CloseOnExec on it is harmless.
func closeOnExecListed(dir string) error {
	entries, err := os.ReadDir(dir)
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

// NoConsole does nothing on Unix, where a helper program opens no window;
// on Windows it keeps a helper console program from opening one.
func NoConsole(*exec.Cmd) {}
