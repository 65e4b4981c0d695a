package platform

import (
	"sync"
	"time"
)

// releaseWaits holds the pending wait, if any, for each lock path this
// process waits on. Sharing one wait per path keeps a long-lived process
// (the MCP server) at one blocked thread and one descriptor per open dialog
// rather than one per call waiting on it: a thread blocked in a lock call
// stays blocked until the holder lets go, and Go never gives it back.
var releaseWaits = struct {
	sync.Mutex
	m map[string]chan struct{}
}{m: make(map[string]chan struct{})}

func lockReleased(path string) <-chan struct{} {
	releaseWaits.Lock()
	defer releaseWaits.Unlock()
	if done, ok := releaseWaits.m[path]; ok {
		return done
	}
	done := make(chan struct{})
	wait := openWait(path)
	if wait == nil {
		close(done)
		return done
	}
	releaseWaits.m[path] = done
	go awaitRelease(path, wait, done)
	return done
}

// awaitRelease is the one goroutine waiting on the lock at path.
func awaitRelease(path string, wait func(), done chan struct{}) {
	wait()
	// Forget the wait before announcing it: a caller that sees done closed
	// and asks again must get a fresh wait, not this spent one.
	releaseWaits.Lock()
	delete(releaseWaits.m, path)
	releaseWaits.Unlock()
	close(done)
}

func waitReleased(path string, timeout time.Duration) bool {
	done := lockReleased(path)
	// A lock already free counts as released even with no time to wait,
	// rather than losing a coin toss against an expired timer.
	select {
	case <-done:
		return true
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
