package mcpserver

import (
	"bytes"
	"testing"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// --version prints the program's version line on stdout, as ask-confirm
// version does, and exits 0 without serving.
func TestVersionFlag(t *testing.T) {
	c := NewCommand()
	var stdout, stderr bytes.Buffer
	c.SetOut(&stdout)
	if code := execute(c, []string{"--version"}, &stderr); code != 0 || stdout.String() != lifecycle.VersionLine("ask-confirm-mcp")+"\n" || stderr.Len() != 0 {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
	}
}
