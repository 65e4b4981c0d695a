//go:build e2e && unix

package fleete2e_test

import (
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// TestMain runs the end-to-end tests with this test binary as the programs
// they start (e2e.Main).
func TestMain(m *testing.M) { e2e.Main(m) }
