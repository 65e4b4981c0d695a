// Package leakcheck fails a test binary on a goroutine that its tests left
// running, for the TestMain of every package that starts servers, holders
// or waits.
package leakcheck

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Checked wraps m: its Run runs the tests, then each of after, then fails
// on a goroutine left running once the tests passed. It has Run, as
// testscript.Main wants.
func Checked(m *testing.M, after ...func()) interface{ Run() int } {
	return checked{m, after}
}

type checked struct {
	m     *testing.M
	after []func()
}

func (c checked) Run() int {
	code := c.m.Run()
	for _, f := range c.after {
		f()
	}
	if code != 0 {
		return code
	}
	// The platform keeps one goroutine per lock it waits on until the lock
	// is released, whether or not anyone still reads the result (a
	// supersede that gave up waiting): that wait is deliberate
	// (platform.LockReleased) and may still be winding down when the last
	// test ends.
	if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/ask-confirm/ask-confirm/platform.awaitRelease")); err != nil {
		fmt.Fprintln(os.Stderr, "goroutine leak:", err)
		return 1
	}
	return 0
}
