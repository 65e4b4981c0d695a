// Command ask-confirm-askpass is ask-confirm for OpenSSH: set
// SSH_ASKPASS=ask-confirm-askpass, and ssh-agent's confirmations (ssh-add
// -c), ControlMaster ask and user-presence notices appear as ask-confirm
// dialogs, with the same answer store and history. It refuses passphrase
// prompts: ask-confirm never reads secrets.
package main

import (
	"os"

	"github.com/ask-confirm/ask-confirm/askpass"
)

func main() { os.Exit(askpass.Main()) }
