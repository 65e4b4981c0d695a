//go:build unix

package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/helpexample"
)

// codeBlocks are the fenced code blocks of the Markdown file at path, in
// the section under heading (to the next heading of its level), or in the
// whole file for an empty heading; a line ending in a backslash is joined
// to the next, as the shell joins it.
func codeBlocks(t *testing.T, path, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if heading != "" {
		var ok bool
		if _, text, ok = strings.Cut(text, "\n"+heading+"\n"); !ok {
			t.Fatalf("%s has no heading %q", path, heading)
		}
		level, _, _ := strings.Cut(heading, " ")
		text, _, _ = strings.Cut(text, "\n"+level+" ")
	}
	var blocks []string
	parts := strings.Split(text, "```")
	for i := 1; i < len(parts); i += 2 {
		_, body, _ := strings.Cut(parts[i], "\n")
		var lines []string
		for _, line := range strings.Split(strings.ReplaceAll(body, "\\\n", " "), "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			lines = append(lines, line)
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	return blocks
}

// The ask-confirm command lines of docs/ci.md, and of docs/phone.md's
// Several approvers, name commands that exist, with flags that exist and
// values they take: a job copied from the docs does not fail on a usage
// error.
func TestDocsCommandLinesParse(t *testing.T) {
	f := newCLIFixture(t)
	seen := 0
	for _, doc := range []struct{ path, heading string }{{"../docs/ci.md", ""}, {"../docs/phone.md", "## Several approvers"}} {
		for _, block := range codeBlocks(t, doc.path, doc.heading) {
			commands, err := helpexample.Commands(block, "ask-confirm")
			if err != nil {
				t.Errorf("%s: %v", doc.path, err)
			}
			for _, args := range commands {
				seen++
				c, rest, err := newRootCommand(f.a).Find(args)
				if err == nil {
					err = c.ParseFlags(rest)
				}
				if err == nil {
					err = c.ValidateArgs(c.Flags().Args())
				}
				if err != nil {
					t.Errorf("%s: ask-confirm %s: %v", doc.path, strings.Join(args, " "), err)
				}
			}
		}
	}
	if seen < 8 {
		t.Fatalf("%d ask-confirm command lines in the docs; want the CI jobs' and the setup of three people", seen)
	}
}
