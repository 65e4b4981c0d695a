// Command ask-confirm shows a native approve/cancel dialog and reports the
// person's answer as an exit code. See README.md for the exit-code table.
package main

import (
	"os"

	"github.com/ask-confirm/ask-confirm/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
