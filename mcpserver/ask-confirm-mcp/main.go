// Command ask-confirm-mcp is ask-confirm's Model Context Protocol server:
// the confirm command served to AI agents over stdio. ask-confirm mcp runs
// it; it is a program of its own so that the MCP SDK does not weigh on every
// ask-confirm start.
package main

import (
	"os"

	"github.com/ask-confirm/ask-confirm/mcpserver"
)

func main() { os.Exit(mcpserver.Main()) }
