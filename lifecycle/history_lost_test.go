//go:build linux

package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ask-confirm/ask-confirm/store"
)

// fullStateDir mounts a small tmpfs over te's state directory, makes its
// locks directory, and fills the rest: every write to the history meets
// ENOSPC, as on a full disk, while the store (in the cache directory)
// works. It needs root, as CI runs the suite.
func fullStateDir(t *testing.T, te *testEngine) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a full file system needs root; CI runs as root")
	}
	dir := filepath.Dir(te.paths.History)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Fatalf("mounting a tmpfs to fill: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := os.MkdirAll(te.paths.Locks, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the file system: %v", err)
			}
			break
		}
	}
	if err := store.AppendEvent(te.paths.History, store.Event{Event: "probe"}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the full file system took a history line: %v", err)
	}
}

// The history records every approval handed out: where it cannot be
// written (its file system full) while the store still can, nothing is asked whose answer it could not
// hold (exit 8, no holder started), an approval given while it filled up
// is none (the request fails, and asking again is refused: exit 8), and
// an approval collected later is not
// handed out unrecorded (exit 8). On 3481494 each of these exited 0, with
// the history holding nothing and only a warning on stderr.
func TestApprovalNeedsItsHistory(t *testing.T) {

	t.Run("no history from the start", func(t *testing.T) {
		te := newTestEngine(t)
		fullStateDir(t, te)
		c := testCall("Ship v2?")
		id, content := c.Request.Identity(), c.Request.ContentHash()
		te.start = func([]string) error {
			te.finish(id, content, 0, store.Approved, "")
			return nil
		}
		r := te.ask(c)
		refusedForTheHistory(t, r, "with no history to write")
		if n := te.startCount(); n != 0 {
			t.Fatalf("%d holders started for a request the history could not record", n)
		}
	})

	t.Run("the history fills up before the answer", func(t *testing.T) {
		te := newTestEngine(t)
		c := testCall("Ship v3?")
		id, content := c.Request.Identity(), c.Request.ContentHash()
		if err := os.MkdirAll(te.paths.Locks, 0o700); err != nil {
			t.Fatal(err)
		}
		te.start = func([]string) error {
			fullStateDir(t, te)
			if _, wrote, err := te.finish(id, content, 0, store.Approved, ""); !wrote || err != nil {
				t.Errorf("recording the answer: wrote=%v %v", wrote, err)
			}
			return nil
		}
		r := te.ask(c)
		// The failed attempt is asked again, and the history refuses
		// that attempt before anything is shown.
		refusedForTheHistory(t, r, "an approval the history could not hold")
		if rec := te.record(id); rec.Status != store.Failed || !strings.Contains(rec.Reason, "history could not be written") {
			t.Fatalf("the store says %s: %s", rec.Status, rec.Reason)
		}
		if n := te.startCount(); n != 1 {
			t.Fatalf("%d holders started, want the one whose approval the history could not hold", n)
		}
	})

	t.Run("the history fills up before the answer is collected", func(t *testing.T) {
		te := newTestEngine(t)
		c := testCall("Ship v4?")
		id, content := c.Request.Identity(), c.Request.ContentHash()
		// The caller is gone when the person approves: the answer waits
		// to be collected.
		if _, _, err := te.spawn(c, nil, "", sighting{}, content, 1, ""); err != nil {
			t.Fatal(err)
		}
		if _, wrote, err := te.finish(id, content, 0, store.Approved, ""); !wrote || err != nil {
			t.Fatalf("recording the answer: wrote=%v %v", wrote, err)
		}
		history, err := os.ReadFile(te.paths.History)
		if err != nil || !strings.Contains(string(history), `"approved"`) {
			t.Fatalf("the approval is not in the history: %v\n%s", err, history)
		}
		fullStateDir(t, te)
		r := te.ask(c)
		refusedForTheHistory(t, r, "collecting an approval the history cannot record")
	})
}

// refusedForTheHistory fails the test unless r, the outcome of what, is
// exit 8 naming the history.
func refusedForTheHistory(t *testing.T, r Result, what string) {
	t.Helper()
	if r.ExitCode != ExitInternal || !strings.Contains(r.Message, "history could not be written") {
		t.Fatalf("%s: %+v, want exit 8 naming the history", what, r)
	}
}
