package terminal

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

func confirmRequest() dialog.Request {
	return dialog.Request{Title: "Deploy", Message: "Ship v2?", OKLabel: "Approve", CancelLabel: "Cancel", Icon: "question"}
}

func chooseRequest() dialog.Request {
	return dialog.Request{Title: "Deploy", Message: "Deploy v2 to?", OKLabel: "OK", CancelLabel: "Cancel", Kind: dialog.Choose,
		Options: []dialog.Option{{Label: "staging", Description: "the staging cluster"}, {Label: "production"}, {Label: "canary"}}}
}

func inputRequest() dialog.Request {
	return dialog.Request{Title: "Release", Message: "Name of the release?", OKLabel: "OK", CancelLabel: "Cancel", Kind: dialog.Input}
}

// keyNames writes keys as a test reads them: runes as themselves, the
// rest by name in brackets.
func keyNames(keys []key) string {
	var b strings.Builder
	for _, k := range keys {
		switch k.kind {
		case keyRune:
			b.WriteRune(k.r)
		case keyEnter:
			b.WriteString("<enter>")
		case keyErase:
			b.WriteString("<erase>")
		case keyKill:
			b.WriteString("<kill>")
		case keyCancel:
			b.WriteString("<cancel>")
		}
	}
	return b.String()
}

// Esc alone, with nothing after it when a read finds the keyboard quiet,
// cancels; the start of a sequence does not.
func TestDecoderEscAlone(t *testing.T) {
	var d decoder
	if keys := append(d.feed([]byte("\x1b")), d.idle()...); len(keys) != 1 || keys[0] != (key{kind: keyCancel, r: esc}) {
		t.Errorf("Esc alone: %q", keyNames(keys))
	}
	if keys := append(d.feed([]byte("y\x1b[A")), d.idle()...); keyNames(keys) != "y" {
		t.Errorf("an arrow key then quiet: %q", keyNames(keys))
	}
	if keys := d.idle(); keys != nil {
		t.Errorf("quiet with no Esc: %q", keyNames(keys))
	}
}

func TestDecoder(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"letters", []string{"yes"}, "yes"},
		{"CR is Enter", []string{"y\r"}, "y<enter>"},
		{"LF is Enter", []string{"y\n"}, "y<enter>"},
		{"CR LF is one Enter", []string{"y\r\n"}, "y<enter>"},
		{"CR LF split across reads is one Enter", []string{"y\r", "\n"}, "y<enter>"},
		{"two CRs are two Enters", []string{"\r\r"}, "<enter><enter>"},
		{"LF LF are two Enters", []string{"\n\n"}, "<enter><enter>"},
		{"Ctrl-C cancels", []string{"\x03"}, "<cancel>"},
		{"Ctrl-D cancels", []string{"\x04"}, "<cancel>"},
		{"DEL erases", []string{"ab\x7f"}, "ab<erase>"},
		{"backspace erases", []string{"ab\b"}, "ab<erase>"},
		{"Ctrl-U kills the line", []string{"ab\x15"}, "ab<kill>"},
		{"tab and other controls are dropped", []string{"a\tb\x07c\x00d\x1fe"}, "abcde"},
		{"arrow keys are dropped whole", []string{"a\x1b[Db\x1b[A\x1b[1;5Cc"}, "abc"},
		{"application-mode arrows are dropped whole", []string{"a\x1bOAb"}, "ab"},
		{"an escape sequence split across reads is dropped", []string{"a\x1b", "[", "3~b"}, "ab"},
		{"bracketed paste markers are dropped", []string{"\x1b[200~yes\x1b[201~"}, "yes"},
		{"Alt and a key is dropped", []string{"\x1by\r"}, "<enter>"},
		{"Alt and a key split across reads is dropped", []string{"\x1b", "y"}, ""},
		{"Alt and a wide key is dropped", []string{"\x1bé", "\x1b\xe3", "\x81\x82a"}, "a"},
		{"Escape then Escape then a key", []string{"\x1b\x1by"}, ""},
		{"Escape then Ctrl-C cancels", []string{"\x1b\x03"}, "<cancel>"},
		{"a control byte inside a sequence counts alone", []string{"\x1b[1\x03"}, "<cancel>"},
		{"UTF-8", []string{"café ü"}, "café ü"},
		{"UTF-8 split across reads", []string{"caf\xc3", "\xa9"}, "café"},
		{"invalid UTF-8 is dropped", []string{"a\xffb\xc3c"}, "abc"},
		{"C1 controls typed as UTF-8 are dropped", []string{"a\u009b31mb\u0085c"}, "a31mbc"},
		{"a lone continuation byte is dropped", []string{"\x80a"}, "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d decoder
			var keys []key
			for _, ch := range c.chunks {
				keys = append(keys, d.feed([]byte(ch))...)
			}
			if got := keyNames(keys); got != c.want {
				t.Errorf("keys %q, want %q", got, c.want)
			}
		})
	}
}

// What a typed line answers to a confirmation: only y or yes approves,
// Enter alone is the default button, and everything else denies.
func TestConfirmAnswer(t *testing.T) {
	plain := confirmRequest()
	defaultApprove := confirmRequest()
	defaultApprove.DefaultApprove = true
	withFor := confirmRequest()
	withFor.ApproveFor = time.Hour
	cases := []struct {
		name  string
		r     dialog.Request
		typed string
		want  dialog.Answer
	}{
		{"y", plain, "y", dialog.Answer{Approved: true}},
		{"Y", plain, "Y", dialog.Answer{Approved: true}},
		{"yes", plain, "yes", dialog.Answer{Approved: true}},
		{"YES", plain, "YES", dialog.Answer{Approved: true}},
		{"Yes with spaces around", plain, "  Yes ", dialog.Answer{Approved: true}},
		{"n", plain, "n", dialog.Answer{}},
		{"no", plain, "no", dialog.Answer{}},
		{"Enter alone presses Cancel", plain, "", dialog.Answer{}},
		{"Enter alone presses Approve with --default-approve", defaultApprove, "", dialog.Answer{Approved: true}},
		{"spaces and Enter are not Enter alone", defaultApprove, " ", dialog.Answer{}},
		{"n with --default-approve", defaultApprove, "n", dialog.Answer{}},
		{"yess", plain, "yess", dialog.Answer{}},
		{"ye", plain, "ye", dialog.Answer{}},
		{"y es", plain, "y es", dialog.Answer{}},
		{"ok", plain, "ok", dialog.Answer{}},
		{"1", plain, "1", dialog.Answer{}},
		{"the approve label", plain, "Approve", dialog.Answer{}},
		{"a without --approve-for", plain, "a", dialog.Answer{}},
		{"a with --approve-for", withFor, "a", dialog.Answer{Approved: true, For: time.Hour}},
		{"A with --approve-for", withFor, "A", dialog.Answer{Approved: true, For: time.Hour}},
		{"y with --approve-for", withFor, "y", dialog.Answer{Approved: true}},
		{"Enter alone with --approve-for", withFor, "", dialog.Answer{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := confirmAnswer(c.r, c.typed); !reflect.DeepEqual(got, c.want) {
				t.Errorf("confirmAnswer(%q) = %+v, want %+v", c.typed, got, c.want)
			}
		})
	}
}

// Every key of a confirmation, through the question as the prompt drives
// it: a line, then Enter; Ctrl-C and Ctrl-D end it at once.
func TestConfirmKeys(t *testing.T) {
	cases := []struct {
		keys           string
		defaultApprove bool
		approved       bool
		done           bool
	}{
		{"y\r", false, true, true},
		{"Y\r", false, true, true},
		{"yes\r", false, true, true},
		{"n\r", false, false, true},
		{"\r", false, false, true},
		{"\r", true, true, true},
		{"n\r", true, false, true},
		{"\x03", false, false, true},
		{"\x03", true, false, true},
		{"\x04", true, false, true},
		{"y\x03", false, false, true},
		{"x\r", false, false, true},
		{"n\x7fy\r", false, true, true},
		{"y\x7fn\r", false, false, true},
		{"y\x15\r", true, true, true},
		{"y\x1b[D\r", false, true, true},
		{"y", false, false, false},
	}
	for _, c := range cases {
		r := confirmRequest()
		r.DefaultApprove = c.defaultApprove
		ans, done := drive(newQuestion(r), c.keys)
		if done != c.done || ans.Approved != c.approved {
			t.Errorf("keys %q (default approve %v): approved %v done %v, want %v %v", c.keys, c.defaultApprove, ans.Approved, done, c.approved, c.done)
		}
	}
}

// drive feeds keys to q until it is answered.
func drive(q *question, keys string) (dialog.Answer, bool) {
	var d decoder
	for _, k := range d.feed([]byte(keys)) {
		if ans, done := q.key(k); done {
			return ans, true
		}
	}
	return dialog.Answer{}, false
}

func TestParseChoice(t *testing.T) {
	cases := []struct {
		typed    string
		n        int
		multiple bool
		want     []int
		note     string
	}{
		{"1", 3, false, []int{0}, ""},
		{" 3 ", 3, false, []int{2}, ""},
		{"0", 3, false, nil, `"0" is not one of 1-3`},
		{"4", 3, false, nil, `"4" is not one of 1-3`},
		{"-1", 3, false, nil, `"-1" is not one of 1-3`},
		{"+1", 3, false, nil, `"+1" is not one of 1-3`},
		{"x", 3, false, nil, `"x" is not one of 1-3`},
		{"1.5", 3, false, nil, "is not one of"},
		{"１", 3, false, nil, "is not one of"}, // a full-width digit
		{"99999999999999999999", 3, false, nil, "is not one of"},
		{"1 2", 3, false, nil, "Pick only one"},
		{"2,2", 3, false, []int{1}, ""},
		{"1 2", 3, true, []int{0, 1}, ""},
		{"3,1", 3, true, []int{0, 2}, ""},
		{"3, 1 ,2", 3, true, []int{0, 1, 2}, ""},
		{"1 1 1", 3, true, []int{0}, ""},
		{"1 4", 3, true, nil, `"4" is not one of 1-3`},
		{",", 3, true, nil, "is not one of"},
		{"12", 12, false, []int{11}, ""},
	}
	for _, c := range cases {
		got, note := parseChoice(c.typed, c.n, c.multiple)
		if !reflect.DeepEqual(got, c.want) || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("parseChoice(%q, %d, %v) = %v, %q; want %v, %q", c.typed, c.n, c.multiple, got, note, c.want, c.note)
		}
	}
}

// A choice reads option numbers; an entry that answers nothing says why
// and the person types again.
func TestChooseKeys(t *testing.T) {
	withDefault := chooseRequest()
	withDefault.Selected = []string{"production"}
	multiple := chooseRequest()
	multiple.Multiple = true
	multipleDefaults := chooseRequest()
	multipleDefaults.Multiple, multipleDefaults.Selected = true, []string{"canary", "staging"}
	other := chooseRequest()
	other.Other = true
	otherMultiple := chooseRequest()
	otherMultiple.Other, otherMultiple.Multiple = true, true
	cases := []struct {
		name string
		r    dialog.Request
		keys string
		want dialog.Answer
		done bool
		note string
	}{
		{"a number", chooseRequest(), "2\r", dialog.Answer{Approved: true, Values: []string{"production"}}, true, ""},
		{"a number after a wrong one", chooseRequest(), "7\r1\r", dialog.Answer{Approved: true, Values: []string{"staging"}}, true, ""},
		{"a wrong number waits", chooseRequest(), "7\r", dialog.Answer{}, false, `"7" is not one of 1-3`},
		{"Enter alone without a default waits", chooseRequest(), "\r", dialog.Answer{}, false, "Type a number, or Ctrl-C for Cancel"},
		{"Enter alone takes the default", withDefault, "\r", dialog.Answer{Approved: true, Values: []string{"production"}}, true, ""},
		{"a number over the default", withDefault, "3\r", dialog.Answer{Approved: true, Values: []string{"canary"}}, true, ""},
		{"two numbers for one choice wait", chooseRequest(), "1 2\r", dialog.Answer{}, false, "Pick only one"},
		{"several numbers, in the options' order", multiple, "3 1\r", dialog.Answer{Approved: true, Values: []string{"staging", "canary"}}, true, ""},
		{"Enter alone takes the defaults, in the options' order", multipleDefaults, "\r", dialog.Answer{Approved: true, Values: []string{"staging", "canary"}}, true, ""},
		{"Ctrl-C cancels", chooseRequest(), "2\x03", dialog.Answer{}, true, ""},
		{"Ctrl-D cancels after a wrong entry", chooseRequest(), "9\r\x04", dialog.Answer{}, true, ""},
		{"Other asks for text", other, "4\rmy own\r", dialog.Answer{Approved: true, Values: []string{"my own"}, Typed: true}, true, ""},
		{"an empty text of one's own is no answer, as in the dialog", other, "4\r\r", dialog.Answer{}, true, ""},
		{"a text of one's own that is a label is that option", otherMultiple, "4 2\rstaging\r", dialog.Answer{Approved: true, Values: []string{"staging", "production"}}, true, ""},
		{"an invisible character in one's own text is refused on the line", other, "4\ra\u200bb\r", dialog.Answer{}, false, "U+200B"},
		{"Other with labels puts the text last", otherMultiple, "4 2\rmine\r", dialog.Answer{Approved: true, Values: []string{"production", "mine"}, Typed: true}, true, ""},
		{"Ctrl-C in Other's text cancels the choice", other, "4\rmi\x03", dialog.Answer{}, true, ""},
		{"the number of Other does not exist without --other", chooseRequest(), "4\r", dialog.Answer{}, false, `"4" is not one of 1-3`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := newQuestion(c.r)
			ans, done := drive(q, c.keys)
			if done != c.done || !reflect.DeepEqual(ans, c.want) {
				t.Fatalf("answer %+v done %v, want %+v done %v", ans, done, c.want, c.done)
			}
			if !strings.Contains(q.note, c.note) || (c.note == "" && q.note != "") {
				t.Errorf("note %q, want %q", q.note, c.note)
			}
			if !done && len(q.typed) != 0 {
				t.Errorf("after a wrong entry the line still holds %q", string(q.typed))
			}
		})
	}
}

// An input reads one line, starting from its default, with Backspace and
// Ctrl-U to edit it; keys that are not text never reach the answer.
func TestInputLineEditing(t *testing.T) {
	withDefault := inputRequest()
	withDefault.Text = "v2.0"
	cases := []struct {
		name string
		r    dialog.Request
		keys string
		want dialog.Answer
		done bool
	}{
		{"a line", inputRequest(), "v2.1\r", dialog.Answer{Approved: true, Values: []string{"v2.1"}}, true},
		{"Enter alone is an empty answer", inputRequest(), "\r", dialog.Answer{Approved: true, Values: []string{""}}, true},
		{"Enter alone takes the default", withDefault, "\r", dialog.Answer{Approved: true, Values: []string{"v2.0"}}, true},
		{"Backspace edits the default", withDefault, "\x7f1\r", dialog.Answer{Approved: true, Values: []string{"v2.1"}}, true},
		{"Backspace on an empty line does nothing", inputRequest(), "\x7f\x7fa\r", dialog.Answer{Approved: true, Values: []string{"a"}}, true},
		{"Backspace removes a whole character", inputRequest(), "café\x7f\r", dialog.Answer{Approved: true, Values: []string{"caf"}}, true},
		{"Ctrl-U clears the default", withDefault, "\x15v3\r", dialog.Answer{Approved: true, Values: []string{"v3"}}, true},
		{"arrow keys are ignored", withDefault, "\x1b[D\x1b[D1\r", dialog.Answer{Approved: true, Values: []string{"v2.01"}}, true},
		{"tab is ignored", inputRequest(), "a\tb\r", dialog.Answer{Approved: true, Values: []string{"ab"}}, true},
		{"spaces are kept", inputRequest(), " a b \r", dialog.Answer{Approved: true, Values: []string{" a b "}}, true},
		{"Ctrl-C cancels", withDefault, "x\x03", dialog.Answer{}, true},
		{"Ctrl-D cancels", inputRequest(), "x\x04", dialog.Answer{}, true},
		{"no Enter, no answer", inputRequest(), "abc", dialog.Answer{}, false},
		// Refused on the line and typed again: recorded, it would fail.
		{"a soft hyphen is refused, then a line answers", inputRequest(), "ab\u00adcd\rabcd\r", dialog.Answer{Approved: true, Values: []string{"abcd"}}, true},
		{"a zero-width space waits", inputRequest(), "a\u200bb\r", dialog.Answer{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans, done := drive(newQuestion(c.r), c.keys)
			if done != c.done || !reflect.DeepEqual(ans, c.want) {
				t.Errorf("answer %+v done %v, want %+v done %v", ans, done, c.want, c.done)
			}
		})
	}
}

// Text typed past an input's limit is not taken silently: the line says
// so as it happens, its Enter answers nothing and says why, and the text
// kept is valid UTF-8 within the limit. Text that fits exactly answers.
func TestInputOverTheLimitIsRefused(t *testing.T) {
	q := newQuestion(inputRequest())
	drive(q, strings.Repeat("é", dialog.MaxTextBytes/2+1))
	if len(string(q.typed)) != dialog.MaxTextBytes || !strings.Contains(q.note, "4096 bytes fit") {
		t.Fatalf("%d bytes kept, note %q", len(string(q.typed)), q.note)
	}
	ans, done := drive(q, "\r")
	if done || ans.Approved || len(q.typed) != 0 || !strings.Contains(q.note, "over 4096 bytes") {
		t.Fatalf("Enter after text past the limit: %+v done %v, %d typed, note %q", ans, done, len(q.typed), q.note)
	}
	ans, done = drive(q, "short\r")
	if !done || !reflect.DeepEqual(ans.Values, []string{"short"}) {
		t.Fatalf("the next line: %+v done %v", ans, done)
	}

	q = newQuestion(inputRequest())
	ans, done = drive(q, strings.Repeat("é", dialog.MaxTextBytes/2)+"\r")
	if !done || len(ans.Values) != 1 || len(ans.Values[0]) != dialog.MaxTextBytes {
		t.Fatalf("text of exactly the limit: %+v done %v", ans, done)
	}
}

// A confirmation's line longer than it holds is no y: "y", spaces, then
// "no" would otherwise be cut to "y" and approve. A choice's is refused:
// a pasted "12" cut to "1" would pick another option.
func TestLineOverTheLimitIsNotTakenAsItShows(t *testing.T) {
	q := newQuestion(confirmRequest())
	ans, done := drive(q, "y"+strings.Repeat(" ", maxConfirmRunes)+"no\r")
	if !done || ans.Approved {
		t.Fatalf("y, %d spaces and no: %+v done %v; want a denial", maxConfirmRunes, ans, done)
	}

	r := chooseRequest()
	for i := 4; i <= dialog.MaxOptions; i++ {
		r.Options = append(r.Options, dialog.Option{Label: fmt.Sprintf("o%d", i)})
	}
	r.Multiple = true
	q = newQuestion(r)
	ans, done = drive(q, strings.Repeat(" ", maxChooseRunes-1)+"12\r")
	if done || ans.Approved || !strings.Contains(q.note, "answers nothing") {
		t.Fatalf("a choice cut from 12 to 1: %+v done %v, note %q", ans, done, q.note)
	}
}
