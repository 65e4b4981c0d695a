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

	msgStale          = "no fresh answer: the last one (%s at %s%s) is older than the %s it was asked with (%s); asking again asks anew"
	msgNeverCollected = ", never collected"
	msgStaleRetry     = "the remembered answer is too old"
	msgStaleFailed    = "the dialog could not be shown (%s); a failure is never reused, so asking again asks anew"
	msgFailedRetry    = "the last try could not show the dialog"
	msgNoAnswerRetry  = "the request was withdrawn without an answer"
	msgStatusKept     = "%s (remembered answer from %s, kept for the %s it was asked with: %s, until %s)"

	msgWithdrawnNoAnswer = "no answer: the request was withdrawn when its caller stopped waiting and asked another way; a withdrawal is never reused, so asking again asks anew"

	// The sentences of the states (state.go) beside those above.
	msgPendingOn     = "pending: the request is still open %s; run the same command again to collect the answer"
	msgRetryOn       = "the request is still open %s"
	msgReaching      = "pending: the request is not on the phone yet: its server is still being reached; run the same command again to collect the answer"
	msgRetryReaching = "the request is being put on the phone"
	msgHolderGone    = "no answer: %s is gone, so nothing asks any more; asking again asks anew"
	// msgHolderGonePhone is msgHolderGone for a request the phone asked
	// too: its message may still be on the phone, and a fleet's record
	// keeps it open there, which asking again joins.
	msgHolderGonePhone   = "no answer: %s is gone, so nothing here asks any more; asking again joins its request where the phone still has it open, or asks anew"
	msgHolderGoneRetry   = "nothing asks any more"
	msgAskerDialog       = "the dialog's holder"
	msgAskerPhone        = "the holder that asked on the phone"
	msgAskerChannel      = "the process that asked %s"
	msgNeverReached      = "never reached: nobody was asked, since %s"
	msgStaleNeverReached = "never reached: nobody was asked, since %s; a failure is never reused, so asking again asks anew"
	msgNeverReachedRetry = "the phone could not be reached"
	// A state's note (State.Note), which list shows beside its status.
	noteReaching     = "reaching the phone"
	noteHolderGone   = "holder gone"
	noteNeverReached = "never reached"
	noteUncollected  = "uncollected"
	noteLapsed       = "%s lapsed"

	msgCollectedLate    = "after its caller stopped waiting"
	msgCollectedWaiting = "by the callers waiting for it"
	// MsgUncollected says that an ended request's answer has not reached
	// any caller yet.
	MsgUncollected = "no caller has collected it yet"

	msgNoMatch       = "no stored request matches %q"
	msgTooShort      = "no request was asked with --key %q, and as the start of an identity it is too short: give at least %d of its characters"
	msgAmbiguous     = "%q matches %d requests; give more of the identity"
	wayDialog        = "dialog"
	msgKeyAndPrefix  = "%q is both the --key of %s and the start of the identity of %s; it names neither"
	hintKeyAndPrefix = "give the whole identity: %s for the --key, or %s"
	msgCancelGone    = "the request disappeared from the store while it was being cancelled"
	msgCancelFailed  = "cancelling %s: %w"
	msgRecordHistory = "recording %s in the history: %w"

	// msgKeyMany is a --key that names several requests (manyKeyed).
	msgKeyMany        = "--key %q names %d requests, asked other ways or of other approvers, each its own: %s"
	msgKeyedOne       = "%s: %s, %s"
	msgKeyedApprovers = ", approvers %s, %d must approve"
	hintKeyMany       = "give the identity of the one you mean, or its first 4 or more characters, such as %s; ask-confirm list shows each request's way (WAY) and key (KEY), and list --json its approvers"

	msgHoldUsage      = "hold IDENTITY CONTENT_HASH [--lock-fd=N] [--setup-on-stdin] is started by ask-confirm itself"
	msgHoldBadFD      = "hold: bad lock descriptor %q"
	msgHoldError      = "ask-confirm: error: %v"
	msgNotMine        = "the request is no longer waiting for a holder"
	msgLockKept       = "another holder keeps the identity lock"
	msgRecordAnswer   = "recording the answer: %w"
	msgRecordHeadless = "recording the headless approval: %w"
	// msgHistoryLost ends a request, or refuses an approval, whose
	// history event could not be written: no answer is asked for, and no
	// approval handed out, that the history does not hold.
	msgHistoryLost   = "the history could not be written, so no approval is given: %w"
	hintHistoryLost  = "free space where %s is, or make it writable; ask-confirm doctor checks it"
	msgDecodeRequest = "decoding the stored request: %w"
	msgBadAnswer     = "the dialog's answer does not answer the question: %v"

	msgPhoneLeftOut      = "the phone is not asked: %v"
	msgPhoneNoFleet      = "the phone's setup in ASK_CONFIRM_REMOTE has no fleet secret (it was exported before fleets): another machine, such as a re-run of this job, neither collects this request's answer nor joins it, and asks anew; run ask-confirm remote setup again where the setup was made, and export it anew"
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

	msgApproversRemoteOff = "--approvers and --approvals ask people on their phones, and --remote off asks no phone"
	msgApproversModeOff   = "--approvers and --approvals ask people on their phones, and the phone is off (remote mode off)"
	hintApproversRemote   = "pass --remote also (or only), or leave out --approvers and --approvals"
	msgApproversNoSetup   = "--approvers and --approvals ask people on their phones, and no phone is set up"
	hintApproversSetup    = "set the first phone up with ask-confirm remote setup --name NAME, and each other person with ask-confirm remote approver add NAME --topic TOPIC"
	msgApproversUnread    = "the approvers cannot be told: %v"
	msgApproversUnnamed   = "--approvals counts people by name, and the phone set up has no person's name"
	hintApproversName     = "name the first phone's person with ask-confirm remote setup --name NAME"
	msgApproverUnknown    = "--approvers names %q, who is not set up (set up: %s)"
	hintApproversList     = "ask-confirm remote approver list shows who is set up; ask-confirm remote approver add NAME --topic TOPIC adds a person"
	msgNobodyNamed        = "nobody by name"
	msgApproversNoPhone   = "the approvers are asked on their phones, and the phone cannot ask: %w"
	msgNoVoteThrough      = "not asked through the %s: an answer there is nobody's vote; the approvers are asked on their phones only"
	msgNotAnApprover      = "no dialog here: %s is not one of the approvers (%s), who are asked on their phones only"
	msgUnknownUser        = "this machine's user"
	msgNoVoter            = "the phone takes no vote given here"
	msgVoteNote           = "Your answer counts as %s's vote; %d of %d approvals needed"
	msgRecordVote         = "recording %s's vote: %w"
	msgVoteRemoved        = "removed from the setup after this request was asked (remote approver remove): their vote counts for nothing"
	msgVotesShort         = "an approval without the votes that make it (%s approvals)"
	msgNoPhoneLeft        = "the phone stopped asking before it counted the vote given here"

	msgApprovalsOf     = "%d of %d approvals"
	msgRetryApprovers  = "the request is still open on the approvers' phones"
	msgApprovedWho     = "%s approved"
	msgDeniedWho       = "%s denied"
	msgPendingVotes    = "pending: %s so far%s; run the same command again to collect the answer"
	msgApprovedByVotes = "approved by %s (%s)"
	msgVotedBy         = "%s, by %s (%s)"
	msgDeniedByVotes   = "denied by %s (%s)"
	// msgDeniedOverVotes is a vote denied where some approved: the
	// approvals' count must not read as an outcome.
	msgDeniedOverVotes = "denied by %s, though %s approved: one deny decides"
	msgWithVotes       = "%s (%s)"

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
