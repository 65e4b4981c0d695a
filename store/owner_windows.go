//go:build windows

package store

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/windows"
)

// ownedByMe accepts every directory on Windows, where the per-user profile
// directories that XDG maps to are already private to their user.
func ownedByMe(fs.FileInfo) bool { return true }

// openToOthers is false on Windows, where permission bits are not the
// access control and the files are inside the user's own profile.
func openToOthers(fs.FileInfo) bool { return false }

// sharingViolation reports whether err is Windows' refusal to open a file
// that another process holds in a way that shares nothing: briefly, as
// another process links the new store into place and deletes the name it
// built it under (create), which opens the file for deletion.
func sharingViolation(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
