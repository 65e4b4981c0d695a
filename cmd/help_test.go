//go:build unix

package cmd

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Every topic prints its page and exits 0; a command's help still works
// through help; an unknown topic is a usage error that lists the topics.
func TestHelpTopics(t *testing.T) {
	f := newCLIFixture(t)
	for _, name := range topicNames() {
		r := f.runRaw("help", name)
		f.expectCode(r, lifecycle.ExitApproved)
		if len(r.stdout) < 100 || r.stderr != "" {
			t.Errorf("help %s: %d bytes, stderr %q", name, len(r.stdout), r.stderr)
		}
		// Its last line ends, and no blank line follows it: help
		// exit-codes once left the prompt on its last line.
		if !strings.HasSuffix(r.stdout, "\n") || strings.HasSuffix(r.stdout, "\n\n") {
			t.Errorf("help %s ends with %q, want one newline", name, r.stdout[max(0, len(r.stdout)-20):])
		}
	}
	r := f.runRaw("help", "exit-codes")
	for _, c := range lifecycle.ExitCodes {
		// The page wraps a long meaning under itself.
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.ReplaceAll(c.Meaning, "`", "")) {
			t.Errorf("help exit-codes lacks %d: %s", c.Code, c.Meaning)
		}
	}
	r = f.runRaw("help", "list")
	f.expectCode(r, lifecycle.ExitApproved)
	if !strings.Contains(r.stdout, "ask-confirm list") {
		t.Errorf("help list is not list's help:\n%s", r.stdout)
	}
	r = f.runRaw("help", "exit-code")
	f.expectCode(r, lifecycle.ExitUsage)
	if !strings.Contains(r.stderr, `"exit-code" is neither a command nor a help topic`) || !strings.Contains(r.stderr, strings.Join(topicNames(), ", ")) {
		t.Errorf("an unknown topic says:\n%s", r.stderr)
	}
}

// Every help page fits in 120 columns (every command's --help and every
// topic): a --help line is one short clause, and its detail is on the
// topic's page or the command's own help, wrapped.
func TestHelpLinesFitIn120Columns(t *testing.T) {
	f := newCLIFixture(t)
	pages := [][]string{{"--help"}}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "mcp" {
				// mcp's help is the MCP server program's own, held to
				// the same width by its package's tests.
				continue
			}
			p := append(slices.Clone(path), sub.Name())
			pages = append(pages, append(slices.Clone(p), "--help"))
			walk(sub, p)
		}
	}
	walk(newRootCommand(f.a), nil)
	for _, topic := range topicNames() {
		pages = append(pages, []string{"help", topic})
	}
	if len(pages) < 20 {
		t.Fatalf("only %d help pages found: %q", len(pages), pages)
	}
	for _, args := range pages {
		r := f.runRaw(args...)
		f.expectCode(r, lifecycle.ExitApproved)
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > 120 {
				t.Errorf("ask-confirm %s: a line of %d columns:\n%s", strings.Join(args, " "), n, line)
			}
		}
	}
}

// help json describes every field --json prints, and no other: the list
// comes from lifecycle.Result, and each needs its sentence here.
func TestHelpJSONFieldsMatchResult(t *testing.T) {
	fields := resultFields()
	for _, name := range fields {
		if jsonFields[name] == "" {
			t.Errorf("help json has no sentence for the field %q", name)
		}
	}
	for name := range jsonFields {
		if !slices.Contains(fields, name) {
			t.Errorf("help json describes %q, which Result does not print", name)
		}
	}
}
