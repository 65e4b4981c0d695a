package ntfy

import (
	"os"
	"testing"

	"github.com/ask-confirm/ask-confirm/remote"
)

// TestMain runs this test binary as the phone's program where it was
// started as one: a request's hub (startHub) runs this executable.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[0] == remote.Program {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}
