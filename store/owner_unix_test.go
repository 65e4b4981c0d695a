//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestEnsureDirRefusesOtherOwner(t *testing.T) {
	var dir string
	if os.Geteuid() == 0 {
		// Root can give a directory away, and must still refuse it.
		dir = filepath.Join(t.TempDir(), "theirs")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	} else {
		// Anyone else can use a directory root owns. EnsureDir checks the
		// owner before it changes any permission, so this changes nothing.
		dir = "/"
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if int(fi.Sys().(*syscall.Stat_t).Uid) == os.Geteuid() {
			t.Fatalf("this test needs a directory that another user owns; / is ours")
		}
	}
	before, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("EnsureDir(%s owned by another user) = %v, want ErrUnsafeDir", dir, err)
	}
	after, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if before.Mode() != after.Mode() {
		t.Errorf("EnsureDir changed the mode of a directory it refused: %v -> %v", before.Mode(), after.Mode())
	}

	// A store under such a directory is refused before anything is written.
	if os.Geteuid() == 0 {
		s := New(filepath.Join(dir, "answers.db"))
		if _, err := s.Update("id", func(r *Record, found bool) (bool, error) { return true, nil }); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("Update in a directory owned by another user = %v, want ErrUnsafeDir", err)
		}
		if _, err := os.Lstat(s.Path()); err == nil {
			t.Errorf("a store file was created in a directory owned by another user")
		}
	}
}

// Paths.Check refuses ask-confirm's own state directory when another user
// owns it, naming it, before anything is made inside.
func TestPathsCheckRefusesOtherOwnersStateDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	base := t.TempDir()
	p := Paths{
		DB:      filepath.Join(base, "cache", "ask-confirm", "answers.db"),
		Locks:   filepath.Join(base, "state", "ask-confirm", "locks"),
		History: filepath.Join(base, "state", "ask-confirm", "history.jsonl"),
	}
	if err := p.Check(); err != nil {
		t.Fatalf("Check of paths not made yet: %v", err)
	}
	state := filepath.Dir(p.History)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(state, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := p.Check()
	var unsafe *UnsafePathError
	if !errors.Is(err, ErrUnsafeDir) || !errors.As(err, &unsafe) || unsafe.Path != state || unsafe.Problem != ProblemNotMine {
		t.Fatalf("Check = %v, want %s refused as another user's", err, state)
	}
}
