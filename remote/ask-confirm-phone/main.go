// Command ask-confirm-phone reaches the phone's ntfy server for the other
// ask-confirm programs, which run it (see package remote): an HTTPS client
// they do not link, so that their every start stays small.
//
// ask-confirm-phone version (or --version) prints its version, as
// ask-confirm version does; it links package lifecycle for that alone,
// where a release stamps the version.
package main

import (
	"fmt"
	"os"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/remote/ntfy"
)

func main() {
	if asksVersion(os.Args[1:]) {
		fmt.Println(lifecycle.VersionLine(remote.Program))
		os.Exit(0)
	}
	os.Exit(ntfy.Main())
}

// asksVersion reports whether args ask for the version: version, as the
// program's other words (ask, verify, hub) are given, or --version.
func asksVersion(args []string) bool {
	return len(args) == 1 && (args[0] == "version" || args[0] == "--version")
}
