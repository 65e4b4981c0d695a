package lifecycle

// Every sentence the request engine reports lives here, so the wording stays
// consistent: lowercase, no trailing period, a hint says what to type next.
// The front ends word their own contracts (cmd/messages.go for the command
// line, mcpserver/messages.go for the model).

const (
	msgApproved        = "approved"
	msgDenied          = "denied"
	msgCancelled       = "denied: the request was cancelled with ask-confirm cancel"
	msgPending         = "pending: the dialog is still open; run the same command again to collect the answer"
	msgRetryReason     = "the dialog is still open on the person's screen"
	msgPendingPhone    = "pending: the request is still open on the phone; run the same command again to collect the answer"
	msgRetryPhone      = "the request is still open on the person's phone"
	msgStarting        = "the dialog is being started by another caller"
	msgExpired         = "nobody answered before --timeout; this counts as a deny"
	msgSuperseded      = "a newer request with the same --key replaced this one"
	msgWithdrawn       = "withdrawn: nobody answered before its caller stopped waiting, and the caller asked the person another way"
	msgFailed          = "the dialog could not be shown: %s"
	msgFailedPhoneOnly = "the request could not be asked: %s"
	msgUnknownStatus   = "the store holds an unknown status %q"
	msgRemembered      = "%s (remembered answer from %s)"

	msgHeadless        = "nobody can be asked: %s"
	hintHeadless       = "run where a display is available, or pass --if-headless deny (or approve) to decide without asking"
	hintHeadlessDeny   = "run where a display is available, or pass --if-headless deny to decide without asking"
	msgHeadlessDeny    = "denied without asking: %s (--if-headless deny)"
	msgHeadlessApprove = "approved without asking: %s (--if-headless approve)"

	msgStoreUnusable   = "the answer store is unusable: %v"
	hintStoreUnusable  = "check the permissions and free space of %s, or set XDG_CACHE_HOME and XDG_STATE_HOME to a writable place"
	msgUnsafePath      = "%s %s; ask-confirm keeps its answers, locks and history only where no one else can redirect them"
	hintUnsafePath     = "move %s out of the way (ask-confirm makes a new one of your own), or set XDG_CACHE_HOME and XDG_STATE_HOME to a place of your own"
	msgHolderStart     = "could not start the dialog holder: %v"
	msgCloseStuck      = "the request's holder did not close it within %s"
	msgHolderDiedLimit = "the dialog holder died %d times without recording an answer"
	msgEarlyExit       = "the dialog program exited before its window could appear"
	msgEarlyAnswer     = "the %s was answered sooner than a person can read it, so it was not shown to one"
	msgHolderSignal    = "the dialog holder was stopped by a signal"
	msgCollectFailed   = "recording that the answer was collected: %w"

	msgStale         = "no fresh answer: the last one (%s at %s) is older than the --remember it was asked with (%s); asking again shows a new dialog"
	msgStaleRetry    = "the remembered answer is too old"
	msgStaleFailed   = "the dialog could not be shown (%s); a failure is never reused, so asking again shows the dialog again"
	msgFailedRetry   = "the last try could not show the dialog"
	msgNoAnswerRetry = "the request was withdrawn without an answer"
	msgStatusKept    = "%s (remembered answer from %s, kept for the --remember it was asked with: %s)"

	msgWithdrawnNoAnswer = "no answer: the request was withdrawn when its caller stopped waiting and asked another way; asking again shows a new dialog"

	msgCollectedLate    = "after its caller stopped waiting"
	msgCollectedWaiting = "by the callers waiting for it"
	// MsgUncollected says that an ended request's answer has not reached
	// any caller yet.
	MsgUncollected = "no caller has collected it yet"

	msgNoMatch       = "no stored request matches %q"
	msgTooShort      = "no request was asked with --key %q, and as the start of an identity it is too short: give at least %d of its characters"
	msgAmbiguous     = "%q matches %d requests; give more of the identity"
	msgKeyManyWays   = "--key %q was asked more than one way (%s), each its own request; give the identity"
	hintKeyManyWays  = "give the identity of the one you mean; ask-confirm list shows each request's way of asking (WAY) and key (KEY)"
	msgWayOf         = "%s: %s"
	wayDialog        = "dialog"
	msgKeyAndPrefix  = "%q is both the --key of %s and the start of the identity of %s; it names neither"
	hintKeyAndPrefix = "give the whole identity: %s for the --key, or %s"
	msgCancelGone    = "the request disappeared from the store while it was being cancelled"
	msgCancelFailed  = "cancelling %s: %w"
	msgRecordHistory = "recording %s in the history: %w"

	msgHoldUsage      = "hold IDENTITY CONTENT_HASH [--lock-fd=N] is started by ask-confirm itself"
	msgHoldBadFD      = "hold: bad lock descriptor %q"
	msgHoldError      = "ask-confirm: error: %v"
	msgNotMine        = "the request is no longer waiting for a holder"
	msgLockKept       = "another holder keeps the identity lock"
	msgRecordAnswer   = "recording the answer: %w"
	msgRecordHeadless = "recording the headless approval: %w"
	msgDecodeRequest  = "decoding the stored request: %w"
	msgBadAnswer      = "the dialog's answer does not answer the question: %v"

	msgPhoneLeftOut      = "the phone is not asked: %v"
	msgPhoneNotJoined    = "the phone is not asked: this request is already open without it, and this call waits for its answer there; to ask the phone too, cancel it (ask-confirm cancel) and ask again"
	msgPhoneOnlyWay      = "the phone was the only way to ask: %w"
	hintPhoneSetup       = "where no dialog or terminal can ask, only the phone can: set it up with ask-confirm remote setup; it takes yes-or-no questions and choices of one among at most three options"
	msgWayFailed         = "the %s could not ask (%v); the request goes on without it"
	msgPhoneCouldNot     = "the phone could not ask: %v"
	msgCallersGone       = "no caller waits for it any more (its host may have killed them); it ends withdrawn"
	msgStoppedWithCaller = "its holder was stopped by a signal, as a host stops a hook and its children; it ends withdrawn"
	msgTooSoon           = "it ended sooner than a person can answer, again and again"
	msgIgnoredMore       = "and %d more replies that answered nothing"
	msgIgnoredOthers     = "replies for other requests, which share the reply topic: %d"
	msgAnsweredBy        = "%s on the phone"

	msgChose        = "chosen: %s"
	msgTyped        = "answered"
	msgOwnAnswer    = "an answer of their own"
	msgNoChoice     = "cancelled: the person gave no answer"
	msgApprovedFor  = "approved for %s, until %s"
	msgNoAnswer     = "the store says a %s was answered but holds no answer"
	msgHeadlessNone = "approve has no answer to give to a choice or a text; use fail or deny"
	msgOutside      = "%s is outside %s to %s"
	msgTimeoutRange = "must be longer than 0s and at most %s, not %s"
)
