package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ask-confirm/ask-confirm/dialog"

	"github.com/ask-confirm/ask-confirm/store"
)

// Result is the outcome of one request as a front end reports it: what the
// command line's --json prints, and what its one-line message, the MCP
// server's tool result and the exit code are made from.
type Result struct {
	Status   string   `json:"status"`
	ExitCode ExitCode `json:"exit_code"`
	// State is the request's state (stateOf), a row of
	// docs/scripting.md's table of states; absent where no request was
	// made (headless, error).
	State       string    `json:"state,omitempty"`
	Key         string    `json:"key"`
	Remembered  bool      `json:"remembered"`
	Rendered    bool      `json:"rendered"`
	Attempt     int       `json:"attempt"`
	ShouldRetry bool      `json:"should_retry"`
	RetryReason string    `json:"retry_reason,omitempty"`
	RequestedAt time.Time `json:"requested_at,omitzero"`
	AnsweredAt  time.Time `json:"answered_at,omitzero"`
	// Answer is what the person answered to a choice (the label chosen,
	// or with Multiple the list of them) or an input (the text), when
	// Status is approved; absent for a confirmation.
	Answer any `json:"answer,omitempty"`
	// ApprovedUntil is, for an approval given with the approve-for
	// button, when it stops being returned.
	ApprovedUntil time.Time `json:"approved_until,omitzero"`
	// Until and Window are State.Until and State.Window: while the
	// request is open, when it closes unanswered (--timeout); for an
	// outcome a new run receives, until when and by which window; for one
	// whose window lapsed, when and which.
	Until  time.Time `json:"until,omitzero"`
	Window string    `json:"window,omitempty"`
	// Other is true when the (last) answer to a choice is the person's own
	// text rather than an option's label.
	Other bool `json:"other,omitempty"`
	// AnsweredBy is "phone" when the answer came from the phone beside
	// the request's own way of asking.
	AnsweredBy string `json:"answered_by,omitempty"`
	// Approvers are the people asked, on a request of several approvers
	// (--approvers); ApprovalsNeeded is how many of them must approve,
	// and Approvals how many have so far.
	Approvers       []string `json:"approvers,omitempty"`
	Approvals       *int     `json:"approvals,omitempty"`
	ApprovalsNeeded int      `json:"approvals_needed,omitempty"`
	// Votes are the votes counted, in the order they counted: who, and
	// what.
	Votes []Vote `json:"votes,omitempty"`
	// ApprovedBy and DeniedBy name who approved and who denied a request
	// of several approvers, once it ended.
	ApprovedBy []string `json:"approved_by,omitempty"`
	DeniedBy   []string `json:"denied_by,omitempty"`
	// Warning is what went wrong while the request stayed open without
	// changing its outcome: a way of asking that failed while another
	// still asked.
	Warning string `json:"warning,omitempty"`
	Message string `json:"message"`
	// Hint says what to do next, if anything; the command line prints it
	// after the message.
	Hint string `json:"-"`
	// Headless is true when nobody was asked: the outcome is the call's
	// IfHeadless.
	Headless bool `json:"-"`
}

// Vote is one person's vote, as a Result names it: who (By), whether
// they approved or denied (VoteApprove or VoteDeny), and when.
type Vote struct {
	By   string    `json:"by"`
	Vote string    `json:"vote"`
	At   time.Time `json:"at"`
}

// The words of Vote.Vote.
const (
	VoteApprove = "approve"
	VoteDeny    = "deny"
)

// The status words of a Result: one vocabulary with the store's. A request
// that ended reports its record's status (store.Status); pending, stale,
// headless and error are outcomes no record ends with.
const (
	StatusApproved   = string(store.Approved)
	StatusDenied     = string(store.Denied)
	StatusCancelled  = string(store.Cancelled)
	StatusExpired    = string(store.Expired)
	StatusFailed     = string(store.Failed)
	StatusSuperseded = string(store.Superseded)
	StatusWithdrawn  = string(store.Withdrawn)
	StatusPending    = "pending"
	// StatusStale is what status says of a request that ended and whose
	// outcome a run of it would not return now (past its --remember, or
	// a failure or withdrawal, which are never returned): running it
	// again shows a new dialog, so it exits ExitPending.
	StatusStale    = "stale"
	StatusHeadless = "headless"
	StatusError    = "error"
)

// fromRecord turns the record of this invocation's own request into a
// result, its times said to a person reading it at now. Only a record whose
// status is Approved gives exit 0.
func fromRecord(rec store.Record, remembered bool, now time.Time) Result {
	r := Result{
		Key:         rec.Identity,
		Remembered:  remembered,
		Rendered:    !rec.ShownAt.IsZero(),
		Attempt:     rec.Attempt,
		RequestedAt: rec.RequestedAt,
		AnsweredAt:  rec.EndedAt,
	}
	switch rec.Status {
	case store.Approved:
		r.Status, r.ExitCode = StatusApproved, ExitApproved
		r.Message = msgApproved
		answered(&r, rec, now)
	case store.Denied:
		r.Status, r.ExitCode = StatusDenied, ExitDenied
		r.Message = msgDenied
		if rec.Kind != "" {
			r.Message = msgNoChoice
		}
	case store.Cancelled:
		r.Status, r.ExitCode = StatusCancelled, ExitDenied
		r.Message = msgCancelled
	case store.Expired:
		r.Status, r.ExitCode = StatusExpired, ExitExpired
		r.Message = msgExpired
	case store.Superseded:
		r.Status, r.ExitCode = StatusSuperseded, ExitSuperseded
		r.Message = msgSuperseded
	case store.Failed:
		r.Status, r.ExitCode = StatusFailed, ExitFailed
		r.Message = fmt.Sprintf(msgFailed, OneLine(rec.Reason))
		if rec.Phone == phoneOnly {
			// No dialog was to be shown: the reason says what could not
			// ask ("the phone could not ask: ...").
			r.Message = fmt.Sprintf(msgFailedPhoneOnly, OneLine(rec.Reason))
		}
	case store.Withdrawn:
		r.Status, r.ExitCode = StatusWithdrawn, ExitDenied
		r.Message = msgWithdrawn
	case store.Requested, store.Shown:
		r.Status, r.ExitCode = StatusPending, ExitPending
		r.Message, r.ShouldRetry, r.RetryReason = msgPending, true, msgRetryReason
		switch {
		case rec.Phone == phoneOnly:
			r.Message, r.RetryReason = msgPendingPhone, msgRetryPhone
		case rec.Channel != "":
			r.Message, r.RetryReason = fmt.Sprintf(msgPendingOn, wayPhrase(rec.Channel)), fmt.Sprintf(msgRetryOn, wayPhrase(rec.Channel))
		}
		r.AnsweredAt = time.Time{}
	default:
		r.Status, r.ExitCode = StatusError, ExitInternal
		r.Message = fmt.Sprintf(msgUnknownStatus, rec.Status)
	}
	r.Warning = OneLine(rec.Note)
	if rec.AnsweredBy == wayPhone && (r.ExitCode == ExitApproved || r.ExitCode == ExitDenied) {
		r.AnsweredBy = rec.AnsweredBy
		if len(rec.Approvers) == 0 {
			r.Message = fmt.Sprintf(msgAnsweredBy, r.Message)
		}
	}
	if len(rec.Approvers) > 0 && r.ExitCode != ExitInternal {
		withVotes(&r, rec)
		r.Message = voteMessage(r, rec)
	}
	if remembered && r.ExitCode != ExitInternal {
		r.Message = fmt.Sprintf(msgRemembered, r.Message, dialog.ClockSeconds(rec.EndedAt.Local(), now))
	}
	return r
}

// withVotes fills in the votes of rec, a request of several approvers:
// who was asked, how many approved and must, each vote, and, once it
// ended, who approved and who denied.
func withVotes(r *Result, rec store.Record) {
	approvedBy, deniedBy := tally(rec.Votes)
	n := len(approvedBy)
	r.Approvers, r.Approvals, r.ApprovalsNeeded = rec.Approvers, &n, rec.Approvals
	for _, v := range rec.Votes {
		word := VoteDeny
		if v.Approved {
			word = VoteApprove
		}
		r.Votes = append(r.Votes, Vote{By: v.By, Vote: word, At: v.At})
	}
	if rec.Status.Final() {
		r.ApprovedBy, r.DeniedBy = approvedBy, deniedBy
	}
	if r.ExitCode == ExitPending && r.Status == StatusPending {
		r.RetryReason = msgRetryApprovers
	}
}

// voteMessage is r's message, for rec, a request of several approvers,
// with its votes: "approved by Alice and Bob (2 of 2 approvals)", "denied
// by Carol (0 of 2 approvals)", "denied by Carol, though Alice approved:
// one deny decides", "pending: 1 of 2 approvals so far (Alice approved);
// ...".
func voteMessage(r Result, rec store.Record) string {
	approvedBy, deniedBy := tally(rec.Votes)
	progress := fmt.Sprintf(msgApprovalsOf, len(approvedBy), rec.Approvals)
	var who []string
	if len(approvedBy) > 0 {
		who = append(who, fmt.Sprintf(msgApprovedWho, dialog.Names(approvedBy)))
	}
	if len(deniedBy) > 0 {
		who = append(who, fmt.Sprintf(msgDeniedWho, dialog.Names(deniedBy)))
	}
	switch {
	case r.ExitCode == ExitPending && len(who) > 0:
		return fmt.Sprintf(msgPendingVotes, progress, " ("+strings.Join(who, ", ")+")")
	case r.ExitCode == ExitPending:
		return fmt.Sprintf(msgPendingVotes, progress, "")
	case rec.Status == store.Approved && r.Message == msgApproved:
		return fmt.Sprintf(msgApprovedByVotes, dialog.Names(approvedBy), progress)
	case rec.Status == store.Approved:
		return fmt.Sprintf(msgVotedBy, r.Message, dialog.Names(approvedBy), progress)
	case rec.Status == store.Denied && len(deniedBy) > 0 && len(approvedBy) > 0:
		return fmt.Sprintf(msgDeniedOverVotes, dialog.Names(deniedBy), dialog.Names(approvedBy))
	case rec.Status == store.Denied && len(deniedBy) > 0:
		return fmt.Sprintf(msgDeniedByVotes, dialog.Names(deniedBy), progress)
	case len(who) > 0:
		return fmt.Sprintf(msgWithVotes, r.Message, progress+": "+strings.Join(who, ", "))
	}
	return fmt.Sprintf(msgWithVotes, r.Message, progress)
}

// answered fills in what the person answered beyond approving rec: the
// choice or the text, and how long an approve-for approval lasts.
func answered(r *Result, rec store.Record, now time.Time) {
	r.Other = rec.Kind == dialog.Choose && rec.Typed
	// The one-line message names the labels, never text of the person's
	// own, which goes to stdout only.
	named := slices.Clone(rec.Answers)
	if r.Other && len(named) > 0 {
		named[len(named)-1] = msgOwnAnswer
	}
	switch {
	case rec.Kind == dialog.Choose && rec.Multiple && len(rec.Answers) > 0:
		r.Answer = slices.Clone(rec.Answers)
		r.Message = fmt.Sprintf(msgChose, strings.Join(named, ", "))
	case rec.Kind == dialog.Choose && len(rec.Answers) == 1:
		r.Answer = rec.Answers[0]
		r.Message = fmt.Sprintf(msgChose, named[0])
	case rec.Kind == dialog.Input && len(rec.Answers) == 1:
		r.Answer = rec.Answers[0]
		r.Message = msgTyped
	case rec.Kind != dialog.Confirm:
		// A record that says it answered a question but holds no answer
		// approves nothing.
		r.Status, r.ExitCode = StatusError, ExitInternal
		r.Message = fmt.Sprintf(msgNoAnswer, rec.Kind)
	case rec.ApprovedFor > 0:
		r.ApprovedUntil = rec.EndedAt.Add(rec.ApprovedFor)
		r.Message = fmt.Sprintf(msgApprovedFor, dialog.ShortDuration(rec.ApprovedFor), dialog.ClockSeconds(r.ApprovedUntil.Local(), now))
	}
}

// OneLine is s as one line of a message, a history event or a list: a
// dialog program's error carries its stderr, which ends in a newline and
// may hold several lines (GTK's warnings). Every run of white space
// becomes one space, other control characters are dropped, and none is
// kept at either end.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) && strings.TrimSpace(s) == s && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(strings.Map(func(c rune) rune {
		switch {
		case unicode.IsSpace(c):
			return ' '
		case unicode.IsControl(c):
			return -1
		}
		return c
	}, s)), " ")
}

// ErrorResult is the result of a request that could not be made: err's
// text as the message and code, never ExitApproved, as the exit code.
func ErrorResult(key string, code ExitCode, err error) Result {
	if code == ExitApproved {
		code = ExitInternal
	}
	return Result{Status: StatusError, ExitCode: code, Key: key, Message: OneLine(err.Error())}
}

// pending is the result of a request that is being asked, or about to be,
// but not by this invocation's own holder yet.
func pending(id string) Result {
	return Result{Status: StatusPending, ExitCode: ExitPending, State: StateOpen, Key: id,
		Message: msgPending, ShouldRetry: true, RetryReason: msgStarting}
}
