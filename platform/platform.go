// Package platform is the one place that knows how the operating system
// starts a detached holder, locks a file so the lock can outlive the process
// that took it, and tells whether a person can be shown a dialog. Callers use
// only this file's API; the bodies live in the per-OS files beside it and in
// platform/linux, platform/darwin and platform/windows.
package platform

// Lock is an exclusive lock on a file, held until Release or until the
// process holding it (or, after StartDetached, its child) exits.
type Lock interface {
	Release() error
}

// HolderLockFD is the descriptor number at which a holder started by
// StartDetached finds the lock handed to it, when LockHandedOff is true.
const HolderLockFD = 3

// Session says whether a person can be asked in this session, and if not why.
type Session struct {
	CanAsk bool
	// Reason explains CanAsk == false in a form fit for an error message.
	Reason string
	// Backend names the dialog program or API that will be used.
	Backend string
}

// Detect inspects the current session: display or GUI session, and the
// dialog backend.
func Detect() Session { return detect() }

// TryLock takes an exclusive lock on path without waiting, creating the file
// with mode 0600. It returns ok == false, with no error, if another process
// holds a lock on the file.
func TryLock(path string) (l Lock, ok bool, err error) { return tryLock(path) }

// StartDetached starts argv[0] (re-resolved as this executable) with argv as
// its arguments, fully detached from the caller: its own session or process
// group, working directory /, no standard streams, no inherited descriptors
// but the lock. The caller's process group may be killed afterwards without
// affecting it. When LockHandedOff is true the child receives lock at
// HolderLockFD, so the lock is never free between the caller's decision to
// start a holder and the holder's own start.
func StartDetached(argv []string, lock Lock) error { return startDetached(argv, lock) }

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
