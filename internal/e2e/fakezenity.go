//go:build e2e && unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/cmd"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Test-only settings of a holder's engine, as Go durations. Only this test
// binary reads them; the shipped binary's holder always runs with the
// engine's defaults.
const (
	holderHumanAnswerEnv = "ASK_CONFIRM_TEST_HUMAN_ANSWER"
	holderSettleEnv      = "ASK_CONFIRM_TEST_SETTLE"
)

// testAskConfirm is ask-confirm as the end-to-end tests run it: Main, but
// a holder takes its engine's render thresholds from holderHumanAnswerEnv
// and holderSettleEnv where a test sets them, so that a test that needs a
// dialog program's exit to read as "never rendered" gets that verdict
// however slowly the loaded machine starts the program.
func testAskConfirm() {
	var c lifecycle.Config
	if d, err := time.ParseDuration(os.Getenv(holderHumanAnswerEnv)); err == nil {
		c.HumanAnswer = d
	}
	if d, err := time.ParseDuration(os.Getenv(holderSettleEnv)); err == nil {
		c.Settle = d
	}
	if code, ok := lifecycle.HolderMain(os.Args[1:], c); ok {
		os.Exit(code)
	}
	os.Exit(cmd.Main())
}

// FakeZenityDirEnv names the directory through which a test drives the
// scripted zenity. Only this test binary reads it; the shipped binary has no
// such variable.
const FakeZenityDirEnv = "ASK_CONFIRM_TEST_FAKE_ZENITY_DIR"

// fakeRenderTime is how long the scripted zenity takes to "map its window"
// before it will take an answer, like the real one (about 0.5 s). Tests that
// run many dialogs shorten it with FakeRenderEnv; it must stay above the
// holder's HumanAnswer time (0.4 s), or every answer counts as a failure.
const fakeRenderTime = 500 * time.Millisecond

// FakeRenderEnv overrides fakeRenderTime, as a Go duration.
const FakeRenderEnv = "ASK_CONFIRM_TEST_FAKE_RENDER"

// FakeZenityVersion is what the scripted zenity prints for --version.
const FakeZenityVersion = "3.44.0-scripted"

// fakeZenity stands in for the zenity program. For --version and
// --help-general it prints a version and the --extra-button option, at
// once. Otherwise it records each call as
// DIR/call-PID (its arguments, NUL-separated, then a line with its parent's
// PID), then:
//   - if DIR/broken exists, prints a GTK-style error and exits 1 at once, as
//     GNOME zenity does when it cannot open the display;
//   - otherwise, after fakeRenderTime, writes DIR/shown-PID and waits for
//     DIR/answer, which it claims by renaming it; "approve" exits 0,
//     "cancel" and "extra" exit 1, "crash" exits 139; the answer's lines
//     after the first are written to stdout, as zenity writes the items
//     picked, the text typed or the extra button's label.
func fakeZenity() {
	dir := os.Getenv(FakeZenityDirEnv)
	if dir == "" {
		fmt.Fprintln(os.Stderr, "fake zenity: "+FakeZenityDirEnv+" is not set")
		os.Exit(98)
	}
	_, err := os.Stat(filepath.Join(dir, "broken"))
	broken := err == nil
	// doctor asks the dialog program its version and its general options,
	// which are not dialogs: answered at once, as GNOME zenity does with a
	// display, and not recorded as calls.
	if !broken && len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version":
			fmt.Println(FakeZenityVersion)
			os.Exit(0)
		case "--help-general":
			fmt.Println("  --extra-button=TEXT   Add an extra button")
			os.Exit(0)
		}
	}
	pid := strconv.Itoa(os.Getpid())
	call := strings.Join(os.Args[1:], "\x00") + "\n" + strconv.Itoa(os.Getppid()) + "\n"
	// Written aside and renamed, so a test never reads a half-written call.
	tmp := filepath.Join(dir, ".call-"+pid)
	if err := os.WriteFile(tmp, []byte(call), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fake zenity:", err)
		os.Exit(97)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "call-"+pid)); err != nil {
		fmt.Fprintln(os.Stderr, "fake zenity:", err)
		os.Exit(97)
	}
	if broken {
		fmt.Fprintln(os.Stderr, "(zenity:1): Gtk-WARNING **: cannot open display: :0")
		os.Exit(1)
	}
	render := fakeRenderTime
	if d, err := time.ParseDuration(os.Getenv(FakeRenderEnv)); err == nil {
		render = d
	}
	time.Sleep(render)
	_ = os.WriteFile(filepath.Join(dir, "shown-"+pid), nil, 0o600)
	claimed := filepath.Join(dir, "answer-"+pid)
	for {
		if os.Rename(filepath.Join(dir, "answer"), claimed) == nil {
			b, _ := os.ReadFile(claimed)
			kind, out, _ := strings.Cut(string(b), "\n")
			// What follows the first line is the dialog's output: the
			// list items or the text picked, or the extra button's label.
			os.Stdout.WriteString(out)
			switch strings.TrimSpace(kind) {
			case "approve":
				os.Exit(0)
			case "cancel", "extra":
				os.Exit(1)
			default:
				os.Exit(139)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}
