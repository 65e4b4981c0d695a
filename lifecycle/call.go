package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// Call is one request as a front end asks it: the question and how long to
// wait, show, and keep its answer.
type Call struct {
	Request dialog.Request
	// Wait is how long Ask blocks before it reports the request pending.
	Wait time.Duration
	// Timeout is how long the dialog stays open unanswered.
	Timeout time.Duration
	// Remember is how long an answer that some caller has received is
	// returned again to the same request.
	Remember time.Duration
	// CollectWithin is how long an answer that no caller has received yet
	// is kept for the next identical request, which receives it once.
	// Below Remember it counts as Remember.
	CollectWithin time.Duration
	// Retries is how many times the dialog is shown again when it fails to
	// render or its holder dies.
	Retries int
	// IfHeadless is what to do when nobody can be asked: IfHeadlessFail,
	// IfHeadlessDeny or IfHeadlessApprove.
	IfHeadless string
	// Watch, if set, follows the wait: a countdown, progress notices.
	Watch Watcher
	// Channel, if set, is a way of asking the person in this process
	// instead of a dialog: used when no dialog can be shown, or always
	// (Channel.Always).
	Channel *Channel
	// Joined, if set, is called once, from Ask, when this invocation has
	// started or joined the asking of its request, and so receives its
	// answer as its own. A front end that hands an answer to its
	// Channel's Backend from a later call (the MCP server's form, at
	// protocol 2026-07-28) hands it over then: an answer recorded before
	// the invocation first looked would read as a remembered one, and a
	// failed attempt as a new request's first.
	Joined func()
	// Withdraw ends the request when the wait runs out with it still open:
	// its dialog closes, and it ends withdrawn: callers waiting on it then
	// get that (exit 1), and no later caller receives it.
	// For callers that then ask the person another way (an agent hook
	// handing the question back to its host's own prompt), so that two
	// prompts never stand open for one question.
	Withdraw bool
	// UntilEnd makes Ask wait until the request ends, whatever Wait says,
	// as it does for an Attached Channel: for a caller that has nobody to
	// hand "pending" to (OpenSSH, which waits for its askpass program and
	// reads anything but yes as no). Wait is then at least the Timeout.
	UntilEnd bool
	// Remote says when the person is also asked on their phone: one of
	// remote.Modes, or empty for the mode set with the phone's settings
	// (none: never).
	Remote string
	// OnePerson keeps a yes/no question one person's where several people
	// are set up: it gets no approvers unless it names them (an
	// ssh-askpass confirmation is the key owner's consent, not a team's).
	OnePerson bool
}

// Channel is a way of asking a person that runs in the caller's own
// process rather than in a detached holder: an MCP client's form
// (elicitation), or a prompt on the caller's terminal. The engine shows the request through Backend in a
// goroutine that keeps the identity's lock and records the answer exactly
// as a holder does, with the same deadline and the same human-answer
// threshold; it may outlive Ask, so that an answer given after the caller
// stopped waiting is kept for the next identical request.
type Channel struct {
	// Name is recorded with the request and in the history, and shown by
	// list: "elicitation", "terminal".
	Name string
	// Backend asks the person.
	Backend dialog.Backend
	// Always asks this way even where a dialog could be shown.
	Always bool
	// Context bounds the asking beyond the request's own deadline: the
	// life of the session the Backend asks through. Nil is no bound.
	Context context.Context
	// Attached is true for a way of asking that cannot outlive the
	// caller's process: a prompt on the terminal that ran the command.
	// Ask then waits until the request ends, up to its Timeout, whatever
	// Call.Wait says: returning pending would end the asking with the
	// process, and leave nobody to answer.
	Attached bool
}

// The values of Call.IfHeadless.
const (
	IfHeadlessFail    = "fail"
	IfHeadlessDeny    = "deny"
	IfHeadlessApprove = "approve"
)

// IfHeadlessValues are the values of Call.IfHeadless, in the order help
// text gives them: what Validate accepts, and what the command line
// completes --if-headless to.
var IfHeadlessValues = []string{IfHeadlessFail, IfHeadlessDeny, IfHeadlessApprove}

// Limits on a Call's durations and retries.
const (
	MaxWait     = 24 * time.Hour
	MaxTimeout  = 24 * time.Hour
	MaxRemember = 7 * 24 * time.Hour
	MaxRetries  = 5
)

// DefaultCall is what a front end asks with where its caller says nothing:
// the command line's flag defaults. CollectWithin covers an answer given
// near the end of the default 5-minute Timeout followed by a retry ten
// minutes later (a coffee, an agent busy elsewhere), and is short enough
// that an approval forgotten for longer does not surprise anyone.
func DefaultCall() Call {
	return Call{
		Request: dialog.Request{
			Title:       dialog.DefaultTitle,
			OKLabel:     "Approve",
			CancelLabel: "Cancel",
			Icon:        "question",
		},
		Wait:          45 * time.Second,
		Timeout:       5 * time.Minute,
		Remember:      60 * time.Second,
		CollectWithin: 15 * time.Minute,
		Retries:       2,
		IfHeadless:    IfHeadlessFail,
	}
}

// Validate reports the first thing about c that cannot be asked as given:
// the request's text (dialog.Request.Validate) or a setting out of its
// limits, as a *dialog.InvalidError naming the command line's flag.
func (c Call) Validate() error {
	if err := c.Request.Validate(); err != nil {
		return err
	}
	bad := func(flag, reason string) error { return &dialog.InvalidError{Field: flag, Reason: reason} }
	switch {
	case c.Wait < 0 || c.Wait > MaxWait:
		return bad("--wait", outside(c.Wait, 0, MaxWait))
	case c.Timeout <= 0 || c.Timeout > MaxTimeout:
		return bad("--timeout", fmt.Sprintf(msgTimeoutRange, dialog.ShortDuration(MaxTimeout), dialog.ShortDuration(c.Timeout)))
	case c.Remember < 0 || c.Remember > MaxRemember:
		return bad("--remember", outside(c.Remember, 0, MaxRemember))
	case c.CollectWithin < 0 || c.CollectWithin > MaxRemember:
		return bad("--collect-within", outside(c.CollectWithin, 0, MaxRemember))
	case c.Retries < 0 || c.Retries > MaxRetries:
		return bad("--retries", fmt.Sprintf(msgOutside, fmt.Sprint(c.Retries), "0", fmt.Sprint(MaxRetries)))
	}
	if !slices.Contains(IfHeadlessValues, c.IfHeadless) {
		return bad("--if-headless", fmt.Sprintf("%q is not one of %s", c.IfHeadless, strings.Join(IfHeadlessValues, ", ")))
	}
	if c.IfHeadless == IfHeadlessApprove && c.Request.Kind != dialog.Confirm {
		return bad("--if-headless", msgHeadlessNone)
	}
	if c.Remote != "" && !slices.Contains(remote.Modes, c.Remote) {
		return bad("--remote", fmt.Sprintf("%q is not one of %s", c.Remote, strings.Join(remote.Modes, ", ")))
	}
	if c.Channel != nil && (c.Channel.Name == "" || c.Channel.Backend == nil) {
		return bad("channel", "needs a name and a backend")
	}
	if c.Request.Via != "" && (c.Channel == nil || c.Channel.Name != c.Request.Via) {
		return bad("via", "names a channel the call does not ask through")
	}
	return nil
}

// outside says that d is not within lo to hi, in the units a person
// writes: "25h is outside 0s to 24h".
func outside(d, lo, hi time.Duration) string {
	return fmt.Sprintf(msgOutside, dialog.ShortDuration(d), dialog.ShortDuration(lo), dialog.ShortDuration(hi))
}

// attachedGrace is how long past its Timeout a caller that waits until
// the request ends (UntilEnd, or an Attached Channel) waits: the request's
// deadline is set a moment after the caller starts waiting, and its expiry
// must be recorded before the caller's last look, or the caller would
// report the request pending.
const attachedGrace = 5 * time.Second

// untilEnd is true for a prepared call that waits until its request ends.
func (c Call) untilEnd() bool {
	return c.UntilEnd || c.Channel != nil && c.Channel.Attached
}

// wait is how long Ask blocks for the prepared call: Wait, or, for one
// that waits until its request ends, at least the request's Timeout.
func (c Call) wait() time.Duration {
	if c.untilEnd() {
		return max(c.Wait, c.Timeout+attachedGrace)
	}
	return c.Wait
}

// reuse is how long the call takes an ended request's answer.
func (c Call) reuse() reuse {
	return reuse{remember: c.Remember, collectWithin: max(c.CollectWithin, c.Remember)}
}

// Watcher is told, about once a second while a caller waits for the
// person, how long it will still wait and when the dialog closes
// unanswered; Done follows once the waiting is over. The terminal
// countdown and the MCP server's progress notifications are Watchers.
type Watcher interface {
	Waiting(left time.Duration, dialogUntil time.Time)
	Done()
}

// AskedOnWatcher is a Watcher that is also told, before it is told of
// the wait, how the request it waits for is asked: its record's channel
// ("" for a dialog, or a Channel's Name, such as another invocation's
// terminal prompt) and phone ("", "also" or "only"), so that a caller
// who joined a question asked elsewhere can say where it is open. A
// caller's own attached Channel (its terminal prompt) shows its own
// countdown: its Watcher is told nothing meanwhile.
type AskedOnWatcher interface {
	Watcher
	AskedOn(channel, phone string)
}
