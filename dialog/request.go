// Package dialog describes one confirmation request: what the person is asked,
// how the request is identified, and the backend that puts the question on
// screen. It knows nothing about storage, processes or the command line.
package dialog

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on the text of a request. They keep a dialog readable and the
// holder's argument list and store record small.
const (
	MaxTitleBytes   = 256
	MaxMessageBytes = 64 << 10
	MaxLabelBytes   = 64
	MaxKeyBytes     = 256
	MaxScopeBytes   = 4096
	MaxOriginBytes  = 512
)

// Icons lists the accepted values of Request.Icon, in the order help text shows them.
var Icons = []string{"question", "warning", "error", "info", "none"}

// DefaultTitle is shown when a request has no title of its own.
const DefaultTitle = "ask-confirm"

// ErrInvalid is returned (wrapped in an *InvalidError) when a request cannot be
// shown as given.
var ErrInvalid = errors.New("invalid request")

// InvalidError says which field of a request is unacceptable and why.
type InvalidError struct {
	Field  string
	Reason string
}

func (e *InvalidError) Error() string { return e.Field + ": " + e.Reason }

// Unwrap lets callers test for ErrInvalid with errors.Is.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Request is one approve/cancel question. Its zero value is not valid: a
// request needs a message and both button labels. Every text is shown
// literally; none is interpreted as markup.
type Request struct {
	Title          string `json:"title"`
	Message        string `json:"message"`
	OKLabel        string `json:"ok_label"`
	CancelLabel    string `json:"cancel_label"`
	Icon           string `json:"icon"`
	DefaultApprove bool   `json:"default_approve,omitempty"`
	// Scope separates otherwise identical requests, by default the caller's
	// working directory, so that two repositories asking "Deploy?" do not share
	// an approval.
	Scope string `json:"scope"`
	// Key, when set, is the caller's idempotency key and becomes the request's
	// identity in place of its content.
	Key string `json:"key,omitempty"`
	// Origin says who asks, and where: "deploy.sh in ~/src/app". It is
	// shown under the question (Shown) so that a person can tell which
	// process is asking, and kept with the request, but it is not part of
	// the identity: the same question from another process is the same
	// request. Empty hides the line.
	Origin string `json:"origin,omitempty"`
	// Via names how the person is asked when it is not by a native dialog
	// (a lifecycle.Channel's name, "elicitation"), and is empty for a
	// dialog. It is part of the content and of the identity: an answer
	// given in a client's form, which an agent's host may fill in, is
	// never the answer to a question asked by dialog.
	Via string `json:"via,omitempty"`

	// Kind is what is asked: Confirm (the zero value), Choose or Input.
	Kind string `json:"kind,omitempty"`
	// Options are a choice's answers, in the order shown.
	Options []Option `json:"options,omitempty"`
	// Multiple lets the person pick several options.
	Multiple bool `json:"multiple,omitempty"`
	// Selected are the labels of the options chosen in advance: a
	// choice's default.
	Selected []string `json:"selected,omitempty"`
	// Other offers, beside a choice's options, an answer of the person's
	// own: a last option, OtherLabel, that asks for a line of text.
	Other bool `json:"other,omitempty"`
	// Text is the text an input starts with: its default.
	Text string `json:"text,omitempty"`
	// ApproveFor, when set, offers a third button on a confirmation that
	// approves this request and keeps the approval for this long
	// (ApproveForLabel).
	ApproveFor time.Duration `json:"approve_for,omitempty"`

	// Approvers name the people who decide a yes/no question asked on
	// the phone, each on a phone of their own (remote.Config.People), and
	// Approvals how many of them must approve; any one of them denies.
	// Empty for a question of one person, as every question before
	// named approvers. Both are part of the identity.
	Approvers []string `json:"approvers,omitempty"`
	Approvals int      `json:"approvals,omitempty"`

	// Note is a line shown under the question and its origin line, about
	// how the answer counts ("Your answer counts as Alice's vote; 2 of 3
	// approvals needed"): the engine writes it for the way it asks on
	// this machine. It is never kept with the request, nor sent to the
	// phone, and is no part of the identity.
	Note string `json:"-"`
}

// Shown is the text surface s shows of r, and whether it shows its
// message whole: the message fitted to s (Fit) in the room the lines
// under it leave, then, unless Origin is empty, a line saying who asks
// and, when closes is set, when the request closes unanswered, as Clock
// says it to a person reading it at now, then the Note, if any. The lines
// under the message are wrapped as the message is, and never cut: they
// are ask-confirm's own, and short. A front end that shows a message
// that is not whole makes Deny its default answer.
func (r Request) Shown(s Surface, closes, now time.Time) (text string, whole bool) {
	var under []string
	if r.Origin != "" {
		line := fmt.Sprintf(originLine, r.Origin)
		if !closes.IsZero() {
			line += fmt.Sprintf(originCloses, Clock(closes.Local(), now))
		}
		under = append(under, "", line)
	}
	if r.Note != "" {
		if r.Origin == "" {
			under = append(under, "")
		}
		under = append(under, r.Note)
	}
	after := s.wrap(Literal(strings.Join(under, "\n"), true))
	room := s
	if len(under) > 0 {
		room = s.Less(after)
	}
	msg, whole := Fit(r.Message, room)
	if len(under) > 0 {
		msg += "\n" + after
	}
	return msg, whole
}

// The origin line under the question.
const (
	originLine   = "Asked by %s"
	originCloses = " · closes at %s"
)

// Validate reports the first field that cannot be shown as given, as an
// *InvalidError wrapping ErrInvalid. It rejects what a person could misread or
// a terminal could misrender: invalid UTF-8, NUL and other control characters
// (a message may hold newlines and tabs), bidirectional overrides, a
// message or label that shows nothing (empty, or only spaces and invisible
// characters), invisible, private-use and unassigned characters in a
// button's label, two buttons whose labels read the same (SeenAs), a
// button that reads as the other's answer (an approving "Deny", a
// refusing "Approve": validateLabels) and text over the size limits.
func (r Request) Validate() error {
	checks := []struct {
		field, value string
		max          int
		required     bool
		multiline    bool
	}{
		{"--message", r.Message, MaxMessageBytes, true, true},
		{"--title", r.Title, MaxTitleBytes, false, false},
		{"--ok-label", r.OKLabel, MaxLabelBytes, true, false},
		{"--cancel-label", r.CancelLabel, MaxLabelBytes, true, false},
		{"--key", r.Key, MaxKeyBytes, false, false},
		{"--scope", r.Scope, MaxScopeBytes, false, false},
		{"origin", r.Origin, MaxOriginBytes, false, false},
		{"via", r.Via, MaxLabelBytes, false, false},
	}
	for _, c := range checks {
		if err := checkText(c.field, c.value, c.max, c.required, c.multiline); err != nil {
			return err
		}
	}
	for _, c := range []struct{ field, value string }{{"--ok-label", r.OKLabel}, {"--cancel-label", r.CancelLabel}} {
		if err := checkVisible(c.field, c.value); err != nil {
			return err
		}
	}
	if err := r.validateKind(); err != nil {
		return err
	}
	if err := r.validateApprovers(); err != nil {
		return err
	}
	if r.OKLabel == r.CancelLabel {
		return &InvalidError{"--ok-label", "must differ from --cancel-label, or the person cannot tell the buttons apart"}
	}
	if SeenAs(r.OKLabel) == SeenAs(r.CancelLabel) {
		return &InvalidError{"--cancel-label", fmt.Sprintf("%q reads the same as --ok-label %q, so the person could not tell the buttons apart", r.CancelLabel, r.OKLabel)}
	}
	return r.validateLabels()
}

func validIcon(icon string) bool {
	for _, i := range Icons {
		if icon == i {
			return true
		}
	}
	return false
}

func checkText(field, s string, max int, required, multiline bool) error {
	if len(s) > max {
		return &InvalidError{field, fmt.Sprintf("is %d bytes; the limit is %d", len(s), max)}
	}
	if required && s == "" {
		return &InvalidError{field, "must not be empty"}
	}
	if required && strings.TrimSpace(s) == "" {
		// " " is not empty, and was read so.
		return &InvalidError{field, "must not be blank: it holds only white space"}
	}
	if required && looksBlank(s) {
		return &InvalidError{field, "shows nothing: it holds only spaces and invisible characters"}
	}
	if !utf8.ValidString(s) {
		return &InvalidError{field, "is not valid UTF-8"}
	}
	for i, c := range s {
		switch {
		case c == 0:
			return &InvalidError{field, fmt.Sprintf("contains a NUL byte at offset %d", i)}
		case multiline && (c == '\n' || c == '\t'):
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0):
			return &InvalidError{field, fmt.Sprintf("contains control character U+%04X at offset %d", c, i)}
		case isBidiOverride(c):
			return &InvalidError{field, fmt.Sprintf("contains bidirectional override U+%04X at offset %d, which can disguise the text", c, i)}
		}
	}
	return nil
}
