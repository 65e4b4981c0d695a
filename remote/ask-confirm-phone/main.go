// Command ask-confirm-phone reaches the phone's ntfy server for the other
// ask-confirm programs, which run it (see package remote): an HTTPS client
// they do not link, so that their every start stays small.
package main

import (
	"os"

	"github.com/ask-confirm/ask-confirm/remote/ntfy"
)

func main() { os.Exit(ntfy.Main()) }
