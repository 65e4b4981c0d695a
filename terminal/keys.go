package terminal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// What the person types, read as keys, and what the keys answer. All of it
// is pure, so that every OS tests it with bytes instead of a terminal.

// keyKind is what a key does to the line being typed.
type keyKind int

const (
	keyRune   keyKind = iota // a character typed
	keyEnter                 // Enter: the line is the answer
	keyErase                 // Backspace: the last character goes
	keyKill                  // Ctrl-U: the whole line goes
	keyCancel                // Ctrl-C, Ctrl-D or Esc alone: no answer
)

// key is one key the person pressed.
type key struct {
	kind keyKind
	r    rune // for keyRune the character; for keyCancel ctrlC, ctrlD or esc
}

// escState is where a decoder is within an escape sequence.
type escState int

const (
	escNone  escState = iota
	escStart          // after ESC
	escCSI            // after ESC [: parameters until a final byte
	escSS3            // after ESC O: one more byte
	escAlt            // after ESC and the lead byte of a multi-byte character: its rest
)

// decoder turns the bytes a terminal in raw mode sends into keys. Escape
// sequences (arrow keys, function keys, Alt with a key) are dropped whole,
// so that no ESC byte is ever echoed and Alt-y is not y; an Esc alone,
// with nothing after it until a read finds the keyboard quiet (idle), is
// a cancel, as Esc is in the dialog; control characters other than the
// ones that edit or end the line are dropped; invalid UTF-8 is dropped.
// CR, LF and CR LF are each one Enter.
type decoder struct {
	esc     escState
	afterCR bool
	partial []byte // the start of a multi-byte character
}

// Bytes with a meaning of their own.
const (
	ctrlC     = 0x03
	ctrlD     = 0x04
	backspace = 0x08
	ctrlU     = 0x15
	esc       = 0x1b
	del       = 0x7f
)

// feed decodes b, which may end inside an escape sequence or a character:
// the rest comes with the next call.
func (d *decoder) feed(b []byte) []key {
	var keys []key
	for _, c := range b {
		afterCR := d.afterCR
		d.afterCR = false
		if d.inEscape(c) {
			continue
		}
		if c >= 0x80 {
			keys = d.multibyte(keys, c)
			continue
		}
		d.partial = d.partial[:0]
		switch {
		case c == esc:
			d.esc = escStart
		case c == '\r':
			d.afterCR = true
			keys = append(keys, key{kind: keyEnter})
		case c == '\n':
			if !afterCR {
				keys = append(keys, key{kind: keyEnter})
			}
		case c == del || c == backspace:
			keys = append(keys, key{kind: keyErase})
		case c == ctrlU:
			keys = append(keys, key{kind: keyKill})
		case c == ctrlC || c == ctrlD:
			keys = append(keys, key{kind: keyCancel, r: rune(c)})
		case c < 0x20:
			// Tab and the other controls edit nothing here.
		default:
			keys = append(keys, key{kind: keyRune, r: rune(c)})
		}
	}
	return keys
}

// idle is told that a read found nothing more typed: an ESC that no
// sequence followed was Esc pressed alone, a cancel.
func (d *decoder) idle() []key {
	if d.esc != escStart {
		return nil
	}
	d.esc = escNone
	return []key{{kind: keyCancel, r: esc}}
}

// inEscape takes byte c of an escape sequence, and reports whether the
// sequence took it; a byte it does not take counts on its own.
func (d *decoder) inEscape(c byte) bool {
	switch d.esc {
	case escStart:
		switch c {
		case '[':
			d.esc = escCSI
			return true
		case 'O':
			d.esc = escSS3
			return true
		case esc:
			return true
		case ctrlC, ctrlD:
			// A cancel counts however it was pressed.
			d.esc = escNone
			return false
		}
		// ESC and a key is Alt with that key: dropped whole, the rest of a
		// multi-byte character with it.
		d.esc = escNone
		if c >= 0xc0 {
			d.esc = escAlt
		}
		return true
	case escAlt:
		if c >= 0x80 && c < 0xc0 {
			return true
		}
		d.esc = escNone
	case escCSI:
		switch {
		case c >= 0x20 && c <= 0x3f:
			return true
		case c >= 0x40 && c <= 0x7e:
			d.esc = escNone
			return true
		}
		// Not a sequence after all: the byte counts on its own.
		d.esc = escNone
	case escSS3:
		d.esc = escNone
		return true
	}
	return false
}

// multibyte adds byte c of a multi-byte character, and the character once
// it is whole and shows as something: C1 controls are dropped like C0.
func (d *decoder) multibyte(keys []key, c byte) []key {
	if utf8.RuneStart(c) {
		d.partial = d.partial[:0]
	}
	d.partial = append(d.partial, c)
	if !utf8.FullRune(d.partial) {
		return keys
	}
	r, size := utf8.DecodeRune(d.partial)
	d.partial = d.partial[:0]
	if (r == utf8.RuneError && size <= 1) || unicode.IsControl(r) {
		return keys
	}
	return append(keys, key{kind: keyRune, r: r})
}

// stage is what the prompt reads next.
type stage int

const (
	stageConfirm stage = iota // y or n
	stageChoose               // option numbers
	stageInput                // a line of text
	stageOther                // after Other…: the person's own answer
)

// question is a request being answered on the terminal: what has been
// typed, and what the prompt says about it.
type question struct {
	r      dialog.Request
	stage  stage
	typed  []rune
	note   string
	picked []string // labels picked before Other… asked for text
	// overflow is set once more was typed on this line than it holds
	// (limit), and not taken.
	overflow bool
}

// Limits on what is typed: enough for "yes" or for every option's number,
// and an input's limit for text.
const (
	maxConfirmRunes = 16
	maxChooseRunes  = 4 * dialog.MaxOptions
)

func newQuestion(r dialog.Request) *question {
	q := &question{r: r}
	switch r.Kind {
	case dialog.Choose:
		q.stage = stageChoose
	case dialog.Input:
		q.stage = stageInput
		q.typed = []rune(r.Text)
	}
	return q
}

// key applies k. done is true once the question is answered: with ans's
// Approved, or without it for a cancel.
func (q *question) key(k key) (ans dialog.Answer, done bool) {
	q.note = ""
	switch k.kind {
	case keyCancel:
		return dialog.Answer{}, true
	case keyErase:
		if len(q.typed) > 0 {
			q.typed = q.typed[:len(q.typed)-1]
		}
	case keyKill:
		q.typed, q.overflow = q.typed[:0], false
	case keyRune:
		if q.fits(k.r) {
			q.typed = append(q.typed, k.r)
			break
		}
		// Text past the limit is not dropped unsaid: the line says so,
		// and its Enter takes nothing as typed (enter).
		q.overflow = true
		q.note = fmt.Sprintf(noteTooLong, q.limit())
	case keyEnter:
		return q.enter()
	}
	return dialog.Answer{}, false
}

// fits reports whether r may be added to the line.
func (q *question) fits(r rune) bool {
	switch q.stage {
	case stageConfirm:
		return len(q.typed) < maxConfirmRunes
	case stageChoose:
		return len(q.typed) < maxChooseRunes
	}
	return len(string(q.typed))+utf8.RuneLen(r) <= dialog.MaxTextBytes
}

// limit says how much a line of q's stage holds.
func (q *question) limit() string {
	switch q.stage {
	case stageConfirm:
		return fmt.Sprintf(limitChars, maxConfirmRunes)
	case stageChoose:
		return fmt.Sprintf(limitChars, maxChooseRunes)
	}
	return fmt.Sprintf(limitBytes, dialog.MaxTextBytes)
}

// enter takes the line typed as the answer, or says why it answers
// nothing and starts the line again.
func (q *question) enter() (dialog.Answer, bool) {
	typed := string(q.typed)
	if q.overflow && q.stage == stageConfirm {
		// The line was longer than it shows ("y", spaces, then "no"):
		// anything but y or yes denies, and so does this.
		return dialog.Answer{}, true
	}
	if q.overflow {
		// Taken as it shows, it would be an answer the person did not
		// type: option 1 of a pasted 12, a text cut short.
		q.note, q.typed, q.overflow = fmt.Sprintf(noteTooLongOut, q.limit()), q.typed[:0], false
		return dialog.Answer{}, false
	}
	switch q.stage {
	case stageConfirm:
		return confirmAnswer(q.r, typed), true
	case stageInput, stageOther:
		if err := dialog.CheckAnswer(typed); err != nil {
			// Refused on the line, as a wrong option number is: recorded,
			// it would fail the request.
			q.note, q.typed = fmt.Sprintf(noteBadText, err), q.typed[:0]
			return dialog.Answer{}, false
		}
		if q.stage == stageInput {
			return dialog.Answer{Approved: true, Values: []string{typed}}, true
		}
		if strings.TrimSpace(typed) == "" {
			// An empty answer of one's own is no answer, as in the dialog.
			return dialog.Answer{}, true
		}
		return q.r.WithOwn(dialog.Answer{Approved: true, Values: slices.Clone(q.picked)}, typed), true
	}
	labels, other, note := q.choice(typed)
	switch {
	case note != "":
		q.note, q.typed = note, q.typed[:0]
		return dialog.Answer{}, false
	case other:
		q.stage, q.picked, q.typed = stageOther, labels, q.typed[:0]
		return dialog.Answer{}, false
	}
	return dialog.Answer{Approved: true, Values: labels}, true
}

// choice reads typed as a choice's answer: the labels picked, in the
// options' order, and whether Other… is among them; or a note saying why
// typed answers nothing.
func (q *question) choice(typed string) (labels []string, other bool, note string) {
	r := q.r
	if strings.TrimSpace(typed) == "" {
		if len(r.Selected) == 0 {
			return nil, false, fmt.Sprintf(noteNothing, r.CancelLabel)
		}
		for _, o := range r.Options {
			if slices.Contains(r.Selected, o.Label) {
				labels = append(labels, o.Label)
			}
		}
		return labels, false, ""
	}
	n := len(r.Options)
	if r.Other {
		n++
	}
	picked, note := parseChoice(typed, n, r.Multiple)
	if note != "" {
		return nil, false, note
	}
	for _, i := range picked {
		if i == len(r.Options) {
			other = true
			continue
		}
		labels = append(labels, r.Options[i].Label)
	}
	return labels, other, ""
}

// parseChoice reads the option numbers typed, 1 to n, separated by spaces
// or commas: one, or with multiple any number of them. It returns them as
// indexes, in order and each once, or a note saying what is wrong.
func parseChoice(typed string, n int, multiple bool) (picked []int, note string) {
	fields := strings.FieldsFunc(typed, func(r rune) bool { return r == ' ' || r == ',' })
	if len(fields) == 0 {
		return nil, fmt.Sprintf(noteNotAnOption, typed, n)
	}
	seen := make([]bool, n)
	for _, f := range fields {
		i, err := strconv.Atoi(f)
		if err != nil || i < 1 || i > n || f[0] == '+' {
			return nil, fmt.Sprintf(noteNotAnOption, f, n)
		}
		seen[i-1] = true
	}
	for i, s := range seen {
		if s {
			picked = append(picked, i)
		}
	}
	if len(picked) > 1 && !multiple {
		return nil, noteOnlyOne
	}
	return picked, ""
}

// confirmAnswer is what typed answers a confirmation: y or yes approve,
// a approves for the offered period, Enter alone presses the default
// button (Cancel unless the request makes Approve the default), and
// anything else denies.
func confirmAnswer(r dialog.Request, typed string) dialog.Answer {
	t := strings.TrimSpace(typed)
	switch {
	case strings.EqualFold(t, "y") || strings.EqualFold(t, "yes"):
		return dialog.Answer{Approved: true}
	case r.ApproveFor > 0 && strings.EqualFold(t, "a"):
		return dialog.Answer{Approved: true, For: r.ApproveFor}
	case typed == "" && r.DefaultApprove:
		return dialog.Answer{Approved: true}
	}
	return dialog.Answer{}
}
