package hook

// Every sentence the hook adapter shows lives here: the dialog's text for
// the person, the reasons the host passes on to the model or the person,
// and why an input was refused. The engine's own wording is in
// lifecycle/messages.go, the command line's in cmd/messages*.go.

// The dialog.
const (
	labelAllow = "Allow"
	labelDeny  = "Deny"

	// titleFormat is the window title: the agent, the tool and the
	// project (the working directory's last element), so a person with
	// agents in several projects sees at once which one asks.
	titleFormat = "%s: %s in %s"

	msgRunCommand = "Run this command?"
	msgWriteFile  = "Write this file?"
	msgEditFile   = "Edit this file?"
	msgReadFile   = "Read this file?"
	msgApplyPatch = "Apply this patch?"
	msgFetchURL   = "Fetch this URL?"
	msgSearchWeb  = "Search the web?"
	msgUseMCPTool = `Use the tool "%s" of the MCP server "%s"?`
	msgUseTool    = `Use the tool "%s"?`

	msgAgentSays    = "%s says: %s"
	msgContentBytes = "(%s bytes of content)"
	msgPatchBytes   = "(a patch of %s bytes)"

	// cutMark ends a name cut to fit a title or key.
	cutMark = "…"
)

// The reasons a host passes on: a decision's reason, which Claude Code
// shows the model, and a hand-back's, which the host shows the person
// beside its own prompt.
const (
	reasonApproved   = "approved in the ask-confirm dialog"
	reasonDenied     = "denied in the ask-confirm dialog"
	reasonAnsweredAt = "%s at %s"
	reasonCancelled  = "the request was cancelled with ask-confirm cancel"
	reasonDeferred   = "ask-confirm: nobody answered the dialog within %s; it stays open, and claude -p --resume collects the answer"
	// reasonApprovalsShort denies a question of several approvers that
	// they did not approve in time: so many approvals, of so many needed,
	// within the wait.
	reasonApprovalsShort = "%d of the %d approvals needed came within %s"

	// handBackPrefix starts every hand-back, so the person knows which
	// hook speaks.
	handBackPrefix       = "ask-confirm: "
	handBackWithdraw     = "nobody answered the dialog within %s; it was closed"
	handBackStopped      = "the hook was stopped before anyone answered the dialog; it was closed"
	handBackPending      = "the dialog gave no answer within %s"
	handBackHostAnswered = "the person answered in %s's own prompt; the dialog was closed"
	handBackExpired      = "nobody answered the dialog before it timed out"
	handBackReplaced     = "the dialog was replaced by a newer one for the same call"
	handBackUnknown      = "the dialog gave no answer"
	// notRunAskAgain ends a hand-back to Gemini CLI or Cursor, which is a
	// deny.
	notRunAskAgain = "; it was not run, and proposing it again asks again"
)

// Why an input was refused. Each follows "malformed hook input: " or
// "unsupported hook event: ".
const (
	errTooLarge     = "it is larger than %d MiB"
	errNotJSON      = "it is not one JSON object: %s"
	errMissing      = "%s is missing or empty"
	errNotObject    = "tool_input is not a JSON object"
	errNoDecision   = "%s takes no decision from a %s hook; install ask-confirm hook %s under %s"
	errNoDecisionOr = "%s or %s"
)
