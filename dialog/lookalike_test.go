package dialog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Two buttons a person cannot tell apart are refused, however the caller
// spelled them; two that a person can are kept. Before, "Approve" beside
// "Approve\u200b" or "Approve " was accepted: two Approve buttons, one of
// which cancels.
func TestValidateRefusesLabelsThatReadTheSame(t *testing.T) {
	for _, c := range []struct {
		name, ok, cancel string
		field, reason    string
	}{
		{"zero-width space", "Approve", "Approve\u200b", "--cancel-label", "invisible character U+200B"},
		{"word joiner inside", "Approve", "App\u2060rove", "--cancel-label", "invisible character U+2060"},
		{"byte order mark", "\ufeffApprove", "Approve", "--ok-label", "invisible character U+FEFF"},
		{"trailing space", "Approve", "Approve ", "--cancel-label", "reads the same as --ok-label"},
		{"leading no-break space", "Approve", "\u00a0Approve", "--cancel-label", "reads the same as --ok-label"},
		{"ideographic space between", "Go on", "Go\u3000on", "--cancel-label", "reads the same as --ok-label"},
		{"two spaces for one", "Go on", "Go  on", "--cancel-label", "reads the same as --ok-label"},
		{"Hangul filler", "Approve", "Approve\u3164", "--cancel-label", "invisible character U+3164"},
		{"variation selector", "Approve", "Approve\ufe0f", "--cancel-label", "reads the same as --ok-label"},
		{"Cyrillic look-alikes", "Approve", "\u0410pp\u0433\u043ev\u0435", "--cancel-label", "reads the same as --ok-label"},
		{"Greek omicron", "OK", "\u039fK", "--cancel-label", "reads the same as --ok-label"},
		{"full-width letters", "Approve", "\uff21\uff50\uff50\uff52\uff4f\uff56\uff45", "--cancel-label", "reads the same as --ok-label"},
		{"decomposed accent", "Caf\u00e9", "Cafe\u0301", "--cancel-label", "reads the same as --ok-label"},
		{"ligature", "Confirm fix", "Confirm \ufb01x", "--cancel-label", "reads the same as --ok-label"},
		{"digit one for ell", "Allow", "A1low", "--cancel-label", "reads the same as --ok-label"},
		// A dot above on an i is drawn as the i's own dot, on a dotless i
		// as the dot it lacks. Before, both were told from "Confirm".
		{"i with a dot above", "Confirm", "Confi\u0307rm", "--cancel-label", "reads the same as --ok-label"},
		{"dotless i with a dot above", "Confirm", "Conf\u0131\u0307rm", "--cancel-label", "reads the same as --ok-label"},
		{"i with a dot below, then above", "Commi\u0323t", "Commi\u0323\u0307t", "--cancel-label", "reads the same as --ok-label"},
		{"dotted i beside dotless i and dot", "Commi\u0307t", "Comm\u0131\u0307t", "--cancel-label", "reads the same as --ok-label"},
		{"j with a dot above", "Adjust", "Adj\u0307ust", "--cancel-label", "reads the same as --ok-label"},
		{"Cyrillic i with a dot above", "Commit", "Comm\u0456\u0307t", "--cancel-label", "reads the same as --ok-label"},
		{"blank musical notehead", "Approve", "Approve\U0001D159", "--cancel-label", "invisible character U+1D159"},
		{"Khitan filler", "Approve", "Appro\U00016FE4ve", "--cancel-label", "invisible character U+16FE4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := validRequest()
			r.OKLabel, r.CancelLabel = c.ok, c.cancel
			expectInvalid(t, r.Validate(), c.field, c.reason)
		})
	}
	for _, c := range []struct{ name, ok, cancel string }{
		{"different words", "Approve", "Cancel"},
		{"case", "Send", "send"},
		{"emoji with a joiner", "\U0001F468\u200d\U0001F4BB Deploy", "Cancel"},
		{"accented and plain", "R\u00e9sum\u00e9", "Resume"},
		{"i with an acute, which has no dot of its own", "Commi\u0301t", "Commit"},
		{"a dot above a letter without one", "Pull", "Pu\u0307ll"},
		{"two dots above an i", "Commit", "Commi\u0307\u0307t"},
	} {
		t.Run("accepts "+c.name, func(t *testing.T) {
			r := validRequest()
			r.OKLabel, r.CancelLabel = c.ok, c.cancel
			if err := r.Validate(); err != nil {
				t.Fatalf("Validate(%q, %q) = %v, want nil", c.ok, c.cancel, err)
			}
		})
	}
}

// A message or a label that shows nothing is refused, as an empty one is.
func TestValidateRefusesBlankLookingText(t *testing.T) {
	for _, c := range []struct{ name, field, text string }{
		{"zero-width space message", "--message", "\u200b"},
		{"invisible and spaces message", "--message", " \u200b\u2060\n\u3164\ufeff "},
		{"braille blank message", "--message", "\u2800\u2800"},
		{"Hangul filler label", "--ok-label", "\u3164"},
		{"zero-width label", "--cancel-label", "\u200b\u200c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := validRequest()
			switch c.field {
			case "--message":
				r.Message = c.text
			case "--ok-label":
				r.OKLabel = c.text
			case "--cancel-label":
				r.CancelLabel = c.text
			}
			expectInvalid(t, r.Validate(), c.field, "shows nothing")
		})
	}
	r := validRequest()
	r.Message = "\u200bShip v2?"
	if err := r.Validate(); err != nil {
		t.Errorf("a message with visible text beside an invisible character: %v, want nil", err)
	}
}

func expectInvalid(t *testing.T, err error, field, reason string) {
	t.Helper()
	ie, ok := err.(*InvalidError)
	if !ok || ie.Field != field || !strings.Contains(ie.Reason, reason) {
		t.Fatalf("Validate() = %v, want %s: ...%s...", err, field, reason)
	}
}

func TestSeenAs(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		" \u200b\u00a0":       "",
		"Approve":             "Approve",
		"  Go \t on ":         "Go on",
		"\uff21pprove\u200b":  "Approve",
		"\u0410pprove\ufe0e":  "Approve",
		"Cafe\u0301":          SeenAs("Caf\u00e9"),
		"A1low":               SeenAs("Allow"),
		"rn":                  SeenAs("m"),
		"Approve\u3164\u2800": "Approve",
		"Confi\u0307rm":       SeenAs("Confirm"),
		"Conf\u0131\u0307rm":  SeenAs("Confirm"),
		"\u0130":              SeenAs("I\u0307"),
		"Approve\U0001D159":   "Approve",
		"Appro\U00016FE4ve":   "Approve",
		"Approve\u034f\u17b4": "Approve",
	} {
		if got := SeenAs(in); got != want {
			t.Errorf("SeenAs(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSeenAs checks SeenAs's promises on any text: what a person cannot
// see around or inside a label (invisible characters, more or other
// spaces, a compatibility form) never changes what it reads as; blank
// text reads as nothing; and Validate never accepts two buttons that
// read the same.
func FuzzSeenAs(f *testing.F) {
	for _, s := range []string{"Approve", "Go on", "Caf\u00e9", "\u0410pprove", "", " ", "\u200b", "rn", "\U0001F468\u200d\U0001F4BB", "Conf\u0131\u0307rm", "i\u0323\u0307"} {
		f.Add(s, "Cancel")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) {
			return
		}
		seen := SeenAs(a)
		for _, disguised := range []string{a + "\u200b", "\ufeff" + a, " " + a + "\u00a0", a + "\u3164", a + "\U0001D159", "\U00016FE4" + a} {
			if got := SeenAs(disguised); got != seen {
				t.Fatalf("SeenAs(%q) = %q, but SeenAs(%q) = %q", disguised, got, a, seen)
			}
		}
		if looksBlank(a) != (seen == "") {
			t.Fatalf("looksBlank(%q) = %v, but SeenAs is %q", a, looksBlank(a), seen)
		}
		r := validRequest()
		r.OKLabel, r.CancelLabel = a, b
		if r.Validate() == nil && SeenAs(a) == SeenAs(b) {
			t.Fatalf("Validate accepted buttons %q and %q, which read the same", a, b)
		}
	})
}
