// Command docgen writes what is generated from the cobra commands: the CLI
// reference (docs/cli), the man pages (docs/man) and, for a release, the
// shell completions. The committed copies are checked against the code by
// this package's test, so that flags and defaults cannot drift:
//
//	go -C scripts/docgen run .          # rewrite docs/cli and docs/man
//	go -C scripts/docgen run . -version 1.2.0 -md '' -man DIR -completions DIR
//
// It is a module of its own, as scripts/benchtool is, so that neither it nor
// cobra/doc's Markdown and man libraries are part of the project's module:
// go install github.com/ask-confirm/ask-confirm/... installs the four
// programs and nothing else.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/ask-confirm/ask-confirm/askpass"
	"github.com/ask-confirm/ask-confirm/cmd"
	"github.com/ask-confirm/ask-confirm/mcpserver"
	"github.com/ask-confirm/ask-confirm/remote"
)

func main() {
	md := flag.String("md", "../../docs/cli", "the directory for the Markdown reference (empty: none; relative to scripts/docgen)")
	man := flag.String("man", "../../docs/man", "the directory for the man pages (empty: none)")
	completions := flag.String("completions", "", "the directory for bash, zsh and fish completions (empty: none)")
	version := flag.String("version", "", "the version the man pages name")
	flag.Parse()
	err := generate(output{md: *md, man: *man, completions: *completions, version: *version, date: manDate()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// output says what to write where.
type output struct {
	md, man, completions string
	version              string
	date                 time.Time
}

// programs are the command trees with a manual: ask-confirm (its
// subcommands included), ask-confirm-mcp, ask-confirm-askpass and
// ask-confirm-phone. The program's page,
// ask-confirm-mcp.1, is written last and stands for ask-confirm mcp as well,
// which runs the same server.
func programs() []*cobra.Command {
	return []*cobra.Command{cmd.Command(), mcpserver.NewCommand(), askpassCommand(), phoneCommand()}
}

// phoneCommand stands for ask-confirm-phone in the manual: the other
// programs run it, with what to do on stdin, and it has no flags.
func phoneCommand() *cobra.Command {
	return manualOnly("ask-confirm-phone ask|verify|hub", "Reach the phone's ntfy server for the other ask-confirm programs", remote.ProgramManual)
}

// askpassCommand stands for ask-confirm-askpass in the manual. OpenSSH runs
// that program with a prompt and no flags, so it has no cobra command of
// its own; its text is the package's.
func askpassCommand() *cobra.Command {
	return manualOnly("ask-confirm-askpass PROMPT", "Confirm OpenSSH agent use in a native dialog (SSH_ASKPASS)", askpass.Manual)
}

// manualOnly is a command with a page in the manual and no flags.
func manualOnly(use, short, long string) *cobra.Command {
	c := &cobra.Command{
		Use:                   use,
		Short:                 short,
		Long:                  long,
		DisableFlagsInUseLine: true,
		Run:                   func(*cobra.Command, []string) {},
	}
	// No flags, not even cobra's --help, which the program does not take.
	c.Flags().Bool("help", false, "")
	_ = c.Flags().MarkHidden("help")
	return c
}

func generate(o output) error {
	for _, root := range programs() {
		noAutoGenTag(root)
		if o.md != "" {
			if err := writeDir(o.md, func(dir string) error { return doc.GenMarkdownTree(root, dir) }); err != nil {
				return err
			}
		}
		if o.man != "" {
			source := "ask-confirm"
			if o.version != "" {
				source += " " + o.version
			}
			header := &doc.GenManHeader{Section: "1", Source: source, Manual: "ask-confirm manual", Date: &o.date}
			if err := writeDir(o.man, func(dir string) error { return doc.GenManTree(root, header, dir) }); err != nil {
				return err
			}
		}
	}
	if o.completions != "" {
		return writeCompletions(cmd.Command(), o.completions)
	}
	return nil
}

func writeDir(dir string, gen func(string) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return gen(dir)
}

// writeCompletions writes the completion scripts under the names Debian's
// packages and the archives use.
func writeCompletions(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := root.Name()
	var bash, zsh, fish bytes.Buffer
	err := errors.Join(root.GenBashCompletionV2(&bash, true), root.GenZshCompletion(&zsh), root.GenFishCompletion(&fish, true))
	if err != nil {
		return err
	}
	return errors.Join(
		os.WriteFile(filepath.Join(dir, name+".bash"), bash.Bytes(), 0o644),
		os.WriteFile(filepath.Join(dir, "_"+name), zsh.Bytes(), 0o644),
		os.WriteFile(filepath.Join(dir, name+".fish"), fish.Bytes(), 0o644))
}

// noAutoGenTag keeps the generation date out of every page, so that the
// committed copies change only when the commands do.
func noAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		noAutoGenTag(sub)
	}
}

// manDate is the date in the man pages' header: SOURCE_DATE_EPOCH when a
// release sets it, or today.
func manDate() time.Time {
	if epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		return time.Unix(epoch, 0).UTC()
	}
	return time.Now().UTC()
}

// manHeaderDate matches the date in a man page's .TH line, which the drift
// test leaves out of the comparison.
var manHeaderDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*") "[^"]*"`)
