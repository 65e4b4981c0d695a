package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// go install github.com/ask-confirm/ask-confirm/...@latest installs the
// four programs and nothing else, on every OS a release is built for:
// helper programs (the docs generator, the Wine tests' window inspector)
// live in modules of their own or behind the e2e build tag.
func TestInstallPatternBuildsTheFourPrograms(t *testing.T) {
	want := []string{
		"github.com/ask-confirm/ask-confirm",
		"github.com/ask-confirm/ask-confirm/askpass/ask-confirm-askpass",
		"github.com/ask-confirm/ask-confirm/mcpserver/ask-confirm-mcp",
		"github.com/ask-confirm/ask-confirm/remote/ask-confirm-phone",
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		c := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
		c.Env = append(c.Environ(), "GOOS="+goos)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("go list for %s: %v", goos, err)
		}
		got := strings.Fields(string(out))
		if !slices.Equal(got, want) {
			t.Errorf("GOOS=%s: ./... holds the programs %v, want %v", goos, got, want)
		}
	}
}
