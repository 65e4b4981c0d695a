package mcpserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package on a goroutine left running once every test
// has cleaned up: a server session, a client, a fake holder or a progress
// ticker that outlived its test.
func TestMain(m *testing.M) {
	// The platform keeps one goroutine per lock it waits on until the lock
	// is released, whether or not anyone still reads the result; that wait
	// is deliberate (platform.LockReleased) and may still be winding down
	// when the last test ends.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/ask-confirm/ask-confirm/platform.awaitRelease"))
}
