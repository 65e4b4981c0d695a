package dialog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ncruces/zenity"
)

// Answer is what the person did with a request.
type Answer struct {
	// Approved is true only when the person pressed the approve button of
	// a confirmation, or answered a choice or an input with OK.
	Approved bool
	// Values are the labels chosen (Choose) or the one text typed (Input).
	Values []string
	// Typed is true when the last of Values is text the person typed as
	// a choice's own answer (Request.Other).
	Typed bool
	// For is how long the person approved for, with a confirmation's
	// Approve-for button (Request.ApproveFor); zero otherwise.
	For time.Duration
	// Votes are the votes that decided a request of several approvers
	// (Request.Approvers), in the order they counted; nil otherwise.
	Votes []Vote `json:",omitempty"`
}

// Backend puts a request on screen and waits for the person.
//
// Ask returns an Answer with Approved only when the person answered: the
// approve button, or OK with a choice or a text. Cancel, Esc, closing the
// window or OK with nothing chosen return an Answer without Approved and a
// nil error. When ctx ends first, the dialog is closed and Ask returns
// ctx's error. Any other error means the dialog could not be shown, crashed,
// or returned what was not asked for.
type Backend interface {
	Ask(ctx context.Context, r Request) (Answer, error)
}

// Closed is the cause a request's ways of asking are closed with, through
// Ask's context, once the request has ended: What says for a person what
// became of it ("Approved in the dialog", "This request expired"). A way
// of asking that can still reach the person after Ask returned (a phone)
// tells them that, and one that other machines share (a fleet's phone)
// tells them the outcome: Status, and Answer.
type Closed struct {
	What string
	// Status is how the request ended, as the store names it
	// ("approved", "denied", "expired", "cancelled", "superseded",
	// "withdrawn", ...); empty where that is not known.
	Status string
	// Answer is the answer that another way of asking than the one
	// closed gave (Status approved or denied); nil where there is none,
	// or the way closed gave it.
	Answer *Answer
}

func (c *Closed) Error() string { return c.What }

// Voter is a Backend that asks several people (Request.Approvers), and
// takes a vote given another way on this machine, such as a click in the
// local dialog, as the vote of the person it names (Vote.By), while it
// asks.
type Voter interface {
	Vote(v Vote)
}

// Finisher is a Backend that may have work left once Ask returned: a
// phone is told what became of the request when Ask's context ends.
// Finish returns once that work is done, or when ctx ends.
type Finisher interface {
	Finish(ctx context.Context)
}

// Zenity is the Backend built on github.com/ncruces/zenity: zenity, qarma or
// matedialog on Linux, osascript on macOS and Win32 on Windows.
type Zenity struct{}

// Ask implements Backend.
func (Zenity) Ask(ctx context.Context, r Request) (Answer, error) {
	utf8Locale()
	// A title shows its invisible characters as markers, as the text does.
	title := Literal(r.Title, false)
	if title == "" {
		title = DefaultTitle
	}
	opts := []zenity.Option{
		zenity.Context(ctx),
		zenity.Title(title),
		zenity.OKLabel(r.OKLabel),
		zenity.CancelLabel(r.CancelLabel),
	}
	closes, _ := ctx.Deadline()
	// The window grows with its text and never scrolls it: the text is
	// fitted to the screen (Fit), its long lines broken by Fit and not by
	// zenity, which breaks only at spaces, so that the window, its origin
	// line and its buttons stay on the screen, and a message too long to
	// show whole keeps its tail in view and Deny as its default.
	text, whole := r.Shown(Screen, closes, time.Now())
	if !whole {
		r.DefaultApprove = false
	}
	var ans Answer
	var err error
	switch r.Kind {
	case Choose:
		ans, err = choose(r, text, opts)
	case Input:
		ans, err = input(r, text, opts)
	default:
		ans, err = confirm(r, text, opts)
	}
	switch {
	case ctx.Err() != nil:
		// Prefer our own reason for closing over whatever the dialog reported.
		return Answer{}, ctx.Err()
	case errors.Is(err, zenity.ErrCanceled):
		return Answer{}, nil
	case err != nil:
		return Answer{}, err
	}
	return ans, nil
}

func confirm(r Request, text string, opts []zenity.Option) (Answer, error) {
	switch r.Icon {
	case "question":
		opts = append(opts, zenity.QuestionIcon)
	case "warning":
		opts = append(opts, zenity.WarningIcon)
	case "error":
		opts = append(opts, zenity.ErrorIcon)
	case "info":
		opts = append(opts, zenity.InfoIcon)
	case "none":
		opts = append(opts, zenity.NoIcon)
	}
	if !r.DefaultApprove {
		// Enter presses the default button; it must not approve by accident.
		opts = append(opts, zenity.DefaultCancel())
	}
	if r.ApproveFor > 0 {
		opts = append(opts, zenity.ExtraButton(r.ApproveForLabel()))
	}
	opts = append(opts, zenity.NoWrap())
	err := zenity.Question(text, opts...)
	switch {
	case err == nil:
		return Answer{Approved: true}, nil
	case r.ApproveFor > 0 && errors.Is(err, zenity.ErrExtraButton):
		return Answer{Approved: true, For: r.ApproveFor}, nil
	}
	return Answer{}, err
}

// choose shows the options as a list: one line each, the label and its
// description, and maps the lines picked back to labels. OK with nothing
// picked is no answer.
func choose(r Request, text string, opts []zenity.Option) (Answer, error) {
	// The title, buttons and context, for the text field of Other.
	base := slices.Clip(opts)
	lines, label := listLines(r)
	var selected []string
	for i, o := range r.Options {
		if indexOf(r.Selected, o.Label) >= 0 {
			selected = append(selected, lines[i])
		}
	}
	if len(selected) > 0 {
		opts = append(opts, zenity.DefaultItems(selected...))
	}
	opts = append(opts, zenity.DisallowEmpty())
	var picked []string
	var err error
	if r.Multiple {
		picked, err = zenity.ListMultiple(listText(text), lines, append(opts, zenity.CheckList())...)
	} else {
		var one string
		one, err = zenity.List(listText(text), lines, opts...)
		if one != "" {
			picked = []string{one}
		}
	}
	if err != nil {
		return Answer{}, err
	}
	if len(picked) == 0 && !r.Multiple && len(r.Selected) == 1 {
		// OK with nothing picked takes the default, which the list shows
		// preselected where the platform can (DefaultItems).
		picked = []string{lines[indexOf(r.Labels(), r.Selected[0])]}
	}
	if len(picked) == 0 {
		return Answer{}, nil
	}
	ans, other, err := labelsOf(r, picked, label)
	if err != nil || !other {
		return ans, err
	}
	// The person's own answer, asked next in the same request.
	own, err := askOwn(r, text, base, ownTooSoon)
	if err != nil || !own.Approved {
		return own, err
	}
	if strings.TrimSpace(own.Values[0]) == "" {
		// OK on an empty answer of one's own is no answer.
		return Answer{}, nil
	}
	return r.WithOwn(ans, own.Values[0]), nil
}

// listLines returns the list's lines for r's options, and the label of
// each line: the option's display, Other… last where r offers it, and the
// default marked where the platform cannot preselect it.
func listLines(r Request) (lines []string, label map[string]string) {
	lines = make([]string, len(r.Options))
	label = make(map[string]string, len(r.Options))
	for i, o := range r.Options {
		lines[i] = o.Display()
		label[lines[i]] = o.Label
	}
	if r.Other {
		lines = append(lines, OtherLabel)
	}
	if !r.Multiple && len(r.Selected) == 1 {
		// OK with nothing picked takes the default: say which, where
		// the platform cannot preselect it (zenity on Linux).
		i := indexOf(r.Labels(), r.Selected[0])
		if marked := lines[i] + defaultMark; label[marked] == "" {
			delete(label, lines[i])
			lines[i] = marked
			label[marked] = r.Selected[0]
		}
	}
	return lines, label
}

// labelsOf returns the answer the picked lines give, and whether Other…
// was among them. A line that is no option's is an error.
func labelsOf(r Request, picked []string, label map[string]string) (ans Answer, other bool, err error) {
	ans = Answer{Approved: true}
	for _, p := range picked {
		if r.Other && p == OtherLabel {
			other = true
			continue
		}
		l, ok := label[p]
		if !ok {
			return Answer{}, false, fmt.Errorf(msgNotAnOption, p)
		}
		ans.Values = append(ans.Values, l)
	}
	return ans, other, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// input shows an entry and returns its text, which may be empty.
const (
	// ownTooSoon is the earliest a person cancels the text field that
	// picking Other… opens, as the engine's DefaultHumanAnswer is for a
	// dialog: the list's program ends as the field's starts, and GNOME
	// zenity now and then dies as it starts (see Notice), with Cancel's
	// code, which the engine, timing the whole request, would take for
	// the person's.
	ownTooSoon = 400 * time.Millisecond
	// ownRestarts is how many times the field is shown again.
	ownRestarts = 3
)

// askOwn asks for the person's own answer after Other… was picked in r's
// list: a text field under text. A field that ends with Cancel's code
// sooner than tooSoon is shown again, at most ownRestarts times, and then
// the request is an error, never a person's Cancel.
func askOwn(r Request, text string, opts []zenity.Option, tooSoon time.Duration) (Answer, error) {
	field := Request{Title: r.Title, OKLabel: r.OKLabel, CancelLabel: r.CancelLabel}
	for restarts := 0; ; restarts++ {
		started := time.Now()
		own, err := input(field, text+"\n\n"+otherPrompt, opts)
		cancelled := errors.Is(err, zenity.ErrCanceled) || err == nil && !own.Approved
		if !cancelled || time.Since(started) >= tooSoon {
			return own, err
		}
		if restarts == ownRestarts {
			return Answer{}, fmt.Errorf(msgOwnFieldDied, restarts+1)
		}
	}
}

func input(r Request, text string, opts []zenity.Option) (Answer, error) {
	if r.Text != "" {
		opts = append(opts, zenity.EntryText(r.Text))
	}
	typed, err := zenity.Entry(entryText(text), opts...)
	if err != nil {
		return Answer{}, err
	}
	if err := CheckAnswer(typed); err != nil {
		return Answer{}, err
	}
	return Answer{Approved: true, Values: []string{typed}}, nil
}

// CheckAnswer reports typed text that cannot be an answer, by the rules
// of an input's --default: more than one line (a caller reading stdout
// would take it for several answers), control characters (a terminal
// would act on them), invisible characters, over MaxTextBytes, or not
// UTF-8.
func CheckAnswer(typed string) error {
	if err := checkText(answerField, typed, MaxTextBytes, false, false); err != nil {
		return err
	}
	return checkVisible(answerField, typed)
}

// answerField names typed text in CheckAnswer's errors.
const answerField = "the text typed"

// defaultMark follows the default option in a single choice's list.
const defaultMark = " (default)"

const msgNotAnOption = "the dialog returned %q, which is none of the options"

// msgOwnFieldDied is the error of a text field for an answer of one's own
// that ended as it started every time it was shown.
const msgOwnFieldDied = "the text field for an answer of one's own ended as it started, %d times"
