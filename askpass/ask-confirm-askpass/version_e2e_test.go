//go:build e2e && linux

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// ask-confirm-askpass --version prints the line ask-confirm version prints,
// with the version a release stamps; a prompt "--version" that OpenSSH
// sends is still a prompt: asked (here, with no display, nobody can be:
// exit 4), never answered with the version and exit 0.
func TestVersion(t *testing.T) {
	prog := e2e.StampedProgram(t, "github.com/ask-confirm/ask-confirm/askpass/ask-confirm-askpass")
	h := e2e.NewHarness(t)
	run := func(hint string, args ...string) (int, string, string) {
		t.Helper()
		c := exec.Command(prog, args...)
		c.Env, c.Dir = append(h.Env, "SSH_ASKPASS_PROMPT="+hint), h.Work
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return e2e.ExitCode(t, err), stdout.String(), stderr.String()
	}
	if code, out, errs := run("", "--version"); code != 0 || out != e2e.StampedVersionLine(t, "ask-confirm-askpass") || errs != "" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, errs, e2e.StampedVersionLine(t, "ask-confirm-askpass"))
	}
	for _, tc := range []struct {
		hint string
		args []string
		code int
		says string
	}{
		{"confirm", []string{"--version"}, 4, "nobody can be asked"},
		{"something new", []string{"--version"}, 2, "not a prompt ask-confirm-askpass knows"},
		{"", []string{"--version", "--version"}, 2, "the only argument"},
		{"", []string{"version"}, 2, "refusing a passphrase prompt"},
	} {
		code, out, errs := run(tc.hint, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.says) {
			t.Errorf("SSH_ASKPASS_PROMPT=%q %q: exit %d, stdout %q, stderr %q; want exit %d, no stdout, and %q", tc.hint, tc.args, code, out, errs, tc.code, tc.says)
		}
	}
}
