package cmd

// The command line's wording for ask-confirm hook. What the dialog and the
// host are told is the hook package's (hook/messages.go).

const (
	msgHookUnknownHost = "hook: unknown host %q"
	hintHookHosts      = "the host is one of %s, as in: ask-confirm hook claude-code"
	hintHookFlags      = "run 'ask-confirm hook --help' for the flags and their limits"
	msgHookInput       = "hook %s: %v"
	msgHookReadInput   = "reading the hook's input: %w"
	msgHookWrite       = "hook %s: writing the decision: %v"
)
