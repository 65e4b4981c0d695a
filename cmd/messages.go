package cmd

// Every sentence the command line adds to the engine's lives here, so the
// wording stays consistent: lowercase, no trailing period, a hint says what
// to type next. The engine's own wording is in lifecycle/messages.go.

const (
	msgNoMessage         = "--message is required"
	msgApprovalsBelowOne = "%d is below 1: at least one of the approvers must approve"
	msgNoWorkDir         = "finding the working directory for --scope: %w"
	msgCountdown         = "ask-confirm: waiting for answer… %s left, dialog open until %s"
	msgCountdownShort    = "ask-confirm: waiting… %s left, dialog open until %s"
	// msgCountdownOn is the countdown of a question asked elsewhere than
	// a dialog: how long, where (msgOnAnotherTerminal…), until when; and
	// msgCountdownOnShort without when, where that would not fit.
	msgCountdownOn       = "ask-confirm: waiting… %s left, open %s until %s"
	msgCountdownOnShort  = "ask-confirm: waiting… %s left, open %s"
	msgOnAnotherTerminal = "on another terminal"
	msgOnThePhone        = "on the phone"
	msgInTheDialog       = "in the dialog"
	msgAndOnThePhone     = "%s and on the phone"
	msgThrough           = "through %s"
	hintFlagFor          = "run '%s --help' for the flags and their limits"
	hintList             = "run 'ask-confirm list' for the stored requests and their keys"
	hintHelp             = "run 'ask-confirm --help' for the commands"

	msgListEmpty         = "no open requests and no remembered answers"
	msgListNote          = "(%s)"
	msgListApprovals     = "(%d of %d)"
	msgHistoryVote       = "%s %s"
	msgHistoryDecided    = "%s (%s)"
	msgHistoryApprovedBy = "%s approved"
	msgHistoryDeniedBy   = "%s denied"
	msgKeyAndAll         = "give a KEY or --all, not both"
	msgKeyOrAll          = "give the KEY of one request, or --all"
	msgNothingOpen       = "no open dialogs"
	msgForgetOpen        = "still open; use ask-confirm cancel"
	msgHistoryUnreadable = "skipped %d unreadable line(s) in %s"
	msgNoOutcome         = "the confirm command ended without an outcome"
	msgRunMCP            = "running %s: %w"
	msgDefaultTwice      = "--default is given %d times; an input starts with one text"
	msgTerminalOffBy     = "turned off by %s=%s in the environment: no person types at this terminal"
	// msgTerminalNotAsked follows "nobody can be asked: ..." with why the
	// terminal was not asked either.
	msgTerminalNotAsked = "; the terminal was not asked: %s"
	msgNoTerminalFlag   = "--no-terminal was given"

	// msgRequestLine is one request in the operators' reports: short
	// identity, title, and what is said of it.
	msgRequestLine  = "%s  %s  %s"
	msgAlready      = "already %s"
	msgCancelledNow = "cancelled"
	// A fleet's request, cancelled from a machine that holds none of it:
	// its id, key, the time it was asked, and what is said of it.
	msgFleetRequestLine  = "fleet %s  --key %s, asked %s  %s"
	msgFleetCancelledNow = "cancelled on every machine of the fleet and on the phone"
	msgFleetWasAnswered  = "already answered (a machine took its answer, or the phone was told how it ended)"
	msgFleetWasClosed    = "already closed (its time was over, or its asker ended it)"
	msgFleetCancelFailed = "the fleet's request could not be cancelled: %v"
	msgFleetNoneOfKey    = "no request of key %s is on this machine, nor open on the fleet's record on the server"
	msgCancelAllHere     = "--all cancels this machine's requests; a request another machine of the fleet asked is cancelled by its key: ask-confirm cancel KEY"
	msgForgot            = "forgot %d answer(s)"
	msgGCRemoved         = "removed %d record(s) and %d lock file(s)"
	msgGCCompacted       = "; compacted the store"
)

// The doctor's wording. Its outcome (nobody can be asked, an unusable
// store) is the engine's.
const (
	msgDoctorCanAsk      = "a person can be asked here"
	msgDoctorOnPhone     = "nobody can be asked on this machine (%s), but the phone is asked instead"
	msgDoctorOnPhoneOnly = "the phone is asked alone (its mode is only)"
	msgDoctorPhoneCannot = "%s, and it cannot ask: %s"
	msgDoctorUnwritable  = "; a request could not make or write it: %s"
	msgDoctorNoFleetEnv  = "the phone's setup in ASK_CONFIRM_REMOTE has no fleet secret (it was exported before fleets): another machine, such as a re-run of a job, neither collects a request's answer nor joins it, and asks anew; run ask-confirm remote setup again where the setup was made, and export it anew"
	msgDoctorNoFleetFile = "the phone's setup in %s has no fleet secret (it was made before fleets): a machine given a copy of it (remote export) neither collects this one's answers nor joins its requests; run ask-confirm remote setup again to make one"
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
	msgRemoteOneStdin       = "only one of --token-file and --answer-token-file can be - (standard input)"
	msgRemoteTokenRead      = "reading the token from %s: %w"
	msgRemoteTokenEmpty     = "%s holds no token"
	msgRemoteTokenOpen      = "%s: %v; run chmod 600 %s, and remove the file once remote setup has recorded the token"
	msgRemoteTokenBad       = "%s does not hold a token on its first line: a token has no spaces or control characters"
	msgRemoteChecksFailed   = "%d check(s) failed; nothing was recorded"
	msgRemoteAccessHint     = "give each account only its own access: ntfy access ASKER TOPIC wo, ntfy access ASKER REPLY-TOPIC rw, ntfy access ANSWERER REPLY-TOPIC wo, ntfy access PHONE TOPIC ro, with auth-default-access deny-all"
	msgRemoteSave           = "recording the phone's settings: %w"
	msgRemoteSaved          = "recorded in %s"
	msgRemoteFlagMissing    = "%s is required"
	msgRemotePhone          = "On the phone: install the ntfy app, add the server %s with the account that may read %s (not the tokens above) and subscribe to it, or open this link:\n  %s"
	msgRemoteTryIt          = "Then try it: ask-confirm remote test"
	msgRemoteKeepsShort     = "the phone's server keeps messages for %s, less than --collect-within's default %s: an answer given on the phone can be collected from the server only that long; raise cache-duration in the server's server.yml"
	msgRemoteTestTitle      = "ask-confirm remote test"
	msgRemoteTestMessage    = "A test of the phone as a way of asking. Nothing happens whichever button you tap."
	msgRemoteTestSent       = "sent a test request to %s; waiting %s for a tap"
	msgRemoteTestNobody     = "nobody answered on the phone in time"
	msgRemoteTestUnreached  = "never reached: the phone could not be reached: its ntfy server (%s) did not take the test request within %s (--wait), so nobody was asked"
	msgRemoteTestFailed     = "the phone could not ask: %v"
	msgRemoteTestApproved   = "approved on the phone"
	msgRemoteTestDenied     = "denied on the phone"
	msgRemoteNone           = "no phone is set up; nothing to remove"
	msgRemoteRemoved        = "removed %s; the phone is no longer asked"
	msgRemoteSetupHint      = "run 'ask-confirm remote setup --help'"
	msgRemoteModeFromEnv    = "the phone's setup comes from ASK_CONFIRM_REMOTE: change its mode there (remote export prints it), or unset it to change remote.json's"
	msgRemoteExportNoSecret = "this setup has no fleet secret (it was made before fleets): another machine given it asks on the phone, but neither collects nor joins this one's requests; run remote setup again to make one"
	msgRemoteExportLong     = `Print the phone's setup (the server, the topics, both tokens and the fleet's
secret) on one line, as remote setup recorded it. Another machine given it, as
its remote.json (mode 0600) or in the variable ASK_CONFIRM_REMOTE, joins
the fleet: any of its machines collects, and verifies, an answer given to any
other, and a second one asking the same request while it is open waits for the
same tap instead of sending another.

It holds secrets: whoever has it can ask the phone, and answer for every
machine of the fleet. Give it to a CI system as a secret variable, never on a
command line; give it to no job that runs code you did not review (a fork's
pull request).`

	msgRemotePeopleKept         = "The people set up, kept from the same setup: %s (ask-confirm remote approver list)"
	msgRemotePeopleDropped      = "the people added to the earlier setup are not kept, since its server or topics differ: %s; add them again with ask-confirm remote approver add NAME --topic TOPIC"
	msgRemoteNameIsApprover     = "--name %s is a person added with remote approver add (topic %s): each person is set up once, on one phone"
	msgRemoteNameIsApproverHint = "remove them first (ask-confirm remote approver remove %s), or give another --name"

	msgRemoteApproverLong = `The people asked on phones of their own, beside the first phone (remote setup's
--topic, its person named by --name). Each person has an ntfy account of their
own that reads their topic alone; the asking account writes every person's
topic and reads none. A yes/no question asks the people --approvers names
(default: everyone set up) and needs --approvals of them.

The machines of a fleet share one setup: after add or remove, give each of
them the new one (remote export).`
	msgApproverTwice            = "%s is set up already (topic %s)"
	msgApproverTwiceHint        = "to change their topic, run ask-confirm remote approver remove NAME, then add them again"
	msgApproverTooMany          = "%d people are set up already, the most one request can ask"
	msgApproverFirstUnnamed     = "the first phone has no name, and the local user's cannot be found: a setup of several people needs a name for each"
	msgApproverFirstUnnamedHint = "run ask-confirm remote setup again with --name NAME, the name of the person whose phone reads its topic"
	msgApproverFirstNamed       = "The first phone, on %s, is set up as %s, the local user's name (remote setup --name gives another)."
	msgApproverAdded            = "added %s to %s; the people set up: %s"
	msgApproverPhone            = "On %s's phone: install the ntfy app, add the server %s with %s's own account, which may read %s alone (not a token of this setup), and subscribe to it, or open this link:\n  %s"
	msgApproverTryIt            = "Then try it: ask-confirm remote test --approver %s"
	msgApproverFleet            = "other machines of the fleet keep the setup they were given: run ask-confirm remote export here, and give its output to each of them (as remote.json or ASK_CONFIRM_REMOTE)"
	msgApproverNoName           = "(no name)"
	msgApproverFirstPhone       = "first phone (remote setup)"
	msgApproverUnknown          = "no person is set up as %s; the people set up: %s"
	msgApproverListHint         = "ask-confirm remote approver list shows each with their topic"
	msgApproverFirst            = "%s is the first phone's person: %s is the setup's own topic, not an approver's"
	msgApproverFirstHint        = "to hand the first phone to someone else, run ask-confirm remote setup again with --name; to forget the phone, ask-confirm remote off"
	msgApproverRemoved          = "removed %s (topic %s); the people set up: %s"
	msgApproverRevoked          = "%s's buttons on the requests open now count on no machine of the fleet"
	msgApproverNotRevoked       = "%s is not removed: the fleet's server could not be told, so their buttons on open requests would still count: %v"
	msgApproverNotRevokedHint   = "run ask-confirm remote approver remove %s again once the server answers (ask-confirm doctor checks it)"
	msgApproverFromEnv          = "the phone's setup comes from ASK_CONFIRM_REMOTE: change its people on the machine it was exported from"
	msgApproverFromEnvHint      = "there, run ask-confirm remote approver, then ask-confirm remote export again, and give its output to ASK_CONFIRM_REMOTE; or unset it to change remote.json's"

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
	msgDoctorAskPhone        = "on the phone only: %s"
	msgDoctorAskNo           = "no: %s"
	msgDoctorNone            = "none"
	msgDoctorNoneAnswers     = "none answers: %s"
	msgDoctorCodexOK         = "%s: approved once in Codex (Codex runs it until it changes; then approve it again with /hooks)"
	msgDoctorCodexUntrusted  = "not trusted yet: Codex skips it, without a word in codex exec, until you approve it in its Hooks need review screen or with /hooks"
	msgDoctorCodexDisabled   = "turned off in Codex (enabled = false, or [features] hooks = false)"
	msgDoctorCodexTimeout    = "Codex's timeout (%d s) is not above the hook's --wait (%s): Codex kills the hook first, and shows its own prompt"
	msgDoctorCodexUnreadable = "the Codex configuration could not be read: %v"
	msgDoctorRemoteOK        = "set up through %s (asked: %s): it answers, and the access rules that can be checked without publishing hold"
	msgDoctorRemoteProblems  = "set up through %s, but: %s"
	msgDoctorRemoteUnread    = "set up in %s, which cannot be read, so a request leaves the phone out: %s"
	hintDoctorPhoneCannot    = "mend what the phone line says, then run ask-confirm doctor again"
	msgDoctorRemoteMend      = " (to mend: %s)"
	msgDoctorRemoteKeeps     = "keeps messages for %s (its cache-duration): an answer given on the phone can be collected from it that long at most"
)

// The help topics (ask-confirm help TOPIC).
const (
	msgUnknownTopic = "%q is neither a command nor a help topic; the topics: %s"

	topicExitCodes = `ask-confirm's exit code is its answer; scripts read it. The numbers never
change meaning:

`
	topicJSON = `With --json, ask-confirm prints exactly one JSON object on stdout, whatever
happened, even for a command line that does not parse. Its fields:

`
	topicIdentity = `A request is what the person sees and where it is asked: the title, the
message, the labels, the icon, the default button, the options, and the
scope (the working directory, or --scope). The same command from the same
place is the same request; --key NAME makes NAME the identity instead, and a
new question under it supersedes the open one. A yes/no question asked of
several people adds its approvers and --approvals, --key or not.

Two clocks. The caller waits at most --wait (45s), then exits 3, pending; the
dialog stays up, held by a detached process, until --timeout (5m). Running
the same command again collects the answer, or joins the dialog still open:
there is never a second dialog for one request. An answer no caller received
is kept for --collect-within (15m); once received, it is returned again for
--remember (60s). An answer given on the phone is collected from its ntfy
server only while the server keeps it (its cache-duration; doctor shows it).
`
	topicTerminal = `Where no dialog can be shown (over SSH, on a console, in docker run -it) and
a person types at this invocation's terminal, ask-confirm asks there, on the
terminal itself (never on stdout): y or yes and Enter approves; n, anything
else, or Enter alone (the default, Cancel) denies; Ctrl-C, Ctrl-D or Esc
cancels at once. choose takes an option's number, input a line. Text typed
before the prompt appeared, and a held or pasted Enter, are no answer.

--no-terminal skips the terminal, and so do CI (set and not empty, other
than false, in any case, or 0), CLAUDECODE (set and not empty) and
ASK_CONFIRM_NO_TERMINAL (set to anything, even empty) in the environment;
then --if-headless decides, and its outcome says why the terminal was not
asked.
`
	topicEnvironment = `ask-confirm reads these variables; none of them answers a question:

  DISPLAY, WAYLAND_DISPLAY   where a dialog can be shown
  XDG_RUNTIME_DIR            where the Wayland display's socket is
  XDG_CACHE_HOME             the answers' directory (default ~/.cache)
  XDG_STATE_HOME             the locks' and history's directory (default ~/.local/state)
  XDG_CONFIG_HOME            the phone's settings (default ~/.config)
  PATH                       the dialog program (qarma, zenity, matedialog)
  LANG, LC_ALL, LC_CTYPE     whether the dialog program's locale takes UTF-8
  WSL_DISTRO_NAME, WSL_INTEROP  WSL, whose dialogs show through WSLg
  SSH_CLIENT, SSH_CONNECTION, SSH_TTY  a session over SSH, for doctor's hints
  CI, CLAUDECODE, ASK_CONFIRM_NO_TERMINAL  never ask on the terminal (see help terminal)
  CLAUDE_CODE_SESSION_ATTENDED, CLAUDE_CODE_ENTRYPOINT  a headless Claude Code session (hook --defer)
  CODEX_HOME                 Codex's configuration, for doctor (default ~/.codex)
  USER, USERNAME             remote setup's default --name, where the system does not name the user
  ASK_CONFIRM_REMOTE         the phone's whole setup, as remote export prints it, in place of remote.json
  ASK_CONFIRM_REMOTE_FD      set by ask-confirm mcp for ask-confirm-mcp: the pipe that carries that setup
  SystemRoot                 Windows: the holder's working directory
  SSH_ASKPASS_PROMPT, ASK_CONFIRM_ASKPASS_REMEMBER, ASK_CONFIRM_ASKPASS_TIMEOUT
                             ask-confirm-askpass: the prompt's kind, and its settings
`
	topicFiles = `  answers   $XDG_CACHE_HOME/ask-confirm/answers.db (~/.cache/ask-confirm/answers.db)
  locks     $XDG_STATE_HOME/ask-confirm/locks/ (~/.local/state/ask-confirm/locks/)
  history   $XDG_STATE_HOME/ask-confirm/history.jsonl, rotated at 4 MiB
  phone     $XDG_CONFIG_HOME/ask-confirm/remote.json (ask-confirm remote setup)

Directories are 0700 and files 0600. Every run checks ask-confirm's own
directories and files first: one that is a symbolic link, the wrong kind of
file or another user's is refused with exit 8, before any dialog is shown,
and the message names it. A corrupt answers file is set aside and
rebuilt; it never approves. On Windows the directories are under
%LOCALAPPDATA%. ask-confirm doctor shows the paths in use.
`
)

// jsonFields says what each field of --json's object holds.
var jsonFields = map[string]string{
	"status":           "approved, denied, cancelled, pending, stale, expired, headless, failed, superseded, withdrawn or error",
	"exit_code":        "the exit code (ask-confirm help exit-codes)",
	"state":            "the request's state: open, reaching, holder-gone, never-reached, failed, ended, kept, lapsed or not-reused (docs/scripting.md, Request states)",
	"until":            "while open, when it closes unanswered; for an answer a new run receives, until when; for one past its window, when that lapsed",
	"window":           "what until is of: --timeout, --remember, --collect-within or --approve-for",
	"key":              "the request's identity, for status, cancel and forget",
	"remembered":       "true when the answer was given before this run",
	"rendered":         "true when a dialog or prompt was shown",
	"attempt":          "which showing of the dialog this is (after a failed one)",
	"should_retry":     "true while the request is open (pending), or when running it again asks anew (stale: its holder is gone, or its answer is no longer given): run the same command again",
	"retry_reason":     "why to run it again",
	"requested_at":     "when the request was made (RFC 3339)",
	"answered_at":      "when it ended",
	"answer":           "choose: the label, or the list with --multiple; input: the text",
	"approved_until":   "when an approval for a while (--approve-for) stops",
	"other":            "true when the answer is the person's own text (--other)",
	"answered_by":      "phone, when the answer came from the phone",
	"approvers":        "the people asked, each on their own phone (--approvers), in the setup's spelling and order",
	"approvals":        "how many of the approvers have approved so far, or in all",
	"approvals_needed": "how many of the approvers must approve (--approvals)",
	"votes":            `each vote counted, in order: {"by": who, "vote": "approve" or "deny", "at": when}`,
	"approved_by":      "who approved, once the request ended",
	"denied_by":        "who denied, once the request ended",
	"warning":          "what went wrong beside the answer",
	"message":          "what happened, in a sentence",
}
