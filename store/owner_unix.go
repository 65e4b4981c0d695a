//go:build unix

package store

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether fi belongs to the effective user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// openToOthers reports whether group or other users have any access to
// fi: a file of ask-confirm's is then restricted to its owner (0600) as
// it is opened.
func openToOthers(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }

// sharingViolation is Windows' alone: a file here opens whoever holds it.
func sharingViolation(error) bool { return false }
