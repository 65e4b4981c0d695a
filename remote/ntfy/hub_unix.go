//go:build unix

package ntfy

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// hubTempName is the hubs' directory in the temporary directory, which
// all users share: the user's ID tells each one's apart.
func hubTempName() string { return "ask-confirm-" + strconv.Itoa(os.Getuid()) }

// hubAttr starts a hub in a session of its own rather than only a group
// of its own: it has no controlling terminal, so closing the terminal of
// the request that started it sends it no SIGHUP, and the holder's kill
// of its program's group misses it.
var hubAttr = &syscall.SysProcAttr{Setsid: true}

// hubDirSafe refuses a directory of the hubs' sockets that is not a
// directory of this user's alone: another user's, a symbolic link, or
// one others may enter.
func hubDirSafe(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return errors.New("not a directory")
	case !ok || int(st.Uid) != os.Getuid():
		return errors.New("owned by another user")
	case fi.Mode().Perm()&0o077 != 0:
		return errors.New("open to other users")
	}
	return nil
}
