package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ProbeWrite reports whether a request could write path as it would: a
// directory (dir) made where it is missing, or a file made in it where it
// exists; a file opened for writing where it exists, or else made in its
// directory. It tries each for real, since a read-only mount or a full
// disk tells only then, and permission bits mean nothing to root; and it
// leaves nothing behind: a missing directory is tried by making and
// removing a scratch directory in the nearest one above it that exists, a
// new file by making and removing a scratch file, and an existing file is
// opened without being changed. The error wraps an *fs.PathError naming
// the path a request would fail on, and reads as the request's would:
// "creating DIR: mkdir PARENT: read-only file system".
func ProbeWrite(path string, dir bool) error {
	_, err := os.Stat(path)
	switch {
	case err == nil && dir:
		return probeCreate(path, "creating a file in "+path)
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return &probeError{"opening " + path + " for writing", asPathError(err, "open", path)}
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist) && dir:
		// Something above it is no directory.
		return fmt.Errorf("creating %s: %w", path, err)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("checking %s: %w", path, err)
	case dir:
		return probeMkdir(path)
	default:
		// Made in its directory, whose own probe says whether that
		// directory can be made.
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return nil
		}
		return probeCreate(filepath.Dir(path), "creating "+path)
	}
}

// probeError is ProbeWrite's error: what was tried, and the file
// system's answer about the path a request would fail on.
type probeError struct {
	what string
	err  *fs.PathError
}

func (e *probeError) Error() string { return e.what + ": " + e.err.Err.Error() }
func (e *probeError) Unwrap() error { return e.err }

// probeCreate makes and removes a scratch file in dir, which exists.
func probeCreate(dir, what string) error {
	f, err := os.CreateTemp(dir, ".ask-confirm-probe-*")
	if err != nil {
		return &probeError{what, asPathError(err, "open", dir)}
	}
	f.Close()
	return os.Remove(f.Name())
}

// probeMkdir tries what making the missing directory dir (and its
// missing parents) would: a scratch directory made and removed in the
// nearest directory above it that exists.
func probeMkdir(dir string) error {
	parent := filepath.Dir(dir)
	for {
		_, err := os.Stat(parent)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(parent) == parent {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		parent = filepath.Dir(parent)
	}
	scratch, err := os.MkdirTemp(parent, ".ask-confirm-probe-*")
	if err != nil {
		// The first directory a request would make: the one below
		// parent on the way to dir.
		rel, _ := filepath.Rel(parent, dir)
		first := filepath.Join(parent, strings.Split(rel, string(filepath.Separator))[0])
		return fmt.Errorf("creating %s: %w", dir, asPathError(err, "mkdir", first))
	}
	return os.Remove(scratch)
}

// asPathError is err as an *fs.PathError about path rather than the
// scratch name it was tried under.
func asPathError(err error, op, path string) *fs.PathError {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: path, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
