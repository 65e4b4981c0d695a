package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// appDir is the directory name under the XDG base directories.
const appDir = "ask-confirm"

// Paths says where ask-confirm keeps its files.
type Paths struct {
	// DB is the bbolt file of answers: a cache, rebuilt if corrupt.
	DB string
	// Locks holds one lock file per identity; a holder keeps its file locked
	// for as long as it lives.
	Locks string
	// History is the append-only audit log.
	History string
}

// DefaultPaths returns the locations under the XDG cache and state homes.
// Lock files live under the state home rather than XDG_RUNTIME_DIR, which a
// logout wipes while a holder may still be running.
//
// The XDG variables are read once, when the process starts.
func DefaultPaths() Paths {
	state := filepath.Join(xdg.StateHome, appDir)
	return Paths{
		DB:      filepath.Join(xdg.CacheHome, appDir, "answers.db"),
		Locks:   filepath.Join(state, "locks"),
		History: filepath.Join(state, "history.jsonl"),
	}
}

// LockFile returns the path of the lock file for identity id.
func (p Paths) LockFile(id string) string {
	return filepath.Join(p.Locks, id+".lock")
}

// WatchFile returns the path of the file that callers waiting for identity
// id's answer hold a shared lock on.
func (p Paths) WatchFile(id string) string {
	return filepath.Join(p.Locks, id+".watch")
}

// ErrUnsafeDir is returned when a directory ask-confirm would write to is a
// symbolic link, is not a directory, or belongs to another user, and when
// one of its files is a symbolic link, not a regular file or another
// user's. The error is an *UnsafePathError, which names the path.
var ErrUnsafeDir = errors.New("unsafe directory")

// UnsafePathError is the error, matching ErrUnsafeDir, of a path that is
// not safe to keep answers in: Problem is PathProblem's reason.
type UnsafePathError struct {
	Path    string
	Problem string
	// Dir is true for a directory, false for a file.
	Dir bool
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("%v: %s %s", ErrUnsafeDir, e.Path, e.Problem)
}

// Is makes errors.Is(err, ErrUnsafeDir) true.
func (e *UnsafePathError) Is(target error) bool { return target == ErrUnsafeDir }

// Check refuses p's directories (the answers' directory, the state
// directory and its locks directory) and its two files (the answers and
// the history) where one exists and is not safe (PathProblem): a
// symbolic link, the wrong kind of file, or another user's. A path that
// does not exist yet passes: it is made safe when it is created. Only
// ask-confirm's own directories are checked, not the XDG homes above
// them, which a person may well keep behind a link.
//
// It is what every run checks before it asks anything or reads what is
// kept, so that no dialog is shown, and no lock made, through a link.
func (p Paths) Check() error {
	for _, c := range []struct {
		path string
		dir  bool
	}{
		{filepath.Dir(p.DB), true},
		{p.DB, false},
		{filepath.Dir(p.History), true},
		{p.Locks, true},
		{p.History, false},
	} {
		fi, err := os.Lstat(c.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", c.path, err)
		}
		if problem := PathProblem(fi, c.dir); problem != "" {
			return &UnsafePathError{Path: c.path, Problem: problem, Dir: c.dir}
		}
	}
	return nil
}

// EnsureDir creates dir (and missing parents) with mode 0700 and checks that
// it is safe to keep answers in: a real directory, owned by the current
// user, not reachable by others. Group and other permissions are removed if
// present.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	fi, err := checkDir(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("restricting %s to its owner: %w", dir, err)
		}
	}
	return nil
}

// The reasons a path is unsafe, as PathProblem and the store's errors word
// them.
const (
	ProblemSymlink = "is a symbolic link"
	ProblemNotDir  = "is not a directory"
	ProblemNotFile = "is not a regular file"
	ProblemNotMine = "belongs to another user"
)

// PathProblem says why fi (from os.Lstat) is not safe to keep answers in,
// as a directory when dir is true and as a file otherwise, or returns ""
// when it is: a real directory or regular file (not a symbolic link) of the
// current user. It is the one rule that the store applies on every use and
// that ask-confirm doctor reports.
func PathProblem(fi fs.FileInfo, dir bool) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return ProblemSymlink
	case dir && !fi.IsDir():
		return ProblemNotDir
	case !dir && !fi.Mode().IsRegular():
		return ProblemNotFile
	case !ownedByMe(fi):
		return ProblemNotMine
	}
	return ""
}

// checkDir refuses a directory that is a symbolic link, not a directory, or
// another user's. It is checked on every use of the store, not only when the
// store is created, since the directory may be replaced later.
func checkDir(dir string) (fs.FileInfo, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", dir, err)
	}
	if problem := PathProblem(fi, true); problem != "" {
		return nil, &UnsafePathError{Path: dir, Problem: problem, Dir: true}
	}
	return fi, nil
}
