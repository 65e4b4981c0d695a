//go:build unix

package cmd

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/hook"
	"github.com/ask-confirm/ask-confirm/internal/helpexample"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Every example in --help does what it shows: each ask-confirm command
// line parses and is asked (here where nobody can be asked, so it ends
// denied by --if-headless deny, never a usage error); each JSON is JSON;
// a hook's configuration runs ask-confirm hook with a host it knows, for
// an event that host takes a decision from; an MCP server's command is an
// absolute path, as hosts need.
func TestHelpExamplesRun(t *testing.T) {
	f := newCLIFixture(t)
	root := newRootCommand(f.a)
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			walk(s)
		}
		if c.Example == "" {
			return
		}
		seen++
		path := c.CommandPath()
		commands, err := helpexample.Commands(c.Example, "ask-confirm")
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
		for _, args := range commands {
			if len(args) > 0 && args[0] == "hook" {
				continue // read below, from its host's configuration
			}
			f := newCLIFixture(t)
			f.headless("no display in this test")
			r := f.runRaw(append(args, "--if-headless", "deny", "--no-terminal")...)
			if r.code != int(lifecycle.ExitDenied) {
				t.Errorf("%s --help's example %q: exit %d, want 1 (asked, denied where nobody can be asked)\n%s", path, args, r.code, r.stderr)
			}
		}
		objects, err := helpexample.JSON(c.Example)
		if err != nil {
			t.Errorf("%s --help: %v", path, err)
		}
		for _, o := range objects {
			checkExampleJSON(t, path, o)
		}
		checkCodexTOML(t, path, c.Example)
	}
	walk(root)
	if seen < 4 {
		t.Fatalf("%d commands with examples, want confirm, choose, input and hook at least", seen)
	}
}

// checkExampleJSON checks a host's configuration in an example: each hook
// command is ask-confirm hook HOST for an event HOST decides, and each MCP
// server's command is an absolute path.
func checkExampleJSON(t *testing.T, path string, o map[string]any) {
	t.Helper()
	if servers, ok := o["mcpServers"].(map[string]any); ok {
		for name, s := range servers {
			if cmd, _ := s.(map[string]any)["command"].(string); !filepath.IsAbs(cmd) {
				t.Errorf("%s --help: MCP server %s's command %q is not an absolute path", path, name, cmd)
			}
		}
	}
	hooks, ok := o["hooks"].(map[string]any)
	if !ok {
		return
	}
	for event, entries := range hooks {
		for _, cmd := range hookCommands(entries) {
			checkHookCommand(t, path, event, cmd)
		}
	}
}

// hookCommands are the "command" strings anywhere in v.
func hookCommands(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if c, ok := v["command"].(string); ok {
			out = append(out, c)
		}
		for _, x := range v {
			out = append(out, hookCommands(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, hookCommands(x)...)
		}
	}
	return out
}

// checkHookCommand checks that cmd, configured for event, runs ask-confirm
// hook with a host that takes a decision from event.
func checkHookCommand(t *testing.T, path, event, cmd string) {
	t.Helper()
	words := strings.Fields(cmd)
	if len(words) < 3 || words[0] != "ask-confirm" || words[1] != "hook" {
		t.Errorf("%s --help: the %s hook runs %q, not ask-confirm hook HOST", path, event, cmd)
		return
	}
	h, ok := hook.LookupHost(words[2])
	if !ok {
		t.Errorf("%s --help: %q names no host", path, cmd)
		return
	}
	for _, e := range h.Events {
		if e == event {
			return
		}
	}
	t.Errorf("%s --help: %q is configured for %s, which %s takes no decision from (%s)", path, cmd, event, h.Agent, strings.Join(h.Events, ", "))
}

// codexHook is a Codex hook in config.toml: its event's table, and later
// its command.
var (
	codexEvent   = regexp.MustCompile(`\[\[hooks\.([A-Za-z]+)\]\]`)
	codexCommand = regexp.MustCompile(`command = "([^"]*)"`)
)

// checkCodexTOML checks the hooks of a Codex config.toml in example.
func checkCodexTOML(t *testing.T, path, example string) {
	t.Helper()
	event := ""
	for _, line := range strings.Split(example, "\n") {
		if m := codexEvent.FindStringSubmatch(line); m != nil {
			event = m[1]
		}
		if m := codexCommand.FindStringSubmatch(line); m != nil {
			if event == "" {
				t.Errorf("%s --help: %q outside a [[hooks.EVENT]] table", path, line)
				continue
			}
			checkHookCommand(t, path, event, m[1])
		}
	}
}
