//go:build !e2e || !unix

package mcpserver

import (
	"os"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/leakcheck"
)

// TestMain fails the package on a goroutine left running once every test
// has cleaned up: a server session, a client, a fake holder or a progress
// ticker that outlived its test.
func TestMain(m *testing.M) { os.Exit(leakcheck.Checked(m).Run()) }
