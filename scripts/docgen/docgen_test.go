package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The committed CLI reference and man pages are what the commands generate
// now: a changed flag, default or help text fails here until they are
// regenerated (go -C scripts/docgen run .). The man pages' header date is
// left out of the comparison.
func TestCommittedDocsMatchTheCommands(t *testing.T) {
	fresh := t.TempDir()
	o := output{md: filepath.Join(fresh, "cli"), man: filepath.Join(fresh, "man"), date: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := generate(o); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"cli", "man"} {
		committed := filepath.Join("..", "..", "docs", dir)
		want, got := names(t, filepath.Join(fresh, dir)), names(t, committed)
		if !slices.Equal(want, got) {
			t.Errorf("docs/%s holds %v; the commands generate %v: run go -C scripts/docgen run .", dir, got, want)
			continue
		}
		for _, name := range want {
			w, g := read(t, filepath.Join(fresh, dir, name)), read(t, filepath.Join(committed, name))
			if dir == "man" {
				w, g = manHeaderDate.ReplaceAllString(w, `$1 ""`), manHeaderDate.ReplaceAllString(g, `$1 ""`)
			}
			if w != g {
				t.Errorf("docs/%s/%s differs from what the commands generate: run go -C scripts/docgen run .\n%s", dir, name, firstDifference(g, w))
			}
		}
	}
}

// Every program and command has its page, the pages name every flag, and
// the completions are written for the three shells.
func TestGeneratedPagesAndCompletions(t *testing.T) {
	dir := t.TempDir()
	o := output{md: filepath.Join(dir, "cli"), man: filepath.Join(dir, "man"), completions: filepath.Join(dir, "completions"), version: "9.9.9", date: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)}
	if err := generate(o); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(dir, "man", "ask-confirm.1"))
	if !strings.HasPrefix(page, ".nh\n.TH \"ASK-CONFIRM\" \"1\" \"Mar 2026\" \"ask-confirm 9.9.9\"") {
		t.Errorf("ask-confirm.1 begins %q", page[:min(len(page), 80)])
	}
	for _, root := range programs() {
		for _, name := range []string{"--wait", "--timeout"} {
			if root.Name() == "ask-confirm" && !strings.Contains(page, `\fB`+name+`\fP`) {
				t.Errorf("ask-confirm.1 does not name %s", name)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "man", root.Name()+".1")); err != nil {
			t.Error(err)
		}
	}
	for _, sub := range []string{"list", "status", "cancel", "forget", "gc", "history", "choose", "input", "hook", "remote-setup", "version"} {
		if _, err := os.Stat(filepath.Join(dir, "man", "ask-confirm-"+sub+".1")); err != nil {
			t.Error(err)
		}
	}
	for file, want := range map[string]string{"ask-confirm.bash": "__start_ask-confirm", "_ask-confirm": "#compdef ask-confirm", "ask-confirm.fish": "complete -c ask-confirm"} {
		if s := read(t, filepath.Join(dir, "completions", file)); !strings.Contains(s, want) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDifference shows the first line where the committed page and the
// generated one part.
func firstDifference(committed, generated string) string {
	c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := range max(len(c), len(g)) {
		var cl, gl string
		if i < len(c) {
			cl = c[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if cl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + cl + "\n  generated: " + gl
		}
	}
	return ""
}
