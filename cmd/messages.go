package cmd

// Every sentence the command line adds to the engine's lives here, so the
// wording stays consistent: lowercase, no trailing period, a hint says what
// to type next. The engine's own wording is in lifecycle/messages.go.

const (
	msgNoMessage = "--message is required"
	msgNoWorkDir = "finding the working directory for --scope: %w"
	msgCountdown = "ask-confirm: waiting for answer… %s left, dialog open until %s"
	hintFlag     = "run 'ask-confirm --help' for the flags and their limits"
	hintFlagFor  = "run '%s --help' for the flags and their limits"
	hintList     = "run 'ask-confirm list' for the stored requests and their keys"

	msgListEmpty         = "no open requests and no remembered answers"
	msgHolderGone        = "(holder gone)"
	msgListUncollected   = "(uncollected)"
	msgKeyAndAll         = "give a KEY or --all, not both"
	msgKeyOrAll          = "give the KEY of one request, or --all"
	msgNothingOpen       = "no open dialogs"
	msgForgetOpen        = "still open; use ask-confirm cancel"
	msgHistoryUnreadable = "skipped %d unreadable line(s) in %s"
	msgNoOutcome         = "the confirm command ended without an outcome"
	msgRunMCP            = "running %s: %w"
	msgDefaultTwice      = "--default is given %d times; an input starts with one text"
	msgTerminalOffBy     = "turned off by %s=%s in the environment: no person types at this terminal"

	// msgRequestLine is one request in the operators' reports: short
	// identity, title, and what is said of it.
	msgRequestLine  = "%s  %s  %s"
	msgAlready      = "already %s"
	msgCancelledNow = "cancelled"
	msgForgot       = "forgot %d answer(s)"
	msgGCRemoved    = "removed %d record(s) and %d lock file(s)"
	msgGCCompacted  = "; compacted the store"
)

// The doctor's wording. Its outcome (nobody can be asked, an unusable
// store) is the engine's.
const (
	msgDoctorCanAsk      = "a person can be asked here"
	msgDoctorMissingDir  = "missing; created with mode 0700 on first use"
	msgDoctorMissingFile = "not created yet"
	msgDoctorOpenDir     = "group or other users have access; run chmod 700 %s"
	msgDoctorOpenFile    = "group or other users have access; run chmod 600 %s"
	msgDoctorNoMCP       = "none beside ask-confirm or on PATH (only ask-confirm mcp needs it)"
	msgDoctorNoTerminal  = "not checked"
	msgDoctorTerminal    = "%s: where no dialog can be shown, confirm, choose and input ask here (--no-terminal turns it off)"
	msgDoctorOnTerminal  = "no dialog can be shown here (%s), so the command line asks on the terminal %s"
)

const msgNoMCPProgram = "ask-confirm mcp runs the MCP server program " + mcpProgram + ", which is neither beside ask-confirm nor on PATH; scripts/run builds it as bin/" + mcpProgram + ", and CGO_ENABLED=0 go install github.com/ask-confirm/ask-confirm/...@latest installs it beside ask-confirm"

// The wording of ask-confirm remote.
const (
	msgRemoteOneStdin     = "only one of --token-file and --answer-token-file can be - (standard input)"
	msgRemoteTokenRead    = "reading the token from %s: %w"
	msgRemoteTokenEmpty   = "%s holds no token"
	msgRemoteTokenBad     = "%s does not hold a token on its first line: a token has no spaces or control characters"
	msgRemoteChecksFailed = "%d check(s) failed; nothing was recorded"
	msgRemoteAccessHint   = "give each account only its own access: ntfy access ASKER TOPIC wo, ntfy access ASKER REPLY-TOPIC ro, ntfy access ANSWERER REPLY-TOPIC wo, ntfy access PHONE TOPIC ro, with auth-default-access deny-all"
	msgRemoteSave         = "recording the phone's settings: %w"
	msgRemoteSaved        = "recorded in %s"
	msgRemoteFlagMissing  = "%s is required"
	msgRemotePhone        = "On the phone: install the ntfy app, add the server %s with the account that may read %s (not the tokens above) and subscribe to it, or open this link:\n  %s"
	msgRemoteTryIt        = "Then try it: ask-confirm remote test"
	msgRemoteTestTitle    = "ask-confirm remote test"
	msgRemoteTestMessage  = "A test of the phone as a way of asking. Nothing happens whichever button you tap."
	msgRemoteTestSent     = "sent a test request to %s; waiting %s for a tap"
	msgRemoteTestNobody   = "nobody answered on the phone in time"
	msgRemoteTestFailed   = "asking the phone: %w"
	msgRemoteTestApproved = "approved on the phone"
	msgRemoteTestDenied   = "denied on the phone"
	msgRemoteNone         = "no phone is set up; nothing to remove"
	msgRemoteRemoved      = "removed %s; the phone is no longer asked"
	msgRemoteSetupHint    = "run 'ask-confirm remote setup --help'"

	msgDoctorNoRemote        = "not set up (ask-confirm remote setup)"
	msgDoctorDetached        = "can be detached: %s"
	msgDoctorNotDetached     = "cannot be detached: %s"
	msgDoctorNoTerminalHere  = "not available: %s"
	msgDoctorCodexProblem    = "%s: %s"
	msgDoctorPathUnsafe      = "unsafe: %s"
	msgDoctorModeUnsafe      = "%s, unsafe: %s"
	msgDoctorModeNote        = "%s, %s"
	msgDoctorAskYes          = "yes"
	msgDoctorAskTerminal     = "on the terminal only: %s"
	msgDoctorAskNo           = "no: %s"
	msgDoctorNone            = "none"
	msgDoctorCodexOK         = "%s: approved once in Codex (Codex runs it until it changes; then approve it again with /hooks)"
	msgDoctorCodexUntrusted  = "not trusted yet: Codex skips it, without a word in codex exec, until you approve it in its Hooks need review screen or with /hooks"
	msgDoctorCodexDisabled   = "turned off in Codex (enabled = false, or [features] hooks = false)"
	msgDoctorCodexTimeout    = "Codex's timeout (%d s) is not above the hook's --wait (%s): Codex kills the hook first, and shows its own prompt"
	msgDoctorCodexUnreadable = "the Codex configuration could not be read: %v"
	msgDoctorRemoteOK        = "set up through %s (asked: %s): it answers, and the access rules that can be checked without publishing hold"
	msgDoctorRemoteProblems  = "set up through %s, but: %s"
)
