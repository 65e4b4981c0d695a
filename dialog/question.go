package dialog

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// The kinds of question a Request asks.
const (
	// Confirm asks to approve or cancel: the zero kind.
	Confirm = ""
	// Choose asks to pick one of Options, or several with Multiple.
	Choose = "choose"
	// Input asks for one line of text.
	Input = "input"
)

// Limits on the parts of a question beyond yes or no.
const (
	// MaxOptions is the most options one choice offers: more than fit a
	// dialog a person reads before answering.
	MaxOptions = 32
	// MaxOptionBytes bounds an option's label, which is what the caller
	// receives back.
	MaxOptionBytes = 128
	// MaxDescriptionBytes bounds the description shown beside a label.
	MaxDescriptionBytes = 512
	// MaxTextBytes bounds the text an input starts with and the text it
	// returns.
	MaxTextBytes = 4096
	// MaxApproveFor is the longest an approval may be given for in one
	// click: as long as any answer is remembered.
	MaxApproveFor = 7 * 24 * time.Hour
	// MinApproveFor is the shortest: a button that approves for less
	// would read as a plain Approve.
	MinApproveFor = time.Second
)

// Option is one answer a choice offers. Label is what the caller receives;
// Description, if any, is shown beside it.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// ParseOption reads the command line's form of an option, "label" or
// "label=description". A label holding "=" is written with the
// description separator doubled: "a==b" is the label "a=b".
func ParseOption(s string) Option {
	var label strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			label.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '=' {
			label.WriteByte('=')
			i++
			continue
		}
		return Option{Label: label.String(), Description: s[i+1:]}
	}
	return Option{Label: label.String()}
}

// OtherLabel is the last option of a choice with Other: picking it asks
// for the person's own answer.
const OtherLabel = "Other…"

// otherPrompt is the text field's label after Other was picked.
const otherPrompt = "Your answer:"

// optionSeparator stands between an option's label and its description
// where both are shown as one line.
const optionSeparator = " — "

// Display is how the option reads in a list: its label, then its
// description.
func (o Option) Display() string {
	if o.Description == "" {
		return o.Label
	}
	return o.Label + optionSeparator + o.Description
}

// ApproveForLabel is the third button's label of a request with
// ApproveFor: "Approve for 1h".
func (r Request) ApproveForLabel() string {
	return fmt.Sprintf(approveForLabel, ShortDuration(r.ApproveFor))
}

const approveForLabel = "Approve for %s"

// validateKind checks what belongs to r's kind and nothing else.
func (r Request) validateKind() error {
	bad := func(field, reason string) error { return &InvalidError{field, reason} }
	switch r.Kind {
	case Confirm:
		if err := r.onlyChoice(); err != nil {
			return err
		}
		switch {
		case r.Text != "":
			return bad("--default", "text belongs to ask-confirm input")
		case !validIcon(r.Icon):
			return bad("--icon", fmt.Sprintf("%q is not one of %s", r.Icon, strings.Join(Icons, ", ")))
		case r.ApproveFor < 0 || r.ApproveFor > MaxApproveFor || r.ApproveFor > 0 && r.ApproveFor < MinApproveFor:
			return bad("--approve-for", fmt.Sprintf("%s is outside %s to %s (0s: no such button)",
				ShortDuration(r.ApproveFor), ShortDuration(MinApproveFor), ShortDuration(MaxApproveFor)))
		case r.ApproveFor > 0 && (SeenAs(r.ApproveForLabel()) == SeenAs(r.OKLabel) || SeenAs(r.ApproveForLabel()) == SeenAs(r.CancelLabel)):
			return bad("--approve-for", fmt.Sprintf("its button %q would look like another button", r.ApproveForLabel()))
		}
		return nil
	case Choose, Input:
	default:
		return bad("kind", fmt.Sprintf("%q is not one of confirm, choose, input", r.Kind))
	}
	switch {
	case r.Icon != "":
		return bad("--icon", "belongs to a confirmation")
	case r.DefaultApprove:
		return bad("--default-approve", "belongs to a confirmation")
	case r.ApproveFor != 0:
		return bad("--approve-for", "belongs to a confirmation: there is nothing to approve in a choice or a text")
	}
	if r.Kind == Input {
		if err := r.onlyChoice(); err != nil {
			return err
		}
		if err := checkText("--default", r.Text, MaxTextBytes, false, false); err != nil {
			return err
		}
		return checkVisible("--default", r.Text)
	}
	return r.validateOptions()
}

// onlyChoice refuses what only a choice has.
func (r Request) onlyChoice() error {
	switch {
	case len(r.Options) > 0:
		return &InvalidError{"--option", "belongs to ask-confirm choose"}
	case r.Multiple:
		return &InvalidError{"--multiple", "belongs to ask-confirm choose"}
	case len(r.Selected) > 0:
		return &InvalidError{"--default", "an option picked in advance belongs to ask-confirm choose"}
	case r.Other:
		return &InvalidError{"--other", "belongs to ask-confirm choose"}
	}
	return nil
}

// checkVisible refuses, in one line of text a person picks or reads as a
// value, what would make it break or look like other text: the line and
// paragraph separators and every character that shows nothing (invisible:
// format characters, fillers, tags, a blank notehead), apart from the two
// that emoji are made with, the zero-width joiner and the variation
// selectors, which SeenAs drops when it compares.
func checkVisible(field, s string) error {
	for i, c := range s {
		if c == 0x2028 || c == 0x2029 || (Hidden(c) && c != zeroWidthJoiner && !unicode.Is(unicode.Variation_Selector, c)) {
			return &InvalidError{field, fmt.Sprintf("contains the invisible character U+%04X at offset %d, which can make two texts look alike", c, i)}
		}
	}
	return nil
}

// zeroWidthJoiner joins the emoji of a sequence ("👨\u200d💻") into one.
const zeroWidthJoiner = '\u200d'

// validateOptions checks a choice: between 2 and MaxOptions options, each
// with a distinct label that reads as itself in a list (no character that
// shows nothing, and none that no font draws as itself:
// checkLabelCharacters) and cannot be taken for a command-line flag by the
// program that shows the list, and a default that is one of them. What an
// option's label says is the caller's own: an option may be "Deny".
func (r Request) validateOptions() error {
	bad := func(field, reason string) error { return &InvalidError{field, reason} }
	switch {
	case r.Text != "":
		return bad("--default", "text belongs to ask-confirm input")
	case len(r.Options) < 2:
		return bad("--option", fmt.Sprintf("a choice needs at least 2 options, it has %d (ask for one with ask-confirm itself)", len(r.Options)))
	case len(r.Options) > MaxOptions:
		return bad("--option", fmt.Sprintf("%d options are more than the %d a person can read in one dialog", len(r.Options), MaxOptions))
	}
	labels := make(map[string]bool, len(r.Options))
	shown := make(map[string]bool, len(r.Options))
	for i, o := range r.Options {
		field := fmt.Sprintf("--option %d", i+1)
		if err := checkText(field, o.Label, MaxOptionBytes, true, false); err != nil {
			return err
		}
		if err := checkText(field+" description", o.Description, MaxDescriptionBytes, false, false); err != nil {
			return err
		}
		if err := checkVisible(field, o.Label); err != nil {
			return err
		}
		if err := checkLabelCharacters(field, o.Label); err != nil {
			return err
		}
		if err := checkVisible(field+" description", o.Description); err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(o.Display(), defaultMark):
			return bad(field, fmt.Sprintf("%q ends in %q, which marks the default option", o.Display(), strings.TrimSpace(defaultMark)))
		case strings.HasPrefix(o.Label, "-"):
			return bad(field, fmt.Sprintf("%q starts with '-', which the dialog program would read as a flag", o.Label))
		case o.Label != strings.TrimSpace(o.Label):
			return bad(field, fmt.Sprintf("%q starts or ends with spaces, which a person cannot see", o.Label))
		case r.Other && (o.Label == OtherLabel || o.Display() == OtherLabel):
			return bad(field, fmt.Sprintf("%q is the option --other adds", OtherLabel))
		case labels[o.Label]:
			return bad(field, fmt.Sprintf("%q is given twice", o.Label))
		case shown[SeenAs(o.Display())]:
			return bad(field, fmt.Sprintf("%q reads the same as another option", o.Display()))
		}
		labels[o.Label], shown[SeenAs(o.Display())] = true, true
	}
	if len(r.Selected) > 1 && !r.Multiple {
		return bad("--default", "names several options; only --multiple picks more than one")
	}
	seen := map[string]bool{}
	for _, s := range r.Selected {
		switch {
		case !labels[s]:
			return bad("--default", fmt.Sprintf("%q is not one of the options", s))
		case seen[s]:
			return bad("--default", fmt.Sprintf("%q is given twice", s))
		}
		seen[s] = true
	}
	return nil
}

// WithOwn adds the person's own answer to a choice's answer: as typed
// text, unless it is an option's label, which it then is (once), so that
// a caller never reads typed text that looks like a label as one.
func (r Request) WithOwn(ans Answer, own string) Answer {
	for _, l := range r.Labels() {
		if l == own {
			if !slices.Contains(ans.Values, l) {
				ans.Values = append(ans.Values, l)
				slices.SortStableFunc(ans.Values, func(a, b string) int {
					return slices.Index(r.Labels(), a) - slices.Index(r.Labels(), b)
				})
			}
			return ans
		}
	}
	ans.Values, ans.Typed = append(ans.Values, own), true
	return ans
}

// Labels returns the options' labels, in order.
func (r Request) Labels() []string {
	labels := make([]string, len(r.Options))
	for i, o := range r.Options {
		labels[i] = o.Label
	}
	return labels
}
