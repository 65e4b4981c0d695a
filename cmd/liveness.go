package cmd

import (
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// holderAlive reports whether some process holds the identity's lock: a
// holder showing the dialog, or a caller about to start one. It never
// removes the lock file, which another process may hold.
func holderAlive(lockPath string) (bool, error) {
	l := flock.New(lockPath)
	ok, err := l.TryRLock()
	if err != nil {
		return false, fmt.Errorf("testing holder lock: %w", err)
	}
	if ok {
		l.Unlock()
		return false, nil
	}
	l.Close()
	return true, nil
}

// lockReleased returns a channel that is closed once nobody holds the lock
// exclusively. A blocking shared lock wakes the moment the holder exits,
// with no polling of the store. The goroutine lives until then, whether or
// not anybody still reads the channel: one per open dialog a process waits
// on (a CLI caller waits on one; the MCP server on each open call's).
func lockReleased(lockPath string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		l := flock.New(lockPath)
		if err := l.RLock(); err == nil {
			l.Unlock()
		}
		close(done)
	}()
	return done
}

// waitForRelease waits until nobody holds the lock exclusively, or until
// timeout, and reports whether the lock was released.
func waitForRelease(lockPath string, timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-lockReleased(lockPath):
		return true
	case <-t.C:
		return false
	}
}
