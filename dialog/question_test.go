package dialog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// chooseRequest is the choice every choose case starts from: each case
// changes one thing, so a failure names that thing.
func chooseRequest() Request {
	return Request{
		Title:       "Deploy",
		Message:     "Deploy to?",
		OKLabel:     "OK",
		CancelLabel: "Cancel",
		Scope:       "/home/user/repo",
		Kind:        Choose,
		Options: []Option{
			{Label: "staging", Description: "the staging cluster"},
			{Label: "production"},
		},
	}
}

// inputRequest is the input every input case starts from.
func inputRequest() Request {
	return Request{
		Title:       "Release",
		Message:     "Name of the release?",
		OKLabel:     "OK",
		CancelLabel: "Cancel",
		Scope:       "/home/user/repo",
		Kind:        Input,
		Text:        "v2.0.0",
	}
}

// labels makes options without descriptions.
func labels(ls ...string) []Option {
	opts := make([]Option, len(ls))
	for i, l := range ls {
		opts[i] = Option{Label: l}
	}
	return opts
}

// numbered makes n options "o1", "o2", ...
func numbered(n int) []Option {
	opts := make([]Option, n)
	for i := range opts {
		opts[i] = Option{Label: fmt.Sprintf("o%d", i+1)}
	}
	return opts
}

func TestValidateAcceptsQuestions(t *testing.T) {
	tests := []struct {
		name string
		base func() Request
		edit func(r *Request)
	}{
		{"choice as given", chooseRequest, func(r *Request) {}},
		{"two options without descriptions", chooseRequest, func(r *Request) { r.Options = labels("a", "b") }},
		{"exactly MaxOptions options", chooseRequest, func(r *Request) { r.Options = numbered(MaxOptions) }},
		{"label of exactly MaxOptionBytes", chooseRequest, func(r *Request) {
			r.Options[1].Label = strings.Repeat("l", MaxOptionBytes)
		}},
		{"label of exactly MaxOptionBytes in two-byte runes", chooseRequest, func(r *Request) {
			r.Options[1].Label = strings.Repeat("é", MaxOptionBytes/2)
		}},
		{"description of exactly MaxDescriptionBytes", chooseRequest, func(r *Request) {
			r.Options[1].Description = strings.Repeat("d", MaxDescriptionBytes)
		}},
		{"descriptions on every option", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a", "first"}, {"b", "second"}, {"c", "third"}}
		}},
		{"'=' in a label, written '=='", chooseRequest, func(r *Request) {
			r.Options = []Option{ParseOption("a==b=c"), ParseOption("x")}
		}},
		{"a label that is only '='", chooseRequest, func(r *Request) { r.Options = []Option{ParseOption("=="), ParseOption("b")} }},
		{"'=' in a description", chooseRequest, func(r *Request) { r.Options = []Option{ParseOption("a=x=y"), ParseOption("b")} }},
		{"description starting with a dash", chooseRequest, func(r *Request) { r.Options[1].Description = "--force" }},
		{"label with a dash inside", chooseRequest, func(r *Request) { r.Options = labels("dry-run", "run-") }},
		{"label starting with a minus sign that is not '-'", chooseRequest, func(r *Request) { r.Options = labels("\u2212x", "\u2014y") }},
		{"labels differing only in case", chooseRequest, func(r *Request) { r.Options = labels("a", "A") }},
		{"labels with inner spaces", chooseRequest, func(r *Request) { r.Options = labels("the staging cluster", "a  b") }},
		{"unicode labels", chooseRequest, func(r *Request) { r.Options = labels("Déployer 🚀", "中文", "שלום") }},
		{"markup in labels is just text", chooseRequest, func(r *Request) { r.Options = labels("<b>a</b>", "a &amp; b") }},
		{"label the same as another's description", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a", "b"}, {"b", "a"}}
		}},
		{"one default", chooseRequest, func(r *Request) { r.Selected = []string{"production"} }},
		{"multiple without a default", chooseRequest, func(r *Request) { r.Multiple = true }},
		{"multiple with one default", chooseRequest, func(r *Request) { r.Multiple, r.Selected = true, []string{"staging"} }},
		{"multiple with every option a default", chooseRequest, func(r *Request) {
			r.Multiple, r.Selected = true, []string{"production", "staging"}
		}},
		{"default that is a label holding '='", chooseRequest, func(r *Request) {
			r.Options, r.Selected = []Option{ParseOption("a==b=c"), ParseOption("x")}, []string{"a=b"}
		}},

		{"input as given", inputRequest, func(r *Request) {}},
		{"input without a default", inputRequest, func(r *Request) { r.Text = "" }},
		{"input default of exactly MaxTextBytes", inputRequest, func(r *Request) { r.Text = strings.Repeat("t", MaxTextBytes) }},
		{"input default starting with a dash", inputRequest, func(r *Request) { r.Text = "-rf /" }},
		{"input default with spaces around it", inputRequest, func(r *Request) { r.Text = "  padded  " }},
		{"input default of spaces only", inputRequest, func(r *Request) { r.Text = "   " }},
		{"unicode input default", inputRequest, func(r *Request) { r.Text = "Livrer la v2 🚀" }},
		{"input default with '='", inputRequest, func(r *Request) { r.Text = "a=b" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.base()
			tt.edit(&r)
			if err := r.Validate(); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
		})
	}
}

// hostileQuestion is one request that must be refused, the field it must be
// refused for and a substring of the reason: what a person needs to find
// and fix the flag.
type hostileQuestion struct {
	name   string
	base   func() Request
	edit   func(r *Request)
	field  string
	reason string
}

func hostileQuestions() []hostileQuestion {
	long := func(n int) string { return strings.Repeat("x", n) }
	return []hostileQuestion{
		// Duplicates and look-alikes.
		{"duplicate options", chooseRequest, func(r *Request) { r.Options = labels("a", "b", "a") },
			"--option 3", `"a" is given twice`},
		{"duplicate options with different descriptions", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a", "one"}, {"a", "two"}}
		}, "--option 2", `"a" is given twice`},
		{"a label that reads as another option with its description", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a — b", ""}, {"a", "b"}}
		}, "--option 2", `"a — b" reads the same as another option`},
		{"an option with its description that reads as another label", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a", "b"}, {"a — b", ""}}
		}, "--option 2", `"a — b" reads the same as another option`},
		{"separator moved between label and description", chooseRequest, func(r *Request) {
			r.Options = []Option{{"a", "b — c"}, {"a — b", "c"}}
		}, "--option 2", "reads the same as another option"},

		// Empty, blank, over-long.
		{"empty label", chooseRequest, func(r *Request) { r.Options[1].Label = "" }, "--option 2", "must not be empty"},
		{"blank label", chooseRequest, func(r *Request) { r.Options[0].Label = "   " }, "--option 1", "must not be blank"},
		{"label of no-break spaces", chooseRequest, func(r *Request) { r.Options[0].Label = "\u00a0\u3000" }, "--option 1", "must not be blank"},
		{"empty label with a description", chooseRequest, func(r *Request) {
			r.Options = []Option{ParseOption("a"), ParseOption("=desc")}
		}, "--option 2", "must not be empty"},
		{"label over MaxOptionBytes", chooseRequest, func(r *Request) { r.Options[1].Label = long(MaxOptionBytes + 1) },
			"--option 2", "is 129 bytes; the limit is 128"},
		{"label over MaxOptionBytes by a split rune", chooseRequest, func(r *Request) {
			r.Options[1].Label = long(MaxOptionBytes-1) + "é"
		}, "--option 2", "the limit is 128"},
		{"description over MaxDescriptionBytes", chooseRequest, func(r *Request) {
			r.Options[0].Description = long(MaxDescriptionBytes + 1)
		}, "--option 1 description", "is 513 bytes; the limit is 512"},

		// One line, no flags.
		{"newline in a label", chooseRequest, func(r *Request) { r.Options[1].Label = "prod\nuction" }, "--option 2", "U+000A at offset 4"},
		{"trailing newline in a label", chooseRequest, func(r *Request) { r.Options[0].Label = "a\n" }, "--option 1", "U+000A"},
		{"carriage return in a label", chooseRequest, func(r *Request) { r.Options[1].Label = "safe\rrm -rf" }, "--option 2", "U+000D"},
		{"tab in a label", chooseRequest, func(r *Request) { r.Options[1].Label = "a\tb" }, "--option 2", "U+0009"},
		{"newline in a description", chooseRequest, func(r *Request) { r.Options[0].Description = "line\nline" },
			"--option 1 description", "U+000A at offset 4"},
		{"tab in a description", chooseRequest, func(r *Request) { r.Options[0].Description = "a\tb" },
			"--option 1 description", "U+0009"},
		{"label that looks like a short flag", chooseRequest, func(r *Request) { r.Options[1].Label = "-x" },
			"--option 2", `"-x" starts with '-', which the dialog program would read as a flag`},
		{"label that looks like a long flag", chooseRequest, func(r *Request) { r.Options[0].Label = "--help" },
			"--option 1", `"--help" starts with '-'`},
		{"label that looks like a flag with a value", chooseRequest, func(r *Request) { r.Options[0].Label = "--title=pwned" },
			"--option 1", "starts with '-'"},
		{"label that is a lone dash", chooseRequest, func(r *Request) { r.Options[1].Label = "-" }, "--option 2", "starts with '-'"},
		{"label that is a double dash", chooseRequest, func(r *Request) { r.Options[1].Label = "--" }, "--option 2", "starts with '-'"},
		{"flag-like label parsed with a description", chooseRequest, func(r *Request) {
			r.Options = []Option{ParseOption("-rf=remove everything"), ParseOption("b")}
		}, "--option 1", `"-rf" starts with '-'`},
		{"label with a leading space", chooseRequest, func(r *Request) { r.Options[1].Label = " production" },
			"--option 2", `" production" starts or ends with spaces, which a person cannot see`},
		{"label with a trailing space", chooseRequest, func(r *Request) { r.Options[1].Label = "production " },
			"--option 2", "starts or ends with spaces"},
		{"label with a trailing no-break space", chooseRequest, func(r *Request) { r.Options[1].Label = "production\u00a0" },
			"--option 2", "starts or ends with spaces"},
		{"label with a space before its description", chooseRequest, func(r *Request) {
			r.Options = []Option{ParseOption("a = b"), ParseOption("c")}
		}, "--option 1", `"a " starts or ends with spaces`},
		{"label that is the same as another once trimmed", chooseRequest, func(r *Request) { r.Options = labels("a", "a ") },
			"--option 2", "starts or ends with spaces"},

		// Counts.
		{"more than MaxOptions options", chooseRequest, func(r *Request) { r.Options = numbered(MaxOptions + 1) },
			"--option", "33 options are more than the 32"},
		{"far more than MaxOptions options", chooseRequest, func(r *Request) { r.Options = numbered(1000) },
			"--option", "1000 options are more than the 32"},
		{"one option", chooseRequest, func(r *Request) { r.Options = labels("only") },
			"--option", "a choice needs at least 2 options, it has 1"},
		{"no options", chooseRequest, func(r *Request) { r.Options = nil },
			"--option", "a choice needs at least 2 options, it has 0"},

		// Defaults.
		{"default that is not an option", chooseRequest, func(r *Request) { r.Selected = []string{"canary"} },
			"--default", `"canary" is not one of the options`},
		{"default in another case", chooseRequest, func(r *Request) { r.Selected = []string{"Staging"} },
			"--default", `"Staging" is not one of the options`},
		{"default written as label=description", chooseRequest, func(r *Request) {
			r.Selected = []string{"staging=the staging cluster"}
		}, "--default", "is not one of the options"},
		{"default written as the option is displayed", chooseRequest, func(r *Request) {
			r.Selected = []string{"staging — the staging cluster"}
		}, "--default", "is not one of the options"},
		{"empty default", chooseRequest, func(r *Request) { r.Selected = []string{""} },
			"--default", `"" is not one of the options`},
		{"default with a trailing space", chooseRequest, func(r *Request) { r.Selected = []string{"staging "} },
			"--default", "is not one of the options"},
		{"one good and one bad default with multiple", chooseRequest, func(r *Request) {
			r.Multiple, r.Selected = true, []string{"staging", "canary"}
		}, "--default", `"canary" is not one of the options`},
		{"several defaults without multiple", chooseRequest, func(r *Request) {
			r.Selected = []string{"staging", "production"}
		}, "--default", "names several options; only --multiple picks more than one"},
		{"default given twice without multiple", chooseRequest, func(r *Request) {
			r.Selected = []string{"staging", "staging"}
		}, "--default", "names several options"},
		{"default given twice with multiple", chooseRequest, func(r *Request) {
			r.Multiple, r.Selected = true, []string{"staging", "staging"}
		}, "--default", `"staging" is given twice`},
		{"text default on a choice", chooseRequest, func(r *Request) { r.Text = "staging" },
			"--default", "text belongs to ask-confirm input"},

		// What belongs to a confirmation.
		{"approve-for on a choice", chooseRequest, func(r *Request) { r.ApproveFor = time.Hour },
			"--approve-for", "belongs to a confirmation"},
		{"negative approve-for on a choice", chooseRequest, func(r *Request) { r.ApproveFor = -time.Hour },
			"--approve-for", "belongs to a confirmation"},
		{"icon on a choice", chooseRequest, func(r *Request) { r.Icon = "question" }, "--icon", "belongs to a confirmation"},
		{"default-approve on a choice", chooseRequest, func(r *Request) { r.DefaultApprove = true },
			"--default-approve", "belongs to a confirmation"},
		{"unknown kind", chooseRequest, func(r *Request) { r.Kind = "Choose" },
			"kind", `"Choose" is not one of confirm, choose, input`},
		{"kind spelt confirm", chooseRequest, func(r *Request) { r.Kind = "confirm" }, "kind", "is not one of"},
		{"empty message on a choice", chooseRequest, func(r *Request) { r.Message = "" }, "--message", "must not be empty"},
		{"equal buttons on a choice", chooseRequest, func(r *Request) { r.OKLabel, r.CancelLabel = "OK", "OK" },
			"--ok-label", "must differ from --cancel-label"},

		// Input.
		{"newline in input default", inputRequest, func(r *Request) { r.Text = "v2\n.0" }, "--default", "U+000A at offset 2"},
		{"trailing newline in input default", inputRequest, func(r *Request) { r.Text = "v2\n" }, "--default", "U+000A"},
		{"carriage return in input default", inputRequest, func(r *Request) { r.Text = "v2\r" }, "--default", "U+000D"},
		{"tab in input default", inputRequest, func(r *Request) { r.Text = "a\tb" }, "--default", "U+0009"},
		{"input default over MaxTextBytes", inputRequest, func(r *Request) { r.Text = long(MaxTextBytes + 1) },
			"--default", "is 4097 bytes; the limit is 4096"},
		{"multiple on input", inputRequest, func(r *Request) { r.Multiple = true },
			// The command line has no --multiple on input: the flag
			// parser refuses it by name before Validate runs.
			"--multiple", "belongs to ask-confirm choose"},
		{"options on input", inputRequest, func(r *Request) { r.Options = labels("a", "b") },
			"--option", "belongs to ask-confirm choose"},
		{"selected labels on input", inputRequest, func(r *Request) { r.Selected = []string{"a"} },
			"--default", "belongs to ask-confirm choose"},
		{"approve-for on input", inputRequest, func(r *Request) { r.ApproveFor = time.Minute },
			"--approve-for", "belongs to a confirmation"},
		{"icon on input", inputRequest, func(r *Request) { r.Icon = "warning" }, "--icon", "belongs to a confirmation"},
		{"default-approve on input", inputRequest, func(r *Request) { r.DefaultApprove = true },
			"--default-approve", "belongs to a confirmation"},
		{"blank message on input", inputRequest, func(r *Request) { r.Message = " " }, "--message", "must not be blank"},

		// Confirm.
		{"options on a confirmation", validRequest, func(r *Request) { r.Options = labels("a", "b") },
			"--option", "belongs to ask-confirm choose"},
		{"multiple on a confirmation", validRequest, func(r *Request) { r.Multiple = true },
			"--multiple", "belongs to ask-confirm choose"},
		{"line separator in a label", chooseRequest, func(r *Request) { r.Options[0].Label = "a\u2028b" },
			"--option 1", "U+2028"},
		{"zero-width space makes a look-alike label", chooseRequest, func(r *Request) { r.Options[1].Label = r.Options[0].Label + "\u200b" },
			"--option 2", "U+200B"},
		{"byte order mark in a description", chooseRequest, func(r *Request) { r.Options[0].Description = "\ufeffx" },
			"--option 1 description", "U+FEFF"},
		{"paragraph separator in input default", inputRequest, func(r *Request) { r.Text = "a\u2029" }, "--default", "U+2029"},
		{"a label that fakes the default mark", chooseRequest, func(r *Request) { r.Options[0] = Option{Label: "b (default)"} },
			"--option 1", "marks the default option"},
		{"a description that fakes the default mark", chooseRequest, func(r *Request) { r.Options[0].Description = "x (default)" },
			"--option 1", "marks the default option"},
		{"text default on a confirmation", validRequest, func(r *Request) { r.Text = "x" },
			"--default", "text belongs to ask-confirm input"},
	}
}

// hostileTexts are the characters no label, description or input default
// may hold, with the reason each is refused.
var hostileTexts = []struct {
	name, s, reason string
}{
	{"invalid UTF-8", "ok \xff\xfe", "is not valid UTF-8"},
	{"a truncated rune", "caf\xc3", "is not valid UTF-8"},
	{"a surrogate half", "a\xed\xa0\x80b", "is not valid UTF-8"},
	{"an overlong encoding", "\xc0\xaf", "is not valid UTF-8"},
	{"NUL", "yes\x00no", "contains a NUL byte at offset 3"},
	{"an ANSI colour escape", "\x1b[31mred\x1b[0m", "contains control character U+001B at offset 0"},
	{"an ANSI title escape", "a\x1b]0;pwned\a", "U+001B at offset 1"},
	{"a lone ESC", "a\x1bb", "U+001B"},
	{"BEL", "ding\a", "U+0007"},
	{"backspace", "yes\b\b\bno", "U+0008"},
	{"vertical tab", "a\vb", "U+000B"},
	{"form feed", "a\fb", "U+000C"},
	{"unit separator", "a\x1fb", "U+001F"},
	{"DEL", "a\x7fb", "U+007F"},
	{"C1 NEL", "a\u0085b", "U+0085"},
	{"C1 CSI", "\u009b31m", "U+009B"},
	{"RLO override", "invoice\u202Efdp.exe", "contains bidirectional override U+202E at offset 7, which can disguise the text"},
	{"LRE embedding", "a\u202Ab", "bidirectional override U+202A"},
	{"PDF", "a\u202Cb", "bidirectional override U+202C"},
	{"LRI isolate", "a\u2066b\u2069", "bidirectional override U+2066"},
	{"PDI", "a\u2069", "bidirectional override U+2069"},
}

// Every hostile character in every place a choice or an input shows text:
// a label, a description, an input's default.
func hostileTextQuestions() []hostileQuestion {
	var cases []hostileQuestion
	for _, h := range hostileTexts {
		s, reason := h.s, h.reason
		cases = append(cases,
			hostileQuestion{h.name + " in a label", chooseRequest,
				func(r *Request) { r.Options[1].Label = "p" + s }, "--option 2", shift(reason, 1)},
			hostileQuestion{h.name + " in a description", chooseRequest,
				func(r *Request) { r.Options[0].Description = s }, "--option 1 description", reason},
			hostileQuestion{h.name + " in an input default", inputRequest,
				func(r *Request) { r.Text = s }, "--default", reason},
		)
	}
	return cases
}

// shift moves the offset that ends reason, if any, by n bytes.
func shift(reason string, n int) string {
	var off int
	before, after, ok := strings.Cut(reason, "at offset ")
	if !ok {
		return reason
	}
	num, rest, _ := strings.Cut(after, ",")
	if _, err := fmt.Sscanf(num, "%d", &off); err != nil {
		return reason
	}
	if rest != "" {
		rest = "," + rest
	}
	return fmt.Sprintf("%sat offset %d%s", before, off+n, rest)
}

func TestValidateRejectsHostileQuestions(t *testing.T) {
	for _, tt := range append(hostileQuestions(), hostileTextQuestions()...) {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.base()
			tt.edit(&r)
			err := r.Validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want an error about %s", tt.field)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
			var ie *InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate() = %T %v, want *InvalidError", err, err)
			}
			if ie.Field != tt.field {
				t.Errorf("Field = %q, want %q (reason %q)", ie.Field, tt.field, ie.Reason)
			}
			if !strings.Contains(ie.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", ie.Reason, tt.reason)
			}
			if want := ie.Field + ": " + ie.Reason; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			// The message names the offending character, never echoes it:
			// it goes to a terminal.
			for _, c := range err.Error() {
				if c < 0x20 || (c >= 0x7f && c < 0xa0) || isBidiOverride(c) {
					t.Errorf("Error() = %q contains U+%04X", err.Error(), c)
				}
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("Error() = %q is not valid UTF-8", err.Error())
			}
		})
	}
}

// The first bad option is the one reported, by its number, so a person
// can find it among many.
func TestValidateNamesTheFirstBadOption(t *testing.T) {
	r := chooseRequest()
	r.Options = numbered(MaxOptions)
	r.Options[16].Label = "-bad"
	r.Options[20].Label = ""
	var ie *InvalidError
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--option 17" {
		t.Fatalf("Validate() = %v, want an *InvalidError for --option 17", err)
	}
	// The text checks of a label come before the checks between options.
	r.Options = labels("a", "a", "b\nc")
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--option 2" || !strings.Contains(ie.Reason, "given twice") {
		t.Fatalf("Validate() = %v, want --option 2 given twice", err)
	}
	// The question's own texts are checked before its options.
	r = chooseRequest()
	r.Title = "a\nb"
	r.Options = nil
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--title" {
		t.Fatalf("Validate() = %v, want an *InvalidError for --title", err)
	}
	// Options are checked before the defaults that name them.
	r = chooseRequest()
	r.Options[1].Label = "-x"
	r.Selected = []string{"nope"}
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--option 2" {
		t.Fatalf("Validate() = %v, want an *InvalidError for --option 2", err)
	}
}

func TestParseOption(t *testing.T) {
	tests := []struct {
		in   string
		want Option
	}{
		{"", Option{}},
		{"a", Option{Label: "a"}},
		{"staging", Option{Label: "staging"}},
		{"a=b", Option{"a", "b"}},
		{"staging=the staging cluster", Option{"staging", "the staging cluster"}},
		{"a==b", Option{Label: "a=b"}},
		{"a==b=c", Option{"a=b", "c"}},
		{"=x", Option{"", "x"}},
		{"=", Option{}},
		{"a=", Option{Label: "a"}},
		{"a==", Option{Label: "a="}},
		{"a===", Option{Label: "a="}},
		{"a===b", Option{"a=", "b"}},
		{"==", Option{Label: "="}},
		{"===", Option{Label: "="}},
		{"====", Option{Label: "=="}},
		{"==a", Option{Label: "=a"}},
		{"a=b=c", Option{"a", "b=c"}},
		{"a=b==c", Option{"a", "b==c"}}, // a description is taken as it is
		{"a==b==c", Option{Label: "a=b=c"}},
		{"a = b", Option{"a ", " b"}},
		{"-x=y", Option{"-x", "y"}},
		{"é=ü", Option{"é", "ü"}},
		{"a — b", Option{Label: "a — b"}},
		{"\xff=\xfe", Option{"\xff", "\xfe"}},
		{"a\nb=c\nd", Option{"a\nb", "c\nd"}},
	}
	for _, tt := range tests {
		if got := ParseOption(tt.in); got != tt.want {
			t.Errorf("ParseOption(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// escapeOption is the command line's form of o, the inverse of ParseOption
// for every option whose description does not start with '=': the
// separator and that '=' would read as an escaped '=' in the label.
func escapeOption(o Option) string {
	s := strings.ReplaceAll(o.Label, "=", "==")
	if o.Description != "" {
		s += "=" + o.Description
	}
	return s
}

func TestParseOptionRoundTrip(t *testing.T) {
	for _, o := range []Option{
		{"a", ""}, {"a", "b"}, {"a=b", "c"}, {"=", ""}, {"==", "b="}, {"a=", "b=="},
		{"=a", ""}, {"a=", ""}, {"a b", "c d"}, {"é", "ü=ß"},
	} {
		if got := ParseOption(escapeOption(o)); got != o {
			t.Errorf("ParseOption(%q) = %#v, want %#v", escapeOption(o), got, o)
		}
	}
}

func TestOptionDisplay(t *testing.T) {
	tests := []struct {
		o    Option
		want string
	}{
		{Option{Label: "a"}, "a"},
		{Option{"a", "b"}, "a — b"},
		{Option{"staging", "the staging cluster"}, "staging — the staging cluster"},
		{Option{"a=b", "c"}, "a=b — c"},
		{ParseOption("a==b=c"), "a=b — c"},
		{Option{"a — b", ""}, "a — b"},
	}
	for _, tt := range tests {
		if got := tt.o.Display(); got != tt.want {
			t.Errorf("%#v.Display() = %q, want %q", tt.o, got, tt.want)
		}
	}
}

func TestLabels(t *testing.T) {
	r := chooseRequest()
	if got := strings.Join(r.Labels(), ","); got != "staging,production" {
		t.Errorf("Labels() = %q", got)
	}
	if got := (Request{}).Labels(); len(got) != 0 {
		t.Errorf("Labels() of no options = %q", got)
	}
}

func TestApproveForLabel(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "Approve for 1h"},
		{90 * time.Minute, "Approve for 1h30m"},
		{30 * time.Second, "Approve for 30s"},
		{15 * time.Minute, "Approve for 15m"},
		{MaxApproveFor, "Approve for 168h"},
		{time.Hour + 30*time.Second, "Approve for 1h0m30s"},
	}
	for _, tt := range tests {
		r := validRequest()
		r.ApproveFor = tt.d
		if got := r.ApproveForLabel(); got != tt.want {
			t.Errorf("ApproveFor %v: ApproveForLabel() = %q, want %q", tt.d, got, tt.want)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("ApproveFor %v: Validate() = %v", tt.d, err)
		}
	}
	// A third button that reads like one of the other two is refused.
	r := validRequest()
	r.ApproveFor, r.OKLabel = time.Hour, "Approve for 1h"
	var ie *InvalidError
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--approve-for" || !strings.Contains(ie.Reason, "would look like another button") {
		t.Errorf("Validate() = %v, want --approve-for would look like another button", err)
	}
}

// v1ConfirmHash is the content hash of a confirmation as identity format v1
// defined it before any other kind of question existed, written out here
// independently of identity.go: SHA-256 over each field as an 8-byte
// big-endian length and its bytes, in this order.
func v1ConfirmHash(r Request) string {
	defaultButton := "cancel"
	if r.DefaultApprove {
		defaultButton = "approve"
	}
	h := sha256.New()
	for _, f := range []string{"ask-confirm identity v1", "content", "question",
		r.Title, r.Message, r.OKLabel, r.CancelLabel, r.Icon, defaultButton, r.Scope} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// A confirmation hashes as it did before choices and inputs: records kept
// by released versions still match.
func TestConfirmHashUnchangedByQuestions(t *testing.T) {
	if got := v1ConfirmHash(validRequest()); got != goldenContentHash {
		t.Fatalf("the independent v1 hash of validRequest() = %s, want the pinned %s", got, goldenContentHash)
	}
	defaultApprove := validRequest()
	defaultApprove.DefaultApprove = true
	withOrigin := validRequest()
	withOrigin.Origin = "deploy.sh in ~/src/app"
	for _, r := range []Request{
		validRequest(), defaultApprove, withOrigin, {},
		{Message: "x", OKLabel: "Yes", CancelLabel: "No", Icon: "warning", Scope: "/"},
	} {
		if got, want := r.ContentHash(), v1ConfirmHash(r); got != want {
			t.Errorf("ContentHash() of %+v = %s, want the v1 hash %s", r, got, want)
		}
	}
}

func TestQuestionContentHash(t *testing.T) {
	base := chooseRequest()
	base.Options = []Option{{"a", ""}, {"b", "desc"}, {"c", ""}}
	tests := []struct {
		name string
		edit func(r *Request)
	}{
		{"options reordered", func(r *Request) { r.Options[0], r.Options[1] = r.Options[1], r.Options[0] }},
		{"options reversed", func(r *Request) {
			r.Options = []Option{r.Options[2], r.Options[1], r.Options[0]}
		}},
		{"an option added", func(r *Request) { r.Options = append(r.Options, Option{Label: "d"}) }},
		{"an option removed", func(r *Request) { r.Options = r.Options[:2] }},
		{"multiple", func(r *Request) { r.Multiple = true }},
		{"a default", func(r *Request) { r.Selected = []string{"a"} }},
		{"another default", func(r *Request) { r.Selected = []string{"b"} }},
		{"two defaults", func(r *Request) { r.Multiple, r.Selected = true, []string{"a", "b"} }},
		{"a description changed", func(r *Request) { r.Options[1].Description = "other" }},
		{"a description added", func(r *Request) { r.Options[0].Description = "new" }},
		{"a description removed", func(r *Request) { r.Options[1].Description = "" }},
		{"a label changed", func(r *Request) { r.Options[2].Label = "C" }},
		{"text moved from a description into its label", func(r *Request) {
			r.Options[1] = Option{"b — desc", ""}
		}},
		{"kind input", func(r *Request) { r.Kind = Input }},
		{"kind confirm", func(r *Request) { r.Kind = Confirm }},
		{"message", func(r *Request) { r.Message = "Deploy where?" }},
		{"scope", func(r *Request) { r.Scope = "/elsewhere" }},
	}
	seen := map[string]string{base.ContentHash(): "base"}
	for _, tt := range tests {
		r := base
		r.Options = append([]Option(nil), base.Options...)
		tt.edit(&r)
		h := r.ContentHash()
		if !hexSHA256.MatchString(h) {
			t.Errorf("%s: ContentHash() = %q, want 64 lowercase hex digits", tt.name, h)
		}
		if other, dup := seen[h]; dup {
			t.Errorf("%s gives the same ContentHash as %s", tt.name, other)
		}
		seen[h] = tt.name
		if r.Identity() != h {
			t.Errorf("%s: Identity() = %s, want ContentHash() %s", tt.name, r.Identity(), h)
		}
	}
	// The base's options were not changed under it by the cases.
	if base.Options[0].Label != "a" || base.Options[2].Label != "c" {
		t.Fatalf("base options changed: %+v", base.Options)
	}
}

func TestInputContentHash(t *testing.T) {
	base := inputRequest()
	seen := map[string]string{base.ContentHash(): "base"}
	for name, text := range map[string]string{
		"no default": "", "another default": "v2.0.1", "a default of a space": " ", "a trailing space": "v2.0.0 ",
	} {
		r := base
		r.Text = text
		h := r.ContentHash()
		if other, dup := seen[h]; dup {
			t.Errorf("%s gives the same ContentHash as %s", name, other)
		}
		seen[h] = name
	}
}

// Moving text between parts of a question always changes the hash: the
// parts are counted and length-prefixed.
func TestQuestionHashBoundaries(t *testing.T) {
	choice := func(edit func(r *Request)) Request {
		r := chooseRequest()
		r.Options = nil
		edit(&r)
		return r
	}
	pairs := []struct {
		name string
		a, b Request
	}{
		{"label split moved", choice(func(r *Request) { r.Options = labels("a", "bc") }),
			choice(func(r *Request) { r.Options = labels("ab", "c") })},
		{"label and description split moved", choice(func(r *Request) { r.Options = []Option{{"ab", "c"}, {"d", ""}} }),
			choice(func(r *Request) { r.Options = []Option{{"a", "bc"}, {"d", ""}} })},
		{"description moved to the next label", choice(func(r *Request) { r.Options = []Option{{"a", "b"}, {"c", ""}} }),
			choice(func(r *Request) { r.Options = []Option{{"a", ""}, {"b", "c"}} })},
		{"an option passing for a description", choice(func(r *Request) { r.Options = []Option{{"a", "b"}} }),
			choice(func(r *Request) { r.Options = labels("a", "b") })},
		{"an option passing for the multiple marker and a default", choice(func(r *Request) {
			r.Options = []Option{{"a", ""}, {"one", "selected"}}
		}), choice(func(r *Request) {
			r.Options, r.Selected = labels("a"), []string{"x"}
		})},
		{"a default passing for an option", choice(func(r *Request) {
			r.Options, r.Selected = labels("a", "b"), []string{"a"}
		}), choice(func(r *Request) {
			r.Options = []Option{{"a", ""}, {"b", "one"}}
		})},
		{"a default passing for the text", choice(func(r *Request) {
			r.Options, r.Selected = labels("a", "b"), []string{"text"}
		}), choice(func(r *Request) {
			r.Options, r.Text = labels("a", "b"), "text"
		})},
		{"different defaults", choice(func(r *Request) {
			r.Options, r.Multiple, r.Selected = labels("a", "b"), true, []string{"a"}
		}), choice(func(r *Request) {
			r.Options, r.Multiple, r.Selected = labels("a", "b"), true, []string{"b"}
		})},
		{"no options and one empty option", choice(func(r *Request) {}),
			choice(func(r *Request) { r.Options = []Option{{}} })},
		{"a choice and an input with the same texts", choice(func(r *Request) {}),
			func() Request { r := choice(func(r *Request) {}); r.Kind = Input; return r }()},
	}
	for _, p := range pairs {
		if p.a.ContentHash() == p.b.ContentHash() {
			t.Errorf("%s: %+v and %+v have the same ContentHash", p.name, p.a, p.b)
		}
	}
}

// The options picked in advance, named in another order, show the same
// dialog: the same question.
func TestDefaultsInAnyOrderAreOneQuestion(t *testing.T) {
	a, b := chooseRequest(), chooseRequest()
	a.Multiple, b.Multiple = true, true
	a.Selected, b.Selected = []string{"staging", "production"}, []string{"production", "staging"}
	if a.ContentHash() != b.ContentHash() {
		t.Fatal("the same defaults in another order make another question")
	}
}

// The same question asked from another process is the same request, of
// any kind.
func TestQuestionOriginKeepsIdentity(t *testing.T) {
	for _, r := range []Request{chooseRequest(), inputRequest(), validRequest()} {
		h, id := r.ContentHash(), r.Identity()
		r.Origin = "deploy.sh in ~/src/app"
		if r.ContentHash() != h || r.Identity() != id {
			t.Errorf("kind %q: the origin changed the hash", r.Kind)
		}
	}
}

// With a key the key alone is the identity, whatever the options.
func TestQuestionKeyIsTheIdentity(t *testing.T) {
	a := chooseRequest()
	a.Key = "deploy-target"
	b := a
	b.Options = labels("x", "y")
	if a.Identity() != b.Identity() {
		t.Errorf("same key, different options: identities differ")
	}
	if a.ContentHash() == b.ContentHash() {
		t.Errorf("different options under one key have the same ContentHash")
	}
}

// Typed text is an answer only as one visible line.
func TestCheckAnswer(t *testing.T) {
	for _, ok := range []string{"", "v2.1", "héllo wörld", "a\u200db", strings.Repeat("x", MaxTextBytes)} {
		if err := CheckAnswer(ok); err != nil {
			t.Errorf("CheckAnswer(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"a\nb", "a\tb", "\x1b[31mred", "a\rb", "\x00", "a\u2028b", "a\u200bb", "\xff", strings.Repeat("x", MaxTextBytes+1)} {
		if err := CheckAnswer(bad); err == nil {
			t.Errorf("CheckAnswer(%q) accepted it", bad)
		}
	}
}

// An answer of one's own that is an option's label is that option.
func TestWithOwn(t *testing.T) {
	r := chooseRequest()
	r.Other, r.Multiple = true, true
	if got := r.WithOwn(Answer{Approved: true}, "canary"); !reflect.DeepEqual(got.Values, []string{"canary"}) || !got.Typed {
		t.Errorf("own text: %+v", got)
	}
	if got := r.WithOwn(Answer{Approved: true, Values: []string{"production"}}, "staging"); !reflect.DeepEqual(got.Values, []string{"staging", "production"}) || got.Typed {
		t.Errorf("a label typed: %+v", got)
	}
	if got := r.WithOwn(Answer{Approved: true, Values: []string{"staging"}}, "staging"); !reflect.DeepEqual(got.Values, []string{"staging"}) || got.Typed {
		t.Errorf("a label typed and picked: %+v", got)
	}
}

// A refused --approve-for says the range a person may give, which starts
// at 1s (0s adds no button): "outside 0 to 168h0m0s" once sent a person
// who gave 500ms or 169h looking for a range that does not exist.
func TestApproveForRangeSaid(t *testing.T) {
	for _, d := range []time.Duration{-time.Second, 500 * time.Millisecond, MaxApproveFor + time.Hour} {
		r := validRequest()
		r.ApproveFor = d
		var ie *InvalidError
		want := ShortDuration(d) + " is outside 1s to 168h"
		if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--approve-for" || !strings.HasPrefix(ie.Reason, want) {
			t.Errorf("ApproveFor %v: Validate() = %v, want --approve-for: %s", d, err, want)
		}
	}
	for _, d := range []time.Duration{0, MinApproveFor, MaxApproveFor} {
		r := validRequest()
		r.ApproveFor = d
		if err := r.Validate(); err != nil {
			t.Errorf("ApproveFor %v: Validate() = %v", d, err)
		}
	}
}
