//go:build unix

package platform

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// These tests hold the lock with TryLock from the test itself: flock locks
// belong to the open file description, so TryLock's own open conflicts with
// the probes' and waits' opens exactly as another process's would.
// TestLockHeldByAnotherProcess checks that with a real second process.

func TestLockHeld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "id.lock")

	held, err := LockHeld(path)
	if err != nil || held {
		t.Fatalf("LockHeld on a missing file = %v, %v; want false, nil", held, err)
	}
	assertEmpty(t, dir)

	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if held, err := LockHeld(path); err != nil || held {
		t.Fatalf("LockHeld on a file nobody locks = %v, %v; want false, nil", held, err)
	}

	l := mustLock(t, path)
	if held, err := LockHeld(path); err != nil || !held {
		t.Fatalf("LockHeld while TryLock holds the file = %v, %v; want true, nil", held, err)
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if held, err := LockHeld(path); err != nil || held {
		t.Fatalf("LockHeld after Release = %v, %v; want false, nil", held, err)
	}
	// A probe leaves nothing locked behind it.
	again := mustLock(t, path)
	again.Release()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("lock file gone after probes: %v", err)
	}
}

// A lock path that is a symbolic link is refused, as TryLock refuses it,
// and its target is not created.
func TestLockHeldRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "id.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if held, err := LockHeld(link); err == nil {
		t.Errorf("LockHeld on a symbolic link = %v, nil; want an error", held)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("LockHeld created the link's target: %v", err)
	}
}

func TestLockReleasedMissingFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	path := filepath.Join(dir, "id.lock")

	select {
	case <-LockReleased(path):
	default:
		t.Fatal("LockReleased on a missing file is not closed at once")
	}
	if !WaitReleased(path, 0) {
		t.Error("WaitReleased on a missing file with no time to wait = false; want true")
	}
	assertEmpty(t, dir)
	assertNoWaits(t)
}

func TestLockReleased(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "id.lock")
	l := mustLock(t, path)

	released := LockReleased(path)
	select {
	case <-released:
		t.Fatal("LockReleased closed while the lock is held")
	case <-time.After(50 * time.Millisecond):
	}
	if WaitReleased(path, 10*time.Millisecond) {
		t.Fatal("WaitReleased = true while the lock is held")
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	select {
	case <-released:
		t.Logf("released after %v", time.Since(start))
	case <-time.After(releaseSeen):
		t.Fatalf("LockReleased still open %s after Release", releaseSeen)
	}
	assertNoWaits(t)
	assertNoDescriptors(t, path)

	// A later call waits afresh: the spent wait is not handed out again.
	l = mustLock(t, path)
	if WaitReleased(path, 10*time.Millisecond) {
		t.Fatal("WaitReleased = true while the lock is held again")
	}
	l.Release()
	if !WaitReleased(path, releaseSeen) {
		t.Fatalf("WaitReleased = false %s after Release", releaseSeen)
	}
	assertNoWaits(t)
}

// Many callers waiting on one open dialog, as in the MCP server, share one
// wait: one goroutine, one blocked thread and one descriptor, all gone once
// the dialog ends.
func TestLockReleasedSharesOneWait(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "id.lock")
	l := mustLock(t, path)

	const callers = 300
	chans := make([]<-chan struct{}, callers)
	var wg sync.WaitGroup
	for i := range chans {
		wg.Go(func() { chans[i] = LockReleased(path) })
	}
	wg.Wait()

	for i, c := range chans {
		if c != chans[0] {
			t.Fatalf("caller %d got a wait of its own", i)
		}
	}
	releaseWaits.Lock()
	waits := len(releaseWaits.m)
	releaseWaits.Unlock()
	if waits != 1 {
		t.Fatalf("%d callers started %d waits; want 1", callers, waits)
	}
	// The holder's descriptor and the one wait's.
	if n, ok := lockDescriptors(t, path); ok && n != 2 {
		t.Errorf("%d descriptors of the lock file open while %d callers wait; want 2", n, callers)
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	for i, c := range chans {
		select {
		case <-c:
		case <-time.After(releaseSeen):
			t.Fatalf("caller %d's channel still open %s after Release", i, releaseSeen)
		}
	}
	assertNoWaits(t)
	assertNoDescriptors(t, path)
}

// gc removes an unused lock file while holding it, and a newer request may
// create and lock a new file at the same path. A wait granted on the old
// file goes on to wait for the new one's holder.
func TestLockReleasedFollowsReplacedFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "id.lock")
	old := mustLock(t, path)
	released := LockReleased(path)

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	newer := mustLock(t, path)
	if err := old.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
		t.Fatal("LockReleased closed on the removed file's release while a new file at the path is held")
	case <-time.After(50 * time.Millisecond):
	}

	if err := newer.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	case <-time.After(releaseSeen):
		t.Fatalf("LockReleased still open %s after the new file's Release", releaseSeen)
	}
	assertNoWaits(t)
	assertNoDescriptors(t, path)
}

// A holder in another process that dies is seen to let go at once. The
// second process is flock(1) from util-linux, which uses flock(2) like
// TryLock does.
func TestLockHeldByAnotherProcess(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) from util-linux is not installed")
	}
	path := filepath.Join(t.TempDir(), "id.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// flock(1) forks cat, and both hold the lock: kill them as a group.
	holder := exec.Command(flock, "--exclusive", path, "cat")
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			syscall.Kill(-holder.Process.Pid, syscall.SIGKILL)
			holder.Wait()
		}
		stdin.Close()
	})

	// flock(1) takes the lock as soon as it runs; a loaded machine may
	// take seconds to start it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		held, err := LockHeld(path)
		if err != nil {
			t.Fatal(err)
		}
		if held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("LockHeld = false for 30s while flock(1) holds the file")
		}
	}
	released := LockReleased(path)
	select {
	case <-released:
		t.Fatal("LockReleased closed while another process holds the lock")
	case <-time.After(50 * time.Millisecond):
	}

	start := time.Now()
	if err := syscall.Kill(-holder.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	select {
	case <-released:
		t.Logf("released %v after SIGKILL", time.Since(start))
	case <-time.After(releaseSeen):
		t.Fatalf("LockReleased still open %s after the holder was killed", releaseSeen)
	}
	holder.Wait()
	if held, err := LockHeld(path); err != nil || held {
		t.Errorf("LockHeld after the holder was killed = %v, %v; want false, nil", held, err)
	}
	assertNoWaits(t)
}

// releaseSeen bounds how long a wait takes to see a lock let go. The kernel
// wakes a blocked flock at once, so the wait ends within milliseconds, and
// within releaseSeen however loaded the machine; a wait that missed the
// release would never end.
const releaseSeen = 30 * time.Second

func mustLock(t *testing.T, path string) Lock {
	t.Helper()
	l, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock(%s) = %v, %v; want the lock", path, ok, err)
	}
	return l
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left behind in %s", e.Name(), dir)
	}
}

func assertNoWaits(t *testing.T) {
	t.Helper()
	releaseWaits.Lock()
	defer releaseWaits.Unlock()
	for path := range releaseWaits.m {
		t.Errorf("a wait on %s is still registered", path)
	}
}

func assertNoDescriptors(t *testing.T, path string) {
	t.Helper()
	if n, ok := lockDescriptors(t, path); ok && n != 0 {
		t.Errorf("%d descriptors of the lock file still open; want none", n)
	}
}

// lockDescriptors counts this process's descriptors open on path. ok is
// false where there is no /proc/self/fd to count them in.
func lockDescriptors(t *testing.T, path string) (n int, ok bool) {
	t.Helper()
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == want {
			n++
		}
	}
	return n, true
}

// A Watch is seen by Watched from another descriptor; calls in one process
// share one descriptor; the lock is gone once every caller stopped; and
// Watched creates no file.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "id.watch")
	if Watched(path) {
		t.Fatal("a missing watch file is watched")
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Watched created the file: %v", err)
	}
	stops := make([]func(), 100)
	for i := range stops {
		stop, err := Watch(path)
		if err != nil {
			t.Fatal(err)
		}
		stops[i] = stop
	}
	if !Watched(path) {
		t.Fatal("100 watches are not seen")
	}
	if n, ok := lockDescriptors(t, path); ok && n != 1 {
		t.Fatalf("%d descriptors of the watch file for 100 watches, want 1", n)
	}
	for i, stop := range stops {
		stop()
		stop() // a second stop of the same watch changes nothing
		if i < len(stops)-1 && !Watched(path) {
			t.Fatalf("the watch ended after %d of %d stops", i+1, len(stops))
		}
	}
	if Watched(path) {
		t.Fatal("watched after every watch stopped")
	}
	assertNoDescriptors(t, path)
}
