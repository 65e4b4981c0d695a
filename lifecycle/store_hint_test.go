//go:build unix

package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// A request that cannot make its state directory (the locks, the
// history) says so in its hint, naming that directory, not the answers'
// (cache) one; and the other way round. Here a directory on the way is a
// regular file; a read-only one is cmd's TestDoctorPredictsARequest.
func TestStoreErrorHintNamesTheDirectoryThatFailed(t *testing.T) {
	for _, blocked := range []string{"state-home", "cache-home"} {
		t.Run(blocked, func(t *testing.T) {
			dir := t.TempDir()
			p := store.Paths{
				DB:      filepath.Join(dir, "cache-home", "ask-confirm", "answers.db"),
				Locks:   filepath.Join(dir, "state-home", "ask-confirm", "locks"),
				History: filepath.Join(dir, "state-home", "ask-confirm", "history.jsonl"),
			}
			if err := os.WriteFile(filepath.Join(dir, blocked), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			e := New(Config{
				Paths:       p,
				Backend:     noBackend{t},
				Detect:      func() platform.Session { return platform.Session{CanAsk: true} },
				StartHolder: func([]string, platform.Lock) error { return nil },
				RemoteFile:  filepath.Join(dir, "remote.json"),
			})
			r, err := e.Ask(t.Context(), testCall("Deploy?"))
			if err != nil || r.ExitCode != ExitInternal {
				t.Fatalf("exit %d (%s, %v), want %d", r.ExitCode, r.Message, err, ExitInternal)
			}
			want, not := filepath.Dir(p.History), filepath.Dir(p.DB)
			if blocked == "cache-home" {
				want, not = not, want
			}
			if !strings.Contains(r.Hint, want+",") || strings.Contains(r.Hint, not) {
				t.Errorf("hint %q, want it to name %s, not %s", r.Hint, want, not)
			}
		})
	}
}
