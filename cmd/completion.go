package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/hook"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// Shell completion: cobra's completion command writes a script for bash,
// zsh, fish or PowerShell that asks ask-confirm __complete ARGS... for the
// words to offer. A flag or argument whose values are a fixed set offers
// that set, read from the list the command validates against, so that the
// two cannot drift; everything else offers nothing, and never file names,
// except the flags that name a file.

// noFiles is the directive of every completion but a file's: offer what is
// given, and no file names in its place.
const noFiles = cobra.ShellCompDirectiveNoFileComp

// ifHeadlessDescriptions and modeDescriptions describe the values of
// --if-headless and of the phone's modes beside each value offered.
var (
	ifHeadlessDescriptions = map[string]string{
		lifecycle.IfHeadlessFail:    "exit 4: nobody could be asked",
		lifecycle.IfHeadlessDeny:    "exit 1, as a deny",
		lifecycle.IfHeadlessApprove: "exit 0, as an approval, logged",
	}
	modeDescriptions = map[string]string{
		remote.ModeOff:      "never ask on the phone",
		remote.ModeAlso:     "ask on the phone beside the dialog or terminal; the first answer wins",
		remote.ModeFallback: "ask on the phone only where nobody can be asked here",
		remote.ModeOnly:     "ask on the phone instead of the dialog or terminal",
	}
)

// fileFlags name a file, whose name the shell completes.
var fileFlags = []string{"token-file", "answer-token-file"}

// addCompletions tells cobra what root's commands complete to: nothing but
// what a function here offers, and no file names, unless a flag names a
// file (flagCompletion). The help command, which cobra attaches only when
// it runs, has its own function (completeHelp).
func (a *app) addCompletions(root *cobra.Command) {
	directive := noFiles
	root.CompletionOptions.DefaultShellCompDirective = &directive
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if complete := a.flagCompletion(c, f.Name); complete != nil {
				// The one error is a flag registered twice, which
				// VisitAll cannot visit.
				_ = c.RegisterFlagCompletionFunc(f.Name, complete)
			}
		})
		switch c.CommandPath() {
		case "ask-confirm hook":
			c.ValidArgsFunction = firstArg(hostValues)
		case "ask-confirm remote mode":
			c.ValidArgsFunction = firstArg(modeValues)
		case "ask-confirm remote approver remove":
			// The first phone's person is removed with remote off.
			c.ValidArgsFunction = firstArg(a.peopleValues(false))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// flagCompletion is what the flag name of c completes to: nil for a flag
// that takes no value or a person's own text, name, duration or number,
// for which there is nothing to offer (TestEveryValueFlagIsDecided holds
// the list).
func (a *app) flagCompletion(c *cobra.Command, name string) cobra.CompletionFunc {
	switch {
	case name == "if-headless":
		// Only a confirmation, the root command's question, approves
		// where nobody can be asked (lifecycle.Call.Validate).
		return values(ifHeadlessValues(!c.HasParent()))
	case name == "remote" || name == "mode":
		return values(modeValues)
	case name == "icon":
		return values(func() []cobra.Completion { return dialog.Icons })
	case name == "approvers":
		return a.completeApprovers
	case name == "approver":
		return values(a.peopleValues(true))
	case name == "default" && c.Flags().Lookup("option") != nil:
		return completeDefault
	case slices.Contains(fileFlags, name):
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		}
	}
	return nil
}

// values completes to those of set that start with what is typed.
func values(set func() []cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(set(), toComplete), noFiles
	}
}

// firstArg completes a command's first argument to set, and any other to
// nothing.
func firstArg(set func() []cobra.Completion) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, noFiles
		}
		return values(set)(c, args, toComplete)
	}
}

// withDescription is value offered with its description, where it has one.
func withDescription(value, description string) cobra.Completion {
	if description == "" {
		return value
	}
	return cobra.CompletionWithDesc(value, description)
}

// withPrefix are the completions of set whose value starts with prefix.
func withPrefix(set []cobra.Completion, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range set {
		if value, _, _ := strings.Cut(c, "\t"); strings.HasPrefix(value, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// ifHeadlessValues are --if-headless's values, without approve for a
// question that is not a confirmation.
func ifHeadlessValues(confirm bool) func() []cobra.Completion {
	return func() []cobra.Completion {
		var out []cobra.Completion
		for _, v := range lifecycle.IfHeadlessValues {
			if v != lifecycle.IfHeadlessApprove || confirm {
				out = append(out, withDescription(v, ifHeadlessDescriptions[v]))
			}
		}
		return out
	}
}

// modeValues are the phone's modes, for --remote, remote setup --mode and
// remote mode.
func modeValues() []cobra.Completion {
	var out []cobra.Completion
	for _, m := range remote.Modes {
		out = append(out, withDescription(m, modeDescriptions[m]))
	}
	return out
}

// hostValues are the agent hosts ask-confirm hook answers.
func hostValues() []cobra.Completion {
	var out []cobra.Completion
	for _, h := range hook.Hosts() {
		out = append(out, withDescription(h.Name, h.Agent))
	}
	return out
}

// peopleValues are the names of the people set up: everyone, or with
// first false everyone but the first phone's person. None where no phone
// is set up, or its setup cannot be read.
func (a *app) peopleValues(first bool) func() []cobra.Completion {
	return func() []cobra.Completion {
		s, err := remote.Load(a.remoteFile)
		if err != nil {
			return nil
		}
		people := s.Approvers
		if first {
			people = s.People()
		}
		var out []cobra.Completion
		for _, p := range people {
			if p.Name != "" {
				out = append(out, p.Name)
			}
		}
		return out
	}
}

// completeApprovers completes --approvers NAME,...: the name after the
// last comma, to a person set up whom the list does not name yet.
func (a *app) completeApprovers(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	named, last := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		named, last = toComplete[:i+1], toComplete[i+1:]
	}
	given := strings.Split(strings.TrimSuffix(named, ","), ",")
	var out []cobra.Completion
	for _, name := range a.peopleValues(true)() {
		if !strings.HasPrefix(name, last) || slices.ContainsFunc(given, func(g string) bool { return strings.EqualFold(g, name) }) {
			continue
		}
		out = append(out, named+name)
	}
	return out, noFiles
}

// completeDefault completes choose --default to the labels of the options
// given so far, each with its description, but those already picked.
func completeDefault(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	options, _ := c.Flags().GetStringArray("option")
	picked, _ := c.Flags().GetStringArray("default")
	var labels []string
	var out []cobra.Completion
	for _, s := range options {
		o := dialog.ParseOption(s)
		// Cobra parses the flags twice before it asks, and each parse
		// appends to the lists: every option comes twice.
		if !slices.Contains(picked, o.Label) && !slices.Contains(labels, o.Label) {
			labels = append(labels, o.Label)
			out = append(out, withDescription(o.Label, o.Description))
		}
	}
	return withPrefix(out, toComplete), noFiles
}

// completeHelp completes help's arguments: a command's subcommands (the
// root's at first), and at first the help topics too.
func completeHelp(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	target, rest, err := c.Root().Find(args)
	if err != nil || len(rest) > 0 {
		return nil, noFiles
	}
	var out []cobra.Completion
	for _, sub := range target.Commands() {
		if sub.IsAvailableCommand() {
			out = append(out, withDescription(sub.Name(), sub.Short))
		}
	}
	if len(args) == 0 {
		for _, t := range helpTopics() {
			out = append(out, withDescription(t.name, t.short))
		}
	}
	return withPrefix(out, toComplete), noFiles
}
