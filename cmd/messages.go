package cmd

import "github.com/ask-confirm/ask-confirm/store"

// Every sentence ask-confirm shows a person lives here, so the wording stays
// consistent: lowercase, no trailing period, a hint says what to type next.

const (
	msgApproved      = "approved"
	msgDenied        = "denied"
	msgCancelled     = "denied: the request was cancelled with ask-confirm cancel"
	msgPending       = "pending: the dialog is still open; run the same command again to collect the answer"
	msgRetryReason   = "the dialog is still open on the person's screen"
	msgStarting      = "the dialog is being started by another caller"
	msgExpired       = "nobody answered before --timeout; this counts as a deny"
	msgSuperseded    = "a newer request with the same --key replaced this one"
	msgFailed        = "the dialog could not be shown: %s"
	msgUnknownStatus = "the store holds an unknown status %q"
	msgRemembered    = "%s (remembered answer from %s)"
	msgCollectedLate = "after its caller stopped waiting"
	msgUncollected   = "no caller has collected it yet"

	msgHeadless        = "nobody can be asked: %s"
	hintHeadless       = "run where a display is available, or pass --if-headless deny (or approve) to decide without asking"
	msgHeadlessDeny    = "denied without asking: %s (--if-headless deny)"
	msgHeadlessApprove = "approved without asking: %s (--if-headless approve)"

	msgStoreUnusable   = "the answer store is unusable: %v"
	hintStoreUnusable  = "check the permissions and free space of %s, or set XDG_CACHE_HOME and XDG_STATE_HOME to a writable place"
	msgWarning         = "ask-confirm: warning: %v"
	msgHolderStart     = "could not start the dialog holder: %v"
	msgSupersedeStuck  = "the older request under this --key did not close within %s"
	msgHolderDied      = "the dialog holder exited without recording an answer"
	msgHolderDiedLimit = "the dialog holder died %d times without recording an answer"
	msgEarlyExit       = "the dialog program exited before its window could appear"
	msgHolderSignal    = "the dialog holder was stopped by a signal"

	msgStale      = "no fresh answer: the last one (%s) is older than its --remember; asking again shows a new dialog"
	msgStaleRetry = "the remembered answer is too old"

	msgCountdown = "ask-confirm: waiting for answer… %s left, dialog open until %s"

	hintFlag = "run 'ask-confirm --help' for the flags and their limits"
)

// The doctor's wording. It reuses msgHeadless, hintHeadless,
// msgStoreUnusable and hintStoreUnusable from messages.go for its outcome.
const (
	msgDoctorCanAsk      = "a person can be asked here"
	msgDoctorMissingDir  = "missing; created with mode 0700 on first use"
	msgDoctorMissingFile = "not created yet"
	msgDoctorOpenDir     = "group or other users have access; run chmod 700 %s"
	msgDoctorOpenFile    = "group or other users have access; run chmod 600 %s"
	msgDoctorSymlink     = store.ProblemSymlink
	msgDoctorNotDir      = store.ProblemNotDir
	msgDoctorNotFile     = "is not a regular file"
	msgDoctorNotMine     = store.ProblemNotMine
	msgDoctorNoMCP       = "none beside ask-confirm or on PATH (only ask-confirm mcp needs it)"
)

const msgNoMCPProgram = "ask-confirm mcp runs the MCP server program " + mcpProgram + ", which is neither beside ask-confirm nor on PATH; scripts/run builds it as bin/" + mcpProgram + ", and go install github.com/ask-confirm/ask-confirm/cmd/" + mcpProgram + "@latest installs it"
