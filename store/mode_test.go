//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An answers.db or history.jsonl that another program made readable by
// everyone (0666) is restricted to its owner (0600) by the next request
// that writes it, as trust-and-files.md says the files are.
func TestOpenFilesAreRestrictedToTheirOwner(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Requested })
	history := filepath.Join(filepath.Dir(s.Path()), "history.jsonl")
	if err := AppendEvent(history, sampleEvent(1)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Path(), history} {
		if err := os.Chmod(p, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	put(t, s, "id", func(r *Record) { r.Status = Shown })
	if err := AppendEvent(history, sampleEvent(2)); err != nil {
		t.Fatal(err)
	}
	checkPerm(t, s.Path(), 0o600)
	checkPerm(t, history, 0o600)
}

// ProbeWrite tries a request's writes and leaves nothing behind: in
// directories that exist and in those it would make, and on files that
// exist, which it does not change.
func TestProbeWriteLeavesNothingBehind(t *testing.T) {
	base := t.TempDir()
	existing := filepath.Join(base, "cache")
	if err := os.Mkdir(existing, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(existing, "answers.db")
	if err := os.WriteFile(file, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		dir  bool
	}{
		{existing, true},
		{file, false},
		{filepath.Join(existing, "history.jsonl"), false},
		{filepath.Join(base, "state", "ask-confirm", "locks"), true},
	} {
		if err := ProbeWrite(c.path, c.dir); err != nil {
			t.Errorf("ProbeWrite(%s) = %v, want nil", c.path, err)
		}
	}
	if names := dirNames(t, base); strings.Join(names, " ") != "cache" {
		t.Errorf("%s holds %q after the probes, want only cache", base, names)
	}
	if names := dirNames(t, existing); strings.Join(names, " ") != "answers.db" {
		t.Errorf("%s holds %q after the probes, want only answers.db", existing, names)
	}
	if b, _ := os.ReadFile(file); string(b) != "kept" {
		t.Errorf("the probe changed %s: %q", file, b)
	}
}

// A directory that cannot be made fails the probe as it would fail the
// request, naming the path the request would stop at.
func TestProbeWriteNamesWhereARequestWouldFail(t *testing.T) {
	base := t.TempDir()
	notDir := filepath.Join(base, "home")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	locks := filepath.Join(notDir, ".local", "state", "ask-confirm", "locks")
	err := ProbeWrite(locks, true)
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "creating "+locks+": ") {
		t.Fatalf("ProbeWrite = %v, want it to fail creating %s", err, locks)
	}
	if want := EnsureDir(locks); want == nil {
		t.Fatalf("EnsureDir succeeded where the probe failed")
	}
}
