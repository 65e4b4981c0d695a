//go:build unix

package platform

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The walk that stands in for close_range (macOS always, old Linux
// kernels) marks a descriptor opened without close-on-exec, through the
// table as /dev/fd lists it on both.
func TestCloseOnExecListed(t *testing.T) {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("descriptor %d is close-on-exec before the walk", fd)
	}
	if err := closeOnExecListed("/dev/fd"); err != nil {
		t.Fatal(err)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %d: flags %#x, %v; want close-on-exec", fd, flags, err)
	}
}
