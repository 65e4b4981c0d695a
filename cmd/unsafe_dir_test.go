//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// A directory of ask-confirm's that is a symbolic link, or not a directory,
// is refused with exit 8 by every command, before any dialog is started
// and before anything is written through it, with a message and a hint
// that name that directory (not the answer store's). Before, a symlinked
// state directory let a request show its dialog and make its locks through
// the link, with only a warning, and history printed [] with exit 0.
func TestUnsafeDirectoryRefusedByEveryRun(t *testing.T) {
	commands := [][]string{
		{"--message", "Ship it?", "--json"},
		{"--message", "Ship it?", "--if-headless", "approve"},
		{"choose", "--message", "Which?", "--option", "a", "--option", "b"},
		{"input", "--message", "Name?"},
		{"status", "release"},
		{"list"},
		{"list", "--json"},
		{"history"},
		{"history", "--json"},
		{"cancel", "release"},
		{"cancel", "--all"},
		{"forget", "release"},
		{"gc"},
	}
	for _, c := range []struct {
		name string
		dir  func(p store.Paths) string
		make func(t *testing.T, path, elsewhere string)
		says string
	}{
		{"state directory is a link", func(p store.Paths) string { return filepath.Dir(p.History) }, symlinkTo, store.ProblemSymlink},
		{"locks directory is a link", func(p store.Paths) string { return p.Locks }, symlinkTo, store.ProblemSymlink},
		{"answers directory is a link", func(p store.Paths) string { return filepath.Dir(p.DB) }, symlinkTo, store.ProblemSymlink},
		{"state directory is a file", func(p store.Paths) string { return filepath.Dir(p.History) }, fileAt, store.ProblemNotDir},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			unsafe := c.dir(f.paths)
			elsewhere := filepath.Join(f.dir, "elsewhere")
			must(t, os.Mkdir(elsewhere, 0o700))
			c.make(t, unsafe, elsewhere)
			for _, args := range commands {
				r := f.runRaw(args...)
				if r.code != int(lifecycle.ExitInternal) {
					t.Errorf("ask-confirm %q exited %d, want 8\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
					continue
				}
				// With --json the message is the object's, on stdout.
				if !strings.Contains(r.stdout+r.stderr, unsafe+" "+c.says) || !strings.Contains(r.stderr, "hint: move "+unsafe+" out of the way") {
					t.Errorf("ask-confirm %q says:\n%s\nwant an error and a hint naming %s", args, r.stderr, unsafe)
				}
				if strings.Contains(r.stderr, "answer store is unusable") {
					t.Errorf("ask-confirm %q blames the answer store:\n%s", args, r.stderr)
				}
			}
			// Where nobody could be asked either, the directory is still
			// what every run refuses first: doctor says so too.
			f.headless("no display")
			for _, args := range [][]string{{"--message", "Ship it?", "--if-headless", "approve"}, {"doctor"}} {
				if r := f.runRaw(args...); r.code != int(lifecycle.ExitInternal) || !strings.Contains(r.stderr, unsafe+" "+c.says) {
					t.Errorf("headless, ask-confirm %q exited %d, want 8 naming %s\nstderr: %s", args, r.code, unsafe, r.stderr)
				}
			}
			if n := f.spawnCount(); n != 0 {
				t.Errorf("%d holders started through the unsafe directory", n)
			}
			// Nothing was made through the link: its target is as it was.
			if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
				t.Errorf("files were made through the link: %v", entries)
			}
		})
	}
}

// symlinkTo makes path a symbolic link to the directory elsewhere.
func symlinkTo(t *testing.T, path, elsewhere string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(t, os.Symlink(elsewhere, path))
}

// fileAt makes path a regular file.
func fileAt(t *testing.T, path, _ string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
	must(t, os.WriteFile(path, []byte("not a directory"), 0o600))
}

// help files and docs/trust-and-files.md say what the test above checks:
// the refusal with exit 8, on every run, before any dialog, naming the
// path, for each command it lists.
func TestDocsSayUnsafeDirectoryRefused(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "trust-and-files.md"))
	must(t, err)
	for name, text := range map[string]string{"help files": topicFiles, "docs/trust-and-files.md": string(doc)} {
		flat := strings.Join(strings.Fields(text), " ")
		for _, claim := range []string{"Every run checks ask-confirm's own", "refused with exit 8, before any dialog is shown", "the message names it"} {
			if !strings.Contains(flat, claim) {
				t.Errorf("%s does not say %q", name, claim)
			}
		}
	}
	flat := strings.Join(strings.Fields(string(doc)), " ")
	for _, c := range []string{"status", "list", "history", "cancel", "forget", "gc", "doctor"} {
		if !strings.Contains(flat, "`"+c+"`") {
			t.Errorf("docs/trust-and-files.md does not list %s among the runs that refuse", c)
		}
	}
}
