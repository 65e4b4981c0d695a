//go:build e2e && unix

package main

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// ask-confirm-mcp --version prints the line ask-confirm version prints, with
// the version a release stamps, and serves nothing: it exits with its
// stdin still open.
func TestVersion(t *testing.T) {
	prog := e2e.StampedProgram(t, "github.com/ask-confirm/ask-confirm/mcpserver/ask-confirm-mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, prog, "--version")
	stdin, err := c.StdinPipe()
	e2e.Must(t, err)
	defer stdin.Close()
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err = c.Run()
	want := e2e.StampedVersionLine(t, "ask-confirm-mcp")
	if code := e2e.ExitCode(t, err); code != 0 || ctx.Err() != nil || stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("--version: exit %d (%v), stdout %q, stderr %q; want exit 0 and %q", code, ctx.Err(), &stdout, &stderr, want)
	}
}
