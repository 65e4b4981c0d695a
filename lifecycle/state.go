package lifecycle

import (
	"fmt"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/store"
)

// What is true of a stored request, as the person and its caller should
// read it, is decided here and nowhere else: stateOf. The caller's result
// (its exit code, --json and stderr line), status, list and an MCP
// client's status all print from it, so that none of them can say
// "pending" of a request that nothing asks any more, or name a window
// other than the one that lapsed. docs/scripting.md's table of states
// lists each state with its status, exit code and sentence, and
// cmd/states_test.go holds every surface to it.

// The states of a request (State.Name), the rows of docs/scripting.md's
// table of states.
const (
	// StateOpen: asked and not answered yet; a holder still asks, in the
	// way State.Way names, until State.Until (its --timeout).
	StateOpen = "open"
	// StateReaching: asked on the phone alone, whose server has not taken
	// it yet: nothing is on the phone so far.
	StateReaching = "reaching"
	// StateHolderGone: open on record, but what asked (the dialog's
	// holder, the terminal prompt's process) is gone without an answer:
	// nothing asks any more, and asking again asks anew.
	StateHolderGone = "holder-gone"
	// StateNeverReached: it was to be asked on the phone alone, which
	// could not be reached (its server down, or refusing the setup's
	// token): nobody was asked. The caller's own outcome, exit 6.
	StateNeverReached = "never-reached"
	// StateFailed: the dialog (or the way of asking) could not show it,
	// again after its retries. The caller's own outcome, exit 6.
	StateFailed = "failed"
	// StateEnded: it ended as its status says (approved, denied,
	// cancelled, withdrawn, expired, superseded), and this is the
	// outcome of the caller that asked or followed it.
	StateEnded = "ended"
	// StateKept: it ended, and a new run of it returns its outcome, by
	// the window State.Window names, until State.Until.
	StateKept = "kept"
	// StateLapsed: it ended, and the window that kept its outcome
	// (State.Window) lapsed at State.Until: a new run asks anew.
	StateLapsed = "lapsed"
	// StateNotReused: it ended without an outcome a new run returns (a
	// failure, a request never reached, a withdrawal): a new run asks
	// anew.
	StateNotReused = "not-reused"
)

// The windows a State names (State.Window): the setting that bounds it.
const (
	WindowTimeout       = "--timeout"
	WindowRemember      = "--remember"
	WindowCollectWithin = "--collect-within"
	WindowApproveFor    = "--approve-for"
)

// State is what is true of one request now, as the person and its caller
// should read it: whether it is open and on which way, never reached and
// why, ended and how, and whether a new run would receive its outcome,
// until when and by which window. Status, ExitCode and Message are what
// every surface reports: the caller's result, status, list.
type State struct {
	Name     string
	Status   string
	ExitCode ExitCode
	Message  string
	// RetryReason says why to run it again, for a state with ExitPending.
	RetryReason string
	// Note is the state in a few words beside its status, for a list:
	// "holder gone", "--collect-within lapsed", "never reached"; empty
	// where the status says it all.
	Note string
	// Way is how it is, or was, asked: "dialog", "terminal",
	// "elicitation" or "phone", with "+phone" where the phone asks beside
	// (WayOf).
	Way string
	// Until and Window: for an open request when it closes unanswered
	// (WindowTimeout); for a kept outcome until when a new run receives
	// it and by which window; for a lapsed one when the last window that
	// kept it lapsed, and which. Zero and empty otherwise.
	Until  time.Time
	Window string
}

// facts is what a request's state depends on beside its record.
type facts struct {
	now time.Time
	// alive is true while a holder (or a caller starting one) holds the
	// request's lock.
	alive bool
	// own is true for the caller that asked or followed the request: an
	// ended request is its outcome. False is a new run's view (status,
	// list, a caller's first look): an ended request is an outcome it
	// receives (kept), or one it does not (lapsed, not reused).
	own bool
	// caller is true for a caller's look, its first included: a kept
	// outcome is its answer, said as a remembered one. False for status
	// and list, which say which window keeps it.
	caller bool
	// keep is the reuse rule of the new run: the record's own for status
	// and list, the caller's for a caller.
	keep reuse
}

// stateOf is the one place that decides what is true of rec's request,
// given f. Every other function that reports on a request reports what
// it says (result).
func stateOf(rec store.Record, f facts) State {
	st := State{Way: WayOf(rec.Channel, rec.Phone)}
	if !rec.Status.Final() {
		return openState(rec, f, st)
	}
	if f.own {
		r := fromRecord(rec, false, f.now)
		st.Name, st.Status, st.ExitCode, st.Message = StateEnded, r.Status, r.ExitCode, r.Message
		switch {
		case neverReached(rec):
			st.Name, st.Message, st.Note = StateNeverReached, fmt.Sprintf(msgNeverReached, OneLine(rec.Reason)), noteNeverReached
		case rec.Status == store.Failed:
			st.Name = StateFailed
		}
		return st
	}
	st.Status, st.ExitCode, st.RetryReason = StatusStale, ExitPending, msgStaleRetry
	switch {
	case neverReached(rec):
		st.Name, st.Message, st.RetryReason = StateNotReused, fmt.Sprintf(msgStaleNeverReached, OneLine(rec.Reason)), msgNeverReachedRetry
		st.Note = noteNeverReached
		return st
	case rec.Status == store.Failed:
		st.Name, st.Message, st.RetryReason = StateNotReused, fmt.Sprintf(msgStaleFailed, OneLine(rec.Reason)), msgFailedRetry
		st.Note = string(rec.Status)
		return st
	case rec.Status == store.Withdrawn:
		st.Name, st.Message, st.RetryReason = StateNotReused, msgWithdrawnNoAnswer, msgNoAnswerRetry
		st.Note = string(rec.Status)
		return st
	}
	ended := dialog.ClockSeconds(rec.EndedAt.Local(), f.now)
	if window, d, until := keptBy(rec, f.now, f.keep); window != "" {
		r := fromRecord(rec, false, f.now)
		st.Name, st.Status, st.ExitCode = StateKept, r.Status, r.ExitCode
		st.Until, st.Window, st.RetryReason = until, window, ""
		if rec.Uncollected {
			st.Note = noteUncollected
		}
		switch {
		case r.ExitCode == ExitInternal:
			st.Message = r.Message
		case f.caller:
			st.Message = fromRecord(rec, true, f.now).Message
		default:
			st.Message = fmt.Sprintf(msgStatusKept, r.Message, ended, window, dialog.ShortDuration(d), dialog.ClockSeconds(until.Local(), f.now))
		}
		return st
	}
	window, d, until := lastWindow(rec, f.keep)
	collect := ""
	if window == WindowCollectWithin {
		collect = msgNeverCollected
	}
	st.Name, st.Until, st.Window, st.Note = StateLapsed, until, window, fmt.Sprintf(noteLapsed, window)
	st.Message = fmt.Sprintf(msgStale, rec.Status, ended, collect, window, dialog.ShortDuration(d))
	return st
}

// openState is stateOf for a request that has not ended on record.
func openState(rec store.Record, f facts, st State) State {
	if !f.alive && !starting(rec, f.now) {
		st.Name, st.Status, st.ExitCode = StateHolderGone, StatusStale, ExitPending
		st.Message, st.RetryReason = fmt.Sprintf(msgHolderGone, whatAsked(rec)), msgHolderGoneRetry
		if rec.Phone != phoneNo {
			st.Message = fmt.Sprintf(msgHolderGonePhone, whatAsked(rec))
		}
		st.Note = noteHolderGone
		return st
	}
	r := fromRecord(rec, false, f.now)
	st.Name, st.Status, st.ExitCode, st.Message, st.RetryReason = StateOpen, r.Status, r.ExitCode, r.Message, r.RetryReason
	st.Until, st.Window = rec.Deadline, WindowTimeout
	if rec.Phone == phoneOnly && rec.Status == store.Requested && len(rec.Approvers) == 0 {
		st.Name, st.Message, st.RetryReason = StateReaching, msgReaching, msgRetryReaching
		st.Note = noteReaching
	}
	return st
}

// starting reports whether rec, open with its lock free, counts as open
// all the same: a holder's request not shown yet, within its start-up
// (holderStartGrace). Where the lock is not handed over, the holder just
// started may not hold it yet (act waits for it); where it is, a holder
// that died that soon is started again by the next run, which reports
// it pending too. A request asked through a Channel has no such gap (its
// caller took the lock before the record was written), and one shown has
// had its holder.
func starting(rec store.Record, now time.Time) bool {
	return rec.Channel == "" && rec.Status == store.Requested && now.Sub(rec.RequestedAt) < holderStartGrace
}

// neverReached reports whether rec failed without anybody asked: it was to
// be asked on the phone alone, and the phone never took it.
func neverReached(rec store.Record) bool {
	return rec.Status == store.Failed && rec.Phone == phoneOnly && rec.ShownAt.IsZero() && strings.HasPrefix(rec.Reason, phoneCouldNot)
}

// phoneCouldNot begins the reason of a request the phone could not ask
// (msgPhoneCouldNot).
var phoneCouldNot, _, _ = strings.Cut(msgPhoneCouldNot, "%")

// whatAsked names what asked rec's request, for a state whose asker is
// gone.
func whatAsked(rec store.Record) string {
	switch {
	case rec.Channel != "":
		return fmt.Sprintf(msgAskerChannel, wayPhrase(rec.Channel))
	case rec.Phone == phoneOnly:
		return msgAskerPhone
	}
	return msgAskerDialog
}

// keptBy is the window by which a new run under keep receives rec's
// outcome at now, how long it is and until when; "" where none does (as
// reuse.returns). Of several, the one that keeps it longest.
func keptBy(rec store.Record, now time.Time, keep reuse) (window string, d time.Duration, until time.Time) {
	consider := func(w string, wd time.Duration, holds bool) {
		if holds && (window == "" || rec.EndedAt.Add(wd).After(until)) {
			window, d, until = w, wd, rec.EndedAt.Add(wd)
		}
	}
	consider(WindowRemember, keep.remember, rec.FreshAt(now, keep.remember))
	consider(WindowCollectWithin, keep.collectWithin, rec.CollectableAt(now, keep.collectWithin))
	consider(WindowApproveFor, rec.ApprovedFor, rec.ApprovedFor <= dialog.MaxApproveFor && rec.ApprovedAt(now))
	if !keep.returns(rec, now) {
		return "", 0, time.Time{}
	}
	return window, d, until
}

// lastWindow is the window that kept rec's outcome longest, however long
// ago: --remember, or --collect-within while nobody collected it, or the
// approve-for period; the one that lapsed last.
func lastWindow(rec store.Record, keep reuse) (window string, d time.Duration, until time.Time) {
	window, d = WindowRemember, keep.remember
	if rec.Uncollected && rec.Status.Answer() && keep.collectWithin > d {
		window, d = WindowCollectWithin, keep.collectWithin
	}
	if rec.Status == store.Approved && rec.ApprovedFor > d {
		window, d = WindowApproveFor, rec.ApprovedFor
	}
	return window, d, rec.EndedAt.Add(d)
}

// result is the Result that reports rec's request in state st: the
// record's facts (its times, answer and votes), with st's status, exit
// code and sentence.
func (st State) result(rec store.Record, now time.Time) Result {
	r := fromRecord(rec, st.Name == StateKept, now)
	r.State, r.Status, r.ExitCode, r.Message = st.Name, st.Status, st.ExitCode, st.Message
	r.ShouldRetry, r.RetryReason = st.ExitCode == ExitPending, st.RetryReason
	r.Until, r.Window = st.Until, st.Window
	if !r.ShouldRetry {
		r.RetryReason = ""
	}
	if st.Status == StatusStale {
		r.Remembered, r.Answer, r.ApprovedUntil, r.Other, r.AnsweredBy = false, nil, time.Time{}, false, ""
	}
	return r
}

// resultOf is the Result of rec's request as f says it stands: stateOf,
// reported.
func resultOf(rec store.Record, f facts) Result {
	return stateOf(rec, f).result(rec, f.now)
}
