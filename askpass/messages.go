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
)
