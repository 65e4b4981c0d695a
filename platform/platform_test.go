//go:build unix

package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "id.lock")

	first, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock on a new path = %v, %v; want the lock", ok, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("lock file mode %v, want 0600", perm)
	}

	// flock locks belong to the open file description, so a second open in
	// the same process is refused like another process would be.
	second, ok, err := TryLock(path)
	if err != nil || ok || second != nil {
		t.Fatalf("second TryLock while held = %v, %v, %v; want ok == false and no error", second, ok, err)
	}

	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	third, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock after Release = %v, %v; want the lock", ok, err)
	}
	if err := third.Release(); err != nil {
		t.Fatal(err)
	}
	// The lock file is never removed: another process may hold it.
	if _, err := os.Stat(path); err != nil {
		t.Errorf("lock file gone after Release: %v", err)
	}
}

// A lock path that is a symbolic link is refused rather than followed, so
// a planted link cannot make ask-confirm create or lock a file elsewhere.
func TestTryLockRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "id.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	l, ok, err := TryLock(link)
	if err == nil || ok {
		if l != nil {
			l.Release()
		}
		t.Fatalf("TryLock through a symlink = %v, %v; want an error", ok, err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("TryLock created the symlink's target: %v", err)
	}
}

// ProcessName names this test's own program, and nothing for a process
// that does not exist.
func TestProcessName(t *testing.T) {
	got := ProcessName(os.Getpid())
	exe := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if got == "" || !strings.HasPrefix(exe, got) {
		t.Fatalf("ProcessName(self) = %q, want a prefix of %q", got, exe)
	}
	if got := ProcessName(-1); got != "" {
		t.Fatalf("ProcessName(-1) = %q", got)
	}
}
