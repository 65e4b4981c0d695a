//go:build e2e && unix

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gofrs/flock"
)

// screens counts, per screen, the tests of this process that use it, and
// holds the screen's lock while any does.
var screens = struct {
	sync.Mutex
	users map[string]int
	locks map[string]*flock.Flock
}{users: map[string]int{}, locks: map[string]*flock.Flock{}}

// lockScreen gives test t the screen named name (an X display, a Wayland
// compositor) until it ends. Every package's end-to-end tests run in a
// test binary of their own, and go test runs packages at once; real
// dialogs on one screen must not: a click or a key would reach another
// test's window. So tests in different processes take turns through a
// file lock, while the tests of one process, which never run real dialogs
// in parallel, share it.
func lockScreen(t *testing.T, name string) {
	t.Helper()
	sum := sha256.Sum256([]byte(name))
	path := filepath.Join(os.TempDir(), "ask-confirm-e2e-screen-"+hex.EncodeToString(sum[:8])+".lock")
	screens.Lock()
	shared := screens.users[name] > 0
	if shared {
		screens.users[name]++
	}
	screens.Unlock()
	if !shared {
		// Waits, without holding screens, as long as the other process's
		// tests take: the test's own -timeout bounds it.
		l := flock.New(path)
		Must(t, l.Lock())
		screens.Lock()
		if screens.users[name] == 0 {
			screens.locks[name] = l
		} else {
			// Another test of this process took the screen meanwhile.
			l.Unlock()
		}
		screens.users[name]++
		screens.Unlock()
	}
	t.Cleanup(func() {
		screens.Lock()
		defer screens.Unlock()
		screens.users[name]--
		if screens.users[name] == 0 {
			screens.locks[name].Unlock()
			delete(screens.locks, name)
		}
	})
}
