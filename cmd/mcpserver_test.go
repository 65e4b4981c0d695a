//go:build e2e

package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The MCP server program, built once per test binary for the harness.
var mcpServer struct {
	once sync.Once
	dir  string
	err  error
}

// mcpServerEnv returns env with the directory of a freshly built
// ask-confirm-mcp first on PATH, so that ask-confirm mcp finds it. The build
// uses the race detector when this test binary does.
func mcpServerEnv(t *testing.T, env []string) []string {
	t.Helper()
	mcpServer.once.Do(func() {
		mcpServer.dir, mcpServer.err = os.MkdirTemp("", "ask-confirm-mcp-test")
		if mcpServer.err != nil {
			return
		}
		args := []string{"build", "-o", filepath.Join(mcpServer.dir, mcpProgram)}
		if raceBuild {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, "github.com/ask-confirm/ask-confirm/mcpserver/"+mcpProgram)...)
		if out, err := build.CombinedOutput(); err != nil {
			mcpServer.err = fmt.Errorf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, out)
		}
	})
	if mcpServer.err != nil {
		t.Fatalf("building the MCP server: %v", mcpServer.err)
	}
	out := make([]string, 0, len(env)+1)
	path := mcpServer.dir
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path += string(filepath.ListSeparator) + p
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}

func init() { afterTests = append(afterTests, removeMCPServer) }

// removeMCPServer removes what mcpServerEnv built.
func removeMCPServer() {
	if mcpServer.dir != "" {
		os.RemoveAll(mcpServer.dir)
	}
}
