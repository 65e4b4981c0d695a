package ntfy

import (
	"errors"
	"io/fs"
	"syscall"
)

// hubTempName is the hubs' directory in the temporary directory, which
// on Windows is the user's own.
func hubTempName() string { return "ask-confirm" }

// hubAttr starts a hub detached from the console of the request that
// started it, in a process group of its own, so that a Ctrl-C there does
// not reach it.
var hubAttr = &syscall.SysProcAttr{CreationFlags: 0x00000008 | 0x00000200} // DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP

// hubDirSafe refuses a directory of the hubs' sockets that is not a
// directory: the temporary directory on Windows is the user's own.
func hubDirSafe(fi fs.FileInfo) error {
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}
