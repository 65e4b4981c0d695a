//go:build unix

package cmd

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/remote"
)

// completed is what ask-confirm __complete offered: each value, with its
// description where it has one, and the directive to the shell (4: no
// file names; 0: the shell's own, file names).
type completed struct {
	values, descriptions []string
	directive            int
}

// complete runs ask-confirm __complete args..., as the completion script
// of every shell does on a Tab, and returns what it offered.
func (f *cliFixture) complete(args ...string) completed {
	f.t.Helper()
	r := f.runRaw(append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if r.code != 0 {
		f.t.Fatalf("__complete %q: exit %d, stderr %s", args, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	directive, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		f.t.Fatalf("__complete %q ends with %q, not a directive:\n%s", args, last, r.stdout)
	}
	c := completed{directive: directive}
	for _, l := range lines[:len(lines)-1] {
		value, description, _ := strings.Cut(l, "\t")
		c.values = append(c.values, value)
		c.descriptions = append(c.descriptions, description)
	}
	return c
}

// setUpPeople saves a phone's setup of three people: Alice's phone first,
// then Bob's and Carol's.
func (f *cliFixture) setUpPeople() {
	f.t.Helper()
	s := remote.Settings{Config: remote.Config{Server: "http://127.0.0.1:2586", Topic: "requests", ReplyTopic: "replies",
		Token: "tk_asker", AnswerToken: "tk_answerer", Name: "Alice",
		Approvers: []remote.Approver{{Name: "Bob", Topic: "bob"}, {Name: "Carol", Topic: "carol"}}}, Mode: remote.ModeFallback}
	if err := remote.Save(f.a.remoteFile, s); err != nil {
		f.t.Fatal(err)
	}
}

// Every flag and argument whose values are a fixed set completes to that
// set, with what each value does where it says more than its name, and
// nothing offers file names but the flags that name a file. The bash, zsh,
// fish and PowerShell scripts all ask __complete (TestCompletionScripts).
func TestCompletionOffersEachFixedSet(t *testing.T) {
	t.Setenv(remote.SetupEnv, "")
	f := newCLIFixture(t)
	modes := []string{"off", "also", "fallback", "only"}
	commands := []string{"cancel", "choose", "completion", "doctor", "forget", "gc", "history", "hook", "input", "list", "mcp", "remote", "status", "version"}
	topics := []string{"exit-codes", "json", "identity", "terminal", "environment", "files"}
	for _, tc := range []struct {
		args      []string
		people    bool // with Alice, Bob and Carol set up
		want      []string
		described bool // every value has a description
		directive int
	}{
		{args: []string{"--if-headless", ""}, want: []string{"fail", "deny", "approve"}, described: true, directive: 4},
		{args: []string{"--message", "m", "--if-headless", "a"}, want: []string{"approve"}, described: true, directive: 4},
		{args: []string{"choose", "--if-headless", ""}, want: []string{"fail", "deny"}, described: true, directive: 4},
		{args: []string{"input", "--if-headless", ""}, want: []string{"fail", "deny"}, described: true, directive: 4},
		{args: []string{"--remote", ""}, want: modes, described: true, directive: 4},
		{args: []string{"--remote=f"}, want: []string{"fallback"}, described: true, directive: 4},
		{args: []string{"choose", "--remote", "o"}, want: []string{"off", "only"}, described: true, directive: 4},
		{args: []string{"input", "--remote", ""}, want: modes, described: true, directive: 4},
		{args: []string{"--icon", ""}, want: []string{"question", "warning", "error", "info", "none"}, directive: 4},
		{args: []string{"remote", "setup", "--mode", ""}, want: modes, described: true, directive: 4},
		{args: []string{"remote", "mode", ""}, want: modes, described: true, directive: 4},
		{args: []string{"remote", "mode", "off", ""}, directive: 4},
		{args: []string{"hook", ""}, want: []string{"claude-code", "codex", "gemini", "cursor"}, described: true, directive: 4},
		{args: []string{"hook", "c"}, want: []string{"claude-code", "codex", "cursor"}, described: true, directive: 4},
		{args: []string{"hook", "codex", ""}, directive: 4},
		{args: []string{"help", ""}, want: append(slices.Clone(commands), topics...), described: true, directive: 4},
		{args: []string{"help", "e"}, want: []string{"exit-codes", "environment"}, described: true, directive: 4},
		{args: []string{"help", "remote", ""}, want: []string{"approver", "export", "mode", "off", "setup", "test"}, described: true, directive: 4},
		{args: []string{"help", "remote", "approver", ""}, want: []string{"add", "list", "remove"}, described: true, directive: 4},
		{args: []string{"help", "json", ""}, directive: 4},
		{args: []string{"choose", "--option", "staging=the test cluster", "--option", "production", "--default", ""}, want: []string{"staging", "production"}, directive: 4},
		{args: []string{"choose", "--multiple", "--option", "lint", "--option", "unit", "--default", "lint", "--default", ""}, want: []string{"unit"}, directive: 4},
		{args: []string{"--approvers", ""}, people: true, want: []string{"Alice", "Bob", "Carol"}, directive: 4},
		{args: []string{"--approvers", "Alice,"}, people: true, want: []string{"Alice,Bob", "Alice,Carol"}, directive: 4},
		{args: []string{"hook", "--approvers", "Carol,B"}, people: true, want: []string{"Carol,Bob"}, directive: 4},
		{args: []string{"--approvers", ""}, directive: 4},
		{args: []string{"remote", "test", "--approver", ""}, people: true, want: []string{"Alice", "Bob", "Carol"}, directive: 4},
		{args: []string{"remote", "approver", "remove", ""}, people: true, want: []string{"Bob", "Carol"}, directive: 4},
		{args: []string{"remote", "approver", "remove", ""}, directive: 4},
		// A person's own text, names and durations: nothing to offer,
		// and no file names.
		{args: []string{"--title", ""}, directive: 4},
		{args: []string{"--message", "Deploy"}, directive: 4},
		{args: []string{"--wait", ""}, directive: 4},
		{args: []string{"history", "--key", ""}, directive: 4},
		{args: []string{"status", ""}, directive: 4},
		{args: []string{"cancel", ""}, directive: 4},
		{args: []string{"list", ""}, directive: 4},
		{args: []string{"remote", "approver", "add", ""}, directive: 4},
		// A file's name: the shell's own completion.
		{args: []string{"remote", "setup", "--token-file", ""}, directive: 0},
		{args: []string{"remote", "setup", "--answer-token-file", ""}, directive: 0},
	} {
		if tc.people {
			f.setUpPeople()
		}
		got := f.complete(tc.args...)
		if !slices.Equal(got.values, tc.want) || got.directive != tc.directive {
			t.Errorf("__complete %q: %q :%d, want %q :%d", tc.args, got.values, got.directive, tc.want, tc.directive)
		}
		if tc.described && slices.Contains(got.descriptions, "") {
			t.Errorf("__complete %q: a value without a description: %q", tc.args, got.descriptions)
		}
		if tc.people {
			if err := os.Remove(f.a.remoteFile); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Each shell's script asks ask-confirm __complete for the words to offer,
// so the table above tests what each shell offers.
func TestCompletionScripts(t *testing.T) {
	f := newCLIFixture(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := f.runRaw("completion", shell)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("completion %s: exit %d, stderr %q", shell, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, "ask-confirm") || !strings.Contains(r.stdout, cobra.ShellCompRequestCmd) {
			t.Errorf("completion %s does not ask ask-confirm %s:\n%s", shell, cobra.ShellCompRequestCmd, r.stdout)
		}
	}
}

// textFlags take a person's own text, name, duration or number: they
// complete to nothing. A flag that takes a value is either here or has its
// values in completion.go (flagCompletion).
var textFlags = []string{
	"title", "message", "ok-label", "cancel-label", "option", "scope", "key",
	"wait", "timeout", "remember", "collect-within", "approve-for", "defer", "since",
	"retries", "approvals", "server", "topic", "reply-topic", "name",
	// input's: the text the field starts with.
	"default",
}

// valueList matches the values a flag's usage lists, at its start or after
// a colon: "where nobody can be asked: fail (4) or deny (1)", "dialog
// icon: question|warning|...". Each value may be followed by a remark in
// parentheses.
var (
	valueList = func() *regexp.Regexp {
		word := `[a-z][a-z-]*`
		item := word + `(?: \([^)]*\))?`
		return regexp.MustCompile(`^(?:` + item + `(?:, ` + item + `)* or ` + item + `|` + word + `(?:\|` + word + `)+)(?:$|[ ;])`)
	}()
	remark    = regexp.MustCompile(` \([^)]*\)`)
	separator = regexp.MustCompile(`, | or |\|`)
	// argList matches the values a command's Use lists: "mode [off|also]".
	argList = regexp.MustCompile(`\[([a-z][a-z-]*(?:\|[a-z][a-z-]*)+)\]`)
)

// listedValues are the values usage lists (valueList), or nil.
func listedValues(usage string) []string {
	for i := 0; i <= len(usage); {
		if m := valueList.FindString(usage[i:]); m != "" {
			return separator.Split(strings.TrimRight(remark.ReplaceAllString(m, ""), " ;"), -1)
		}
		next := strings.Index(usage[i:], ": ")
		if next < 0 {
			return nil
		}
		i += next + 2
	}
	return nil
}

// No flag can be added without deciding what it completes to: every flag
// of every command that takes a value has its values in completion.go or
// is listed in textFlags. Whatever its help lists as its values is what it
// offers, and nothing offers file names but the flags that name a file.
func TestEveryValueFlagIsDecided(t *testing.T) {
	t.Setenv(remote.SetupEnv, "")
	f := newCLIFixture(t)
	root := newRootCommand(f.a)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	used := map[string]bool{}
	lists, argLists := 0, 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.Fields(c.CommandPath())[1:]
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Value.Type() == "bool" {
				return
			}
			flag := "--" + fl.Name
			_, registered := c.GetFlagCompletionFunc(fl.Name)
			switch {
			case slices.Contains(textFlags, fl.Name) && !registered:
				used[fl.Name] = true
			case !registered:
				t.Errorf("%s of %q takes a value, but completion.go offers nothing for it: give it its values (flagCompletion), or list it in textFlags if a person types it", flag, c.CommandPath())
				return
			}
			got := f.complete(append(slices.Clone(path), flag, "")...)
			wantDirective := 4
			if slices.Contains(fileFlags, fl.Name) {
				wantDirective = 0
			}
			if got.directive != wantDirective {
				t.Errorf("%s %s: directive %d, want %d", c.CommandPath(), flag, got.directive, wantDirective)
			}
			if listed := listedValues(fl.Usage); listed != nil {
				lists++
				if !slices.Equal(got.values, listed) {
					t.Errorf("%s %s offers %q; its help lists %q", c.CommandPath(), flag, got.values, listed)
				}
			}
		})
		// No command takes a file's name as an argument.
		got := f.complete(append(slices.Clone(path), "")...)
		if got.directive != 4 {
			t.Errorf("%q's arguments: directive %d, want 4 (no file names)", c.CommandPath(), got.directive)
		}
		if m := argList.FindStringSubmatch(c.Use); m != nil {
			argLists++
			if listed := strings.Split(m[1], "|"); !slices.Equal(got.values, listed) {
				t.Errorf("%q offers %q; its use line lists %q", c.CommandPath(), got.values, listed)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, name := range textFlags {
		if !used[name] {
			t.Errorf("textFlags lists --%s, which no command has as a flag without values", name)
		}
	}
	// --if-headless and --remote of the three questions, --icon and
	// remote setup --mode; remote mode's argument.
	if lists < 8 || argLists < 1 {
		t.Errorf("found %d flags and %d commands whose help lists values; the patterns no longer match the help", lists, argLists)
	}
}

// The patterns read the lists the help gives, and only those.
func TestListedValues(t *testing.T) {
	for usage, want := range map[string][]string{
		"where nobody can be asked: fail (4), deny (1) or approve (0, logged)":                  {"fail", "deny", "approve"},
		"ask on the phone too: off, also, fallback or only (default: as remote setup recorded)": {"off", "also", "fallback", "only"},
		"dialog icon: question|warning|error|info|none":                                         {"question", "warning", "error", "info", "none"},
		"dialog, elicitation (the client's form) or auto (dialog, else form)":                   {"dialog", "elicitation", "auto"},
		"the ntfy server's URL: https, or http to a loopback IP; no user:password":              nil,
		"an option, LABEL or LABEL=DESCRIPTION; repeat it, in order":                            nil,
		"only events of this request: identity, prefix or --key":                                nil,
		"ask these people (`NAME,...`), each on their own phone (default: everyone set up)":     nil,
		"the person whose phone reads --topic (default: as recorded, else the local user)":      nil,
		"how long to wait before exiting 3, pending (0 to 24h)":                                 nil,
	} {
		if got := listedValues(usage); !slices.Equal(got, want) {
			t.Errorf("%q lists %q, want %q", usage, got, want)
		}
	}
}

// A command that only groups others (remote, remote approver, completion)
// prints its help when given bare, and refuses an argument that names none
// of its commands with a usage error: cobra alone printed the help and
// exited 0 for both, so a script's typo read as done.
func TestGroupingCommandsRefuseUnknownCommands(t *testing.T) {
	t.Setenv(remote.SetupEnv, "")
	f := newCLIFixture(t)
	var groups []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && c.HasSubCommands() {
			groups = append(groups, strings.TrimPrefix(c.CommandPath(), "ask-confirm "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(f.a))
	for _, want := range []string{"completion", "remote", "remote approver"} {
		if !slices.Contains(groups, want) {
			t.Errorf("the grouping commands %q leave out %q", groups, want)
		}
	}
	for _, g := range groups {
		args := strings.Fields(g)
		bare := f.runRaw(args...)
		if bare.code != 0 || !strings.Contains(bare.stdout, "Available Commands:") || bare.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q, want its help and exit 0; stdout %.200q", g, bare.code, bare.stderr, bare.stdout)
		}
		typo := f.runRaw(append(args, "aprover")...)
		if typo.code != 2 || typo.stdout != "" || !strings.Contains(typo.stderr, `unknown command "aprover" for "ask-confirm `+g+`"`) {
			t.Errorf("%s aprover: exit %d, stdout %.100q, stderr %q; want exit 2 naming the unknown command", g, typo.code, typo.stdout, typo.stderr)
		}
	}
}

// cobra's completion commands take no argument beyond the shell: another
// one is a usage error (exit 2), as every command's is.
func TestCompletionRefusesAnExtraArgument(t *testing.T) {
	f := newCLIFixture(t)
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := f.runRaw("completion", shell, "extra")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("completion %s extra: exit %d, stdout %.100q, stderr %q; want exit 2", shell, r.code, r.stdout, r.stderr)
		}
	}
}
