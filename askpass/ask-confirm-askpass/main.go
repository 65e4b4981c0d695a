// Command ask-confirm-askpass is ask-confirm for OpenSSH: set
// SSH_ASKPASS=ask-confirm-askpass, and ssh-agent's confirmations (ssh-add
// -c), ControlMaster ask and user-presence notices appear as ask-confirm
// dialogs, with the same answer store and history. It refuses passphrase
// prompts: ask-confirm never reads secrets.
//
// ask-confirm-askpass --version prints its version, as ask-confirm version
// does.
package main

import (
	"fmt"
	"os"

	"github.com/ask-confirm/ask-confirm/askpass"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

func main() {
	if asksVersion(os.Args[1:], os.Getenv) {
		fmt.Println(lifecycle.VersionLine("ask-confirm-askpass"))
		os.Exit(0)
	}
	os.Exit(askpass.Main())
}

// asksVersion reports whether args ask for the version rather than carry
// a prompt: the one argument --version, exactly, and no SSH_ASKPASS_PROMPT.
// OpenSSH sets SSH_ASKPASS_PROMPT for every prompt this program answers, so
// a confirmation or a notice is asked or shown whatever its text, and exit
// 0 still means only that a person allowed it. Without it the program
// refuses the prompt, a passphrase's, and has no yes to give.
func asksVersion(args []string, getenv func(string) string) bool {
	return len(args) == 1 && args[0] == "--version" && getenv("SSH_ASKPASS_PROMPT") == ""
}
