//go:build e2e && unix

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// ask-confirm-phone version and --version print the line ask-confirm
// version prints, with the version a release stamps: the program links the
// package the stamps go to. Without a word it still says how it is run.
func TestVersion(t *testing.T) {
	prog := e2e.StampedProgram(t, "github.com/ask-confirm/ask-confirm/remote/ask-confirm-phone")
	run := func(args ...string) (int, string, string) {
		t.Helper()
		c := exec.Command(prog, args...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return e2e.ExitCode(t, err), stdout.String(), stderr.String()
	}
	want := e2e.StampedVersionLine(t, "ask-confirm-phone")
	for _, arg := range []string{"version", "--version"} {
		if code, out, errs := run(arg); code != 0 || out != want || errs != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and %q", arg, code, out, errs, want)
		}
	}
	if code, out, errs := run(); code != 2 || out != "" || !strings.Contains(errs, "is run by ask-confirm") {
		t.Errorf("no word: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
