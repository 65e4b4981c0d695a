package askpass

// Every sentence ask-confirm-askpass writes, on stderr: OpenSSH shows
// nothing of it, but a person reading the agent's log does.
const (
	msgError        = "ask-confirm-askpass: %v"
	msgWarning      = "ask-confirm-askpass: warning: %v"
	msgUsage        = "ask-confirm-askpass is run by OpenSSH as SSH_ASKPASS, with its prompt as the only argument"
	msgSecret       = "refusing a passphrase prompt: ask-confirm never reads passphrases or other secrets; use another SSH_ASKPASS program, or a terminal, for them"
	msgUnknownHint  = "%s=%q is not a prompt ask-confirm-askpass knows (confirm or none); refusing it"
	msgBadDuration  = "%s=%q is not a duration such as 30s or 5m"
	msgHeadless     = "cannot show the notice: %s"
	msgNoticeFailed = "the notice could not be shown: %w"
	msgExpired      = "nobody answered within %s (%s); this counts as a deny"
)

// unknownDir stands, in the origin line, for a working directory the
// program cannot name (removed under it, or out of its reach).
const unknownDir = "an unknown directory"

// Manual is ask-confirm-askpass's description in its man page: the program
// takes no flags, so its manual is this text (scripts/docgen).
const Manual = `ask-confirm-askpass is OpenSSH's SSH_ASKPASS program for confirmations. OpenSSH
runs it with the prompt as the only argument, and says in SSH_ASKPASS_PROMPT
what kind of prompt it is:

confirm (ssh-add -c keys, ControlMaster ask, AddKeysToAgent ask): the prompt is
asked in a dialog titled SSH with Allow and Deny, with the lifecycle of
ask-confirm (one dialog per request, answers recorded). Under the prompt the
dialog says who asks: the program that ran ask-confirm-askpass and its working
directory ("Asked by ssh-agent in /"). Allow exits 0 with nothing on stdout,
which OpenSSH reads as yes; anything else exits non-zero with the exit codes
of ask-confirm.

none (a notice such as "Confirm user presence for key"): the prompt is shown in
a window with no buttons until OpenSSH ends the program.

Unset: OpenSSH asks for a passphrase. ask-confirm never reads secrets, so it
refuses at once (exit 2), and ssh goes on to its next authentication method.

Each key use is asked anew. ASK_CONFIRM_ASKPASS_REMEMBER (a duration, default
0s) returns an answer again for that long; ASK_CONFIRM_ASKPASS_TIMEOUT (default
2m) is how long the dialog stays open: ssh-agent serves no other client while
it waits.

ask-confirm-askpass --version, with SSH_ASKPASS_PROMPT not set, prints the
version as ask-confirm version does. A prompt OpenSSH sends is asked whatever
its text, --version included.

ssh-agent asks it, so set SSH_ASKPASS, by its absolute path, before the agent
starts: the agent reads it then, and runs the program without your PATH.
Setting it for ssh-add alone adds the key, and each use of it then fails with
"agent refused operation", without a dialog:

    export SSH_ASKPASS="$(command -v ask-confirm-askpass)"
    eval "$(ssh-agent)"
    ssh-add -c ~/.ssh/id_ed25519`
