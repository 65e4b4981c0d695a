package lifecycle

import (
	"slices"
	"testing"

	"github.com/ask-confirm/ask-confirm/platform"
)

// A holder's command line says whether the phone's setup comes on its
// stdin, and never carries the setup itself; the holder reads back what
// its caller wrote.
func TestHolderArgsRoundTrip(t *testing.T) {
	for _, setup := range []bool{false, true} {
		argv := holderArgs("id", "content")
		if setup {
			argv = append(argv, holderSetupFlag)
		}
		id, content, lockFD, onStdin, err := parseHolderArgs(argv[2:])
		if err != nil || id != "id" || content != "content" || onStdin != setup {
			t.Fatalf("%q: %q %q %d %v %v", argv, id, content, lockFD, onStdin, err)
		}
		if platform.LockHandedOff && lockFD != platform.HolderLockFD {
			t.Fatalf("%q: lock at %d", argv, lockFD)
		}
	}
	if slices.Contains(holderArgs("id", "content"), holderSetupFlag) {
		t.Fatal("a holder is told to read a setup on stdin where none was given")
	}
	for _, bad := range [][]string{{"id"}, {holderSetupFlag, "id", "content"}, {"id", "content", "--lock-fd=x"}, {"id", "content", "--lock-fd=3", holderSetupFlag, holderSetupFlag}} {
		if _, _, _, _, err := parseHolderArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
