package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
)

// mcpProgram is the MCP server's program. It is not part of this one: the
// MCP SDK would add about 1.3 ms to every ask-confirm start
// (docs/performance.md), and a remembered answer should cost little more than
// starting a Go process.
const mcpProgram = "ask-confirm-mcp"

// newMCPCommand is ask-confirm mcp: it runs ask-confirm-mcp with the same
// arguments, standard streams and environment, and the phone's setup where
// it was given in the environment, so hosts may start either.
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
			// The phone's setup, where it came in the environment, goes
			// on a pipe of its own: the environment has none (remote.TakeEnv).
			code, err := platform.Exec(path, append([]string{mcpProgram}, args...), remote.Handoff())
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
	if path, ok := platform.Program(mcpProgram); ok {
		return path, nil
	}
	return "", errors.New(msgNoMCPProgram)
}
