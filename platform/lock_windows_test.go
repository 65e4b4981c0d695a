package platform

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The lock is held with TryLock from the test itself: LockFileEx locks
// belong to the handle, so TryLock's handle conflicts with the probes' and
// waits' handles as another process's would.
func TestLockHeldAndReleasedWindows(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "id.lock")

	if held, err := LockHeld(path); err != nil || held {
		t.Fatalf("LockHeld on a missing file = %v, %v; want false, nil", held, err)
	}
	select {
	case <-LockReleased(path):
	default:
		t.Fatal("LockReleased on a missing file is not closed at once")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("%d files left behind by probes of a missing lock file", len(entries))
	}

	l, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock = %v, %v; want the lock", ok, err)
	}
	if held, err := LockHeld(path); err != nil || !held {
		t.Fatalf("LockHeld while TryLock holds the file = %v, %v; want true, nil", held, err)
	}
	released := LockReleased(path)
	if WaitReleased(path, 50*time.Millisecond) {
		t.Fatal("WaitReleased = true while the lock is held")
	}

	l.Release()
	select {
	case <-released:
	case <-time.After(time.Second):
		t.Fatal("LockReleased still open a second after Release")
	}
	if held, err := LockHeld(path); err != nil || held {
		t.Fatalf("LockHeld after Release = %v, %v; want false, nil", held, err)
	}
	releaseWaits.Lock()
	defer releaseWaits.Unlock()
	if len(releaseWaits.m) != 0 {
		t.Errorf("%d waits still registered after the release", len(releaseWaits.m))
	}
}
