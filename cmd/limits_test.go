//go:build unix

package cmd

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// A range a flag's help gives: "(0 to 24h)", "(1s to 168h)", "(0 to 5)",
// "(above 0, at most 24h)".
var (
	helpRange = regexp.MustCompile(`\((\S+) to (\S+)\)`)
	helpAbove = regexp.MustCompile(`\(above 0, at most (\S+)\)`)
)

// Every range a flag's help gives is the one the command applies: the
// top of it and the bottom are taken, and a step past either end is
// refused with exit 2 naming the flag. (ASK_CONFIRM_ASKPASS_TIMEOUT's
// "up to 24h" once refused 24h; --approve-for's error gave a range that
// started at 0.)
func TestHelpRangesAreTheCommandsOwn(t *testing.T) {
	f := newCLIFixture(t)
	root := newRootCommand(f.a)
	checked := 0
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			var lo, hi string
			above := false
			if m := helpRange.FindStringSubmatch(fl.Usage); m != nil {
				lo, hi = m[1], m[2]
			} else if m := helpAbove.FindStringSubmatch(fl.Usage); m != nil {
				lo, hi, above = "0", m[1], true
			} else {
				return
			}
			checked++
			var ok, bad []string
			switch fl.Value.Type() {
			case "int":
				l, err1 := strconv.Atoi(lo)
				h, err2 := strconv.Atoi(hi)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s --%s: the range %s to %s is no range of numbers", c.CommandPath(), fl.Name, lo, hi)
				}
				ok, bad = []string{lo, hi}, []string{strconv.Itoa(l - 1), strconv.Itoa(h + 1)}
			case "duration":
				if lo == "0" {
					lo = "0s"
				}
				l, err1 := time.ParseDuration(lo)
				h, err2 := time.ParseDuration(hi)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s --%s: the range %s to %s is no range of durations", c.CommandPath(), fl.Name, lo, hi)
				}
				below := l - time.Millisecond
				ok, bad = []string{l.String(), h.String()}, []string{below.String(), (h + time.Second).String()}
				if above {
					ok, bad = []string{"1ms", h.String()}, []string{"0s", (h + time.Second).String()}
				}
			default:
				t.Fatalf("%s --%s gives a range for a %s", c.CommandPath(), fl.Name, fl.Value.Type())
			}
			for _, v := range ok {
				if r := runWithFlag(t, c, fl.Name, v); r.code == int(lifecycle.ExitUsage) {
					t.Errorf("%s --%s %s, inside its help's range (%s to %s), is refused:\n%s", c.CommandPath(), fl.Name, v, lo, hi, r.stderr)
				}
			}
			for _, v := range bad {
				if r := runWithFlag(t, c, fl.Name, v); r.code != int(lifecycle.ExitUsage) || !strings.Contains(r.stderr, "--"+fl.Name) {
					t.Errorf("%s --%s %s, outside its help's range (%s to %s): exit %d, stderr %q; want exit 2 naming the flag", c.CommandPath(), fl.Name, v, lo, hi, r.code, r.stderr)
				}
			}
		})
	}
	if checked < 10 {
		t.Fatalf("%d flags with a range in their help, want those of confirm, choose, input and hook", checked)
	}
}

// runWithFlag runs the command c with --name value where nobody can be
// asked: a request is then denied (--if-headless deny), a hook gets no
// payload; only a refused value is exit 2.
func runWithFlag(t *testing.T, c *cobra.Command, name, value string) cliRun {
	t.Helper()
	f := newCLIFixture(t)
	f.headless("no display in this test")
	args := strings.Fields(strings.TrimPrefix(c.CommandPath(), "ask-confirm"))
	args = append(args, "--"+name+"="+value)
	if c.Name() == "hook" {
		return f.runHook(nil, "claude-code", args[1])
	}
	args = append(args, "--message", "Ship?", "--if-headless", "deny", "--no-terminal")
	if c.Name() == "choose" {
		args = append(args, "--option", "a", "--option", "b")
	}
	return f.runRaw(args...)
}

// The limits scripting.md gives, and the ranges of the variables the docs
// give, are the code's: read from its constants, not typed twice.
func TestDocsLimitsAreTheCodes(t *testing.T) {
	read := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	d := dialog.ShortDuration
	scripting := read("../docs/scripting.md")
	for _, want := range []string{
		fmt.Sprintf("`--title`: at most %d bytes", dialog.MaxTitleBytes),
		fmt.Sprintf("`--message` (required): at most %d bytes", dialog.MaxMessageBytes),
		fmt.Sprintf("`--cancel-label`: at most %d bytes each", dialog.MaxLabelBytes),
		fmt.Sprintf("`--scope`: at most %d bytes", dialog.MaxScopeBytes),
		fmt.Sprintf("`--key`: at most %d bytes", dialog.MaxKeyBytes),
		fmt.Sprintf("`--wait` is 0 to %s", d(lifecycle.MaxWait)),
		fmt.Sprintf("`--timeout` is above 0 and at most %s", d(lifecycle.MaxTimeout)),
		fmt.Sprintf("`--collect-within` are 0 to %s", d(lifecycle.MaxRemember)),
		fmt.Sprintf("`--approve-for` is %s to %s", d(dialog.MinApproveFor), d(dialog.MaxApproveFor)),
		fmt.Sprintf("is 0 to %d, default %d", lifecycle.MaxRetries, lifecycle.DefaultCall().Retries),
		fmt.Sprintf("`--approvers` names at most %d people", dialog.MaxApprovers),
		fmt.Sprintf("the dialog in rows of at most %d columns and at most %d rows", dialog.Screen.Columns, dialog.Screen.Rows),
		fmt.Sprintf("the phone at most %d lines and %d,%03d bytes, and an MCP client's form %d lines and %d,%03d bytes",
			dialog.Phone.Rows, dialog.Phone.Bytes/1000, dialog.Phone.Bytes%1000, dialog.Form.Rows, dialog.Form.Bytes/1000, dialog.Form.Bytes%1000),
	} {
		if !strings.Contains(scripting, want) {
			t.Errorf("docs/scripting.md does not say %q", want)
		}
	}
	askpassTop := "up to " + d(lifecycle.MaxTimeout)
	for _, file := range []string{"../docs/askpass.md", "../docs/trust-and-files.md"} {
		if text := read(file); !strings.Contains(text, "ASK_CONFIRM_ASKPASS_TIMEOUT") || !strings.Contains(text, askpassTop) {
			t.Errorf("%s does not give ASK_CONFIRM_ASKPASS_TIMEOUT's range as %q", file, askpassTop)
		}
	}
}
