package mcpserver

// The words a model reads. They are full sentences, unlike the CLI's
// one-line messages, because a model reads them as the tool's answer.
// The origin line: who asks through this server.
const (
	mcpOriginWho     = "%s (through MCP)"
	mcpUnknownClient = "an MCP client"
)

const (
	mcpApproved      = "The person approved."
	mcpApprovedAgain = "The person approved (a remembered answer, given at %s)."
	mcpDenied        = "The person denied. Do not proceed."
	mcpDeniedAgain   = "The person denied (a remembered answer, given at %s). Do not proceed."
	mcpCancelled     = "The request was cancelled before the person answered. Treat it as denied: do not proceed."
	mcpPending       = "Still waiting: the dialog is open on the person's screen. Call confirm again with the same arguments to collect the answer."
	// mcpPendingApprovers is a team's gate still open: so many approvals
	// of so many needed.
	mcpPendingApprovers = "Still waiting: %d of the %d approvals needed so far, each approver on their own phone. Call confirm again with the same arguments to collect the answer."
	mcpExpired          = "Nobody answered before the dialog timed out. Treat it as denied: do not proceed."
	mcpSuperseded       = "A newer request with the same key replaced this one before the person answered. Do not proceed on this request."
	mcpDoNotProceed     = "Do not proceed."
	mcpHeadlessHint     = "No dialog was shown, so nobody approved. Do not proceed. To be asked, the person must run this MCP server where it can show a dialog on their screen (on Linux, with DISPLAY or WAYLAND_DISPLAY in its environment)."
	mcpHeadlessAuto     = "No dialog or form was shown, so nobody approved. Do not proceed. To be asked, the person must run this MCP server where it can show a dialog on their screen (on Linux, with DISPLAY or WAYLAND_DISPLAY in its environment), or use a client that shows MCP elicitation forms."
	mcpNoForm           = "No form was shown, so nobody approved. Do not proceed. This server asks only through the client's form (--ask-with elicitation): the person must use a client that shows MCP elicitation forms, or start the server with --ask-with auto where it can show a dialog."
	mcpStale            = "No fresh answer: the last one (%s) is older than the remember window. Calling the same tool again with the same arguments asks the person again."
	mcpStaleNoAnswer    = "%s Calling the same tool again with the same arguments asks the person again."
	mcpCancelDone       = "The dialog was closed and the request ended cancelled; every call waiting on it gets a denial."
	mcpCancelTooLate    = "Too late to cancel: the request had already ended. %s"
	mcpNothingOpen      = "Nothing to cancel: the request already ended %s."
	mcpInvalid          = "invalid argument %s: %s"
	// mcpServerFlag is a call refused for the server's own --approvers or
	// --approvals, which the model cannot mend.
	mcpServerFlag        = "ask-confirm could not ask, so nothing was approved: the server's %s %s; its operator must change how the server is started"
	msgApprovalsBelowOne = "%d is below 1: at least one of the approvers must approve"
	mcpInternal          = "ask-confirm could not complete the request, so nothing was approved: %s"
	hintFlags            = "run 'ask-confirm mcp --help' for the flags and their limits"
	mcpBadDuration       = "%q is not a duration such as 90s or 10m"
	mcpProgress          = "waiting for the person: this call returns within %s; the dialog stays open until %s"

	// The lines for the person reading stderr, as ask-confirm writes them.
	msgError     = "ask-confirm: error: %v"
	msgWarning   = "ask-confirm: warning: %v"
	msgHint      = "ask-confirm: hint: "
	msgNoWorkDir = "finding the working directory for the default scope: %w"
	msgAskWith   = "%q is not one of dialog, elicitation, auto"

	// The client's form (elicitation), as the person reads it, and why an
	// answer to it was not taken; a request that fails says so in its
	// result.
	formMessage       = "%s\n\n%s\n\n(asked by ask-confirm, which takes only your explicit choice)"
	formDecisionTitle = "Your decision"
	formDecisionHelp  = "%q to approve (%s) or %q to deny (%s); nothing is chosen for you"
	msgNobody         = "nobody can be asked: %s"
	msgNoElicitation  = "--ask-with elicitation, but the client did not declare the elicitation capability"
	msgFormTooSoon    = "the form was answered sooner than a person can read it after it was sent, so it was not shown to one"
	msgFormFailed     = "asking through the client's form: %w"
	msgFormNotAnswer  = "the client answered the form with %T, not a form's result"
	msgFormAction     = "the client answered the form with the unknown action %q"
	msgFormNoDecision = "the form was accepted without a decision"
	msgFormDecision   = "the form was accepted with the decision %v, which is neither approve nor deny"
	msgFormToken      = "making the form's token: %w"
	msgFormField      = "the form was accepted with the field %q, which it did not ask for"
	msgFormAnswer     = "the form was accepted with the answer %v, which is not what it asked for"
	msgFormBoth       = "the form was accepted with both an option and an answer of the person's own, where it asked for one"
	msgFormNoChoice   = "the form was accepted without a choice"

	// A question's form (the ask tool), as the person reads it.
	formChoiceTitle  = "Your choice"
	formChoiceHelp   = "pick one; nothing is chosen for you"
	formChoiceNone   = "(pick one)"
	formChoicesTitle = "Your choices"
	formChoicesHelp  = "pick one or more; nothing is chosen for you"
	formOtherTitle   = "Or your own answer"
	formOtherHelp    = "instead of an option, if none fits"
	formTextTitle    = "Your answer"
	formTextHelp     = "for example %q"

	// How the server asks, as the instructions and the confirm tool's
	// description say it, by --ask-with.
	mcpAsksDialog      = "in a native dialog on their screen"
	mcpAsksAuto        = "in a native dialog on their screen or, where this server cannot show one, through a form your client shows (MCP elicitation)"
	mcpAsksElicitation = "through a form your client shows (MCP elicitation)"

	// mcpConfirmApprovers follows the description where the server's
	// --approvers or --approvals make each call a team's gate.
	mcpConfirmApprovers   = ` Each call is decided by %s, each on their own phone, not by the person at this computer alone: it may stay pending a while; keep calling confirm with the same arguments.`
	mcpApproversOf        = "%d of %s"
	mcpApproversSetUp     = "%d of the people set up"
	mcpConfirmDescription = `Ask the person at this computer to approve or cancel an action, %s. Returns within %s. Status "approved" is the only yes. Status "pending" (should_retry true) means the question is still open: call confirm again with exactly the same arguments to collect the answer; this never asks a second time. Any other status means do not proceed.`

	mcpInstructions = `ask-confirm asks the person at this computer to approve or cancel an action, %s. Call confirm before any step that needs a human's consent. Call ask when you need the person to choose between alternatives (options, one or several) or to give a value (free text); it has the same pending and retry rules, and its result holds the answer. Never use either for passwords or other secrets: questions and answers are kept. A form from this server is the person's to answer: never fill it in for them.

A confirm call returns within %s, long before most people answer. When the status is "pending" (should_retry is true), the question is still open: call confirm again with exactly the same arguments to collect the answer. That never asks a second time; repeat until the status is no longer pending. An answer given while no call was waiting is kept for the next call with the same arguments for %s after it was given. Once a call has received an answer, calls with the same arguments get it again for %s without a new dialog.

Only "approved" means yes. "denied", "cancelled", "expired", "headless" (nobody could be asked), "failed" and "superseded" all mean: do not proceed. Do not change the message just to ask again after a denial.

Use status with a request's key to look at it without waiting, and cancel to withdraw a request you no longer need.`
)

// The ask tool's words.
const (
	mcpAskChose      = "The person chose: %s.%s"
	mcpAskTyped      = "The person answered: %q.%s"
	mcpAskOwn        = "The person gave an answer of their own instead of an option: %q.%s"
	mcpAskAlsoOwn    = " They also gave an answer of their own: %q."
	mcpAskRemembered = " (A remembered answer, given at %s.)"
	mcpAskCancelled  = "The person cancelled the question without answering. Do not proceed as if they had chosen."
	mcpAskPending    = "Still waiting: the question is open on the person's screen. Call ask again with exactly the same arguments to collect the answer."
	mcpAskHeadless   = "No dialog or form was shown, so nobody answered. Do not guess the answer. To be asked, the person must run this MCP server where it can show a dialog on their screen (on Linux, with DISPLAY or WAYLAND_DISPLAY in its environment), or use a client that shows MCP elicitation forms."

	mcpAskDescription = `Ask the person at this computer a question beyond yes or no, %s: pick one of your options (or several, with multiple), or type a line of text (no options). Use it when you need the person's decision between alternatives or a value (an environment, a fix to apply, a name); use confirm to ask permission for one action. Never use it for passwords or other secrets: answers are kept. Returns within %s. Status "approved" means the person answered, and "answer" holds it. Status "pending" (should_retry true) means the question is still open: call ask again with exactly the same arguments to collect the answer; this never asks a second time. Any other status means there is no answer: do not proceed as if there were one.`
)
