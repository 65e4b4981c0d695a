package cmd

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// A help topic is a page of what is true of every command, as gh has:
// ask-confirm help TOPIC.
type helpTopic struct {
	name, short string
	text        func() string
}

func helpTopics() []helpTopic {
	return []helpTopic{
		{"exit-codes", "what each exit code means", func() string { return topicExitCodes + exitCodeLines(false) + "\n" }},
		{"json", "the fields of --json's one object", jsonTopic},
		{"identity", "what makes two requests one, and the two clocks", func() string { return topicIdentity }},
		{"terminal", "when the question is asked on the terminal", func() string { return topicTerminal }},
		{"environment", "every environment variable ask-confirm reads", func() string { return topicEnvironment }},
		{"files", "where answers, locks and history are kept", func() string { return topicFiles }},
	}
}

// newHelpCommand is cobra's help command, which also knows the topics. An
// unknown command or topic is a usage error (exit 2) that lists them.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | topic]",
		Short: "Help about a command, or a topic: " + strings.Join(topicNames(), ", "),
		Long:  "Help about a command, or one of these topics:\n\n" + topicList(),
		// Cobra's own help command completes commands; this one topics too.
		ValidArgsFunction: completeHelp,
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			if len(args) == 0 {
				return root.Help()
			}
			if sub, rest, err := root.Find(args); err == nil && sub != root && len(rest) == 0 {
				return sub.Help()
			}
			if len(args) == 1 {
				for _, t := range helpTopics() {
					if t.name == args[0] {
						// Every page ends its last line, as a shell
						// prompt expects.
						text := strings.TrimRight(t.text(), "\n") + "\n"
						_, err := io.WriteString(c.OutOrStdout(), text)
						return err
					}
				}
			}
			return lifecycle.Usage(fmt.Errorf(msgUnknownTopic, strings.Join(args, " "), strings.Join(topicNames(), ", ")))
		},
	}
}

func topicNames() []string {
	var names []string
	for _, t := range helpTopics() {
		names = append(names, t.name)
	}
	return names
}

func topicList() string {
	var b strings.Builder
	for _, t := range helpTopics() {
		fmt.Fprintf(&b, "  %-12s %s\n", t.name, t.short)
	}
	return b.String()
}

// jsonTopic lists the fields of lifecycle.Result as --json prints them,
// from the type itself, each with what it says (jsonFields).
func jsonTopic() string {
	var b strings.Builder
	b.WriteString(topicJSON)
	for _, name := range resultFields() {
		b.WriteString(hangingLines(fmt.Sprintf("  %-16s ", name), strings.Repeat(" ", 19), jsonFields[name], 80))
	}
	return b.String()
}

// resultFields are the JSON names of lifecycle.Result's printed fields.
func resultFields() []string {
	var names []string
	t := reflect.TypeFor[lifecycle.Result]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// hangingLines is text after lead, its words wrapped within width columns
// (0: not wrapped) on lines that start with indent, each line ended.
func hangingLines(lead, indent, text string, width int) string {
	var b strings.Builder
	line := lead
	for i, word := range strings.Fields(text) {
		if i > 0 && width > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(line + "\n")
			line = indent + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	return b.String() + line + "\n"
}
