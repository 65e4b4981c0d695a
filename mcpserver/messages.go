package mcpserver

// The words a model reads. They are full sentences, unlike the CLI's
// one-line messages, because a model reads them as the tool's answer.
const (
	mcpApproved      = "The person approved."
	mcpApprovedAgain = "The person approved (a remembered answer, given at %s)."
	mcpDenied        = "The person denied. Do not proceed."
	mcpDeniedAgain   = "The person denied (a remembered answer, given at %s). Do not proceed."
	mcpCancelled     = "The request was cancelled before the person answered. Treat it as denied: do not proceed."
	mcpPending       = "Still waiting: the dialog is open on the person's screen. Call confirm again with the same arguments to collect the answer."
	mcpExpired       = "Nobody answered before the dialog timed out. Treat it as denied: do not proceed."
	mcpSuperseded    = "A newer request with the same key replaced this one before the person answered. Do not proceed on this request."
	mcpDoNotProceed  = "Do not proceed."
	mcpHeadlessHint  = "No dialog was shown, so nobody approved. Do not proceed. To be asked, the person must run this MCP server where it can show a dialog on their screen (on Linux, with DISPLAY or WAYLAND_DISPLAY in its environment)."
	mcpStale         = "No fresh answer: the last one (%s) is older than the remember window. Calling confirm again shows a new dialog."
	mcpCancelDone    = "The dialog was closed and the request ended cancelled; every call waiting on it gets a denial."
	mcpCancelTooLate = "Too late to cancel: the request had already ended. %s"
	mcpNothingOpen   = "Nothing to cancel: the request already ended %s."
	mcpInvalid       = "invalid argument %s: %s"
	mcpInternal      = "ask-confirm could not complete the request, so nothing was approved: %s"
	hintFlags        = "run 'ask-confirm mcp --help' for the flags and their limits"
	mcpBadDuration   = "%q is not a duration such as 90s or 10m"
	mcpProgress      = "waiting for the person: this call returns within %s; the dialog stays open until %s"

	// The lines for the person reading stderr, as ask-confirm writes them.
	msgError     = "ask-confirm: error: %v"
	msgWarning   = "ask-confirm: warning: %v"
	msgHint      = "ask-confirm: hint: "
	msgNoWorkDir = "finding the working directory for the default scope: %w"

	mcpInstructions = `ask-confirm asks the person at this computer to approve or cancel an action, in a dialog on their screen. Call confirm before any step that needs a human's consent.

A confirm call returns within %s, long before most people answer. When the status is "pending" (should_retry is true), the dialog is still open: call confirm again with exactly the same arguments to collect the answer. That never opens a second dialog; repeat until the status is no longer pending. An answer given while no call was waiting is kept for the next call with the same arguments for %s after it was given. Once a call has received an answer, calls with the same arguments get it again for %s without a new dialog.

Only "approved" means yes. "denied", "cancelled", "expired", "headless", "failed" and "superseded" all mean: do not proceed. Do not change the message just to ask again after a denial.

Use status with a request's key to look at it without waiting, and cancel to withdraw a request you no longer need.`
)
