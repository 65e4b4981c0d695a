package cmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
)

// mcpProgram is the MCP server's program. It is not part of this one: the
// MCP SDK would add about 1.3 ms to every ask-confirm start
// (docs/performance.md), and a remembered answer should cost little more than
// starting a Go process.
const mcpProgram = "ask-confirm-mcp"

// newMCPCommand is ask-confirm mcp: it runs ask-confirm-mcp with the same
// arguments, standard streams and environment, so hosts may start either.
func newMCPCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve confirm, ask, status and cancel to AI agents over the Model Context Protocol (stdio)",
		Long: `ask-confirm mcp runs the Model Context Protocol server, the program
ask-confirm-mcp, with the same arguments. It looks for ask-confirm-mcp beside
ask-confirm first, then on PATH. See ask-confirm mcp --help for its flags.`,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			path, err := findMCPProgram()
			if err != nil {
				return err
			}
			code, err := platform.Exec(path, append([]string{mcpProgram}, args...))
			if err != nil {
				return fmt.Errorf(msgRunMCP, path, err)
			}
			return &exitError{lifecycle.ExitCode(code)}
		},
	}
}

// findMCPProgram returns the ask-confirm-mcp beside this executable (or
// beside the file it links to), or else the one on PATH.
func findMCPProgram() (string, error) {
	name := mcpProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(mcpProgram); err == nil {
		return p, nil
	}
	return "", errors.New(msgNoMCPProgram)
}
