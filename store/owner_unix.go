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

// sharingViolation is Windows' alone: a file here opens whoever holds it.
func sharingViolation(error) bool { return false }
