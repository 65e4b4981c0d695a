package dialog

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzValidate checks that Validate never panics and that whatever it accepts
// is safe to put on screen: valid UTF-8, no NUL or other control characters
// (newlines and tabs in the message only), no bidirectional overrides, within
// the limits, with two distinct non-blank labels and a known icon.
func FuzzValidate(f *testing.F) {
	add := func(r Request) {
		f.Add(r.Title, r.Message, r.OKLabel, r.CancelLabel, r.Icon, r.DefaultApprove, r.Scope, r.Key)
	}
	add(validRequest())
	add(Request{})
	add(Request{Message: "-rf", OKLabel: "OK", CancelLabel: "OK", Icon: "question"})
	add(Request{Title: "a\nb", Message: "m\n\tx", OKLabel: "y", CancelLabel: "n", Icon: "none"})
	add(Request{Message: "\x1b[31mred\x1b[0m", OKLabel: "y", CancelLabel: "n", Icon: "info"})
	add(Request{Message: "invoice\u202Efdp.exe", OKLabel: "y", CancelLabel: "n", Icon: "error"})
	add(Request{Message: "a\u2066b", OKLabel: "y", CancelLabel: "n", Icon: "warning"})
	add(Request{Message: "x\x00y", OKLabel: "y", CancelLabel: "n", Icon: "question", Scope: "/\x00"})
	add(Request{Message: "\xff\xfe", OKLabel: "\xc3", CancelLabel: "n", Icon: "question"})
	add(Request{Message: "a\u0085b\x7f", OKLabel: "y", CancelLabel: "n", Icon: "question"})
	add(Request{Message: `<span foreground="red">x</span>`, OKLabel: "<b>y</b>", CancelLabel: "n", Icon: "question"})
	add(Request{Title: strings.Repeat("t", MaxTitleBytes), Message: "m", OKLabel: "y", CancelLabel: "n", Icon: "question"})
	add(Request{Title: strings.Repeat("t", MaxTitleBytes+1), Message: "m", OKLabel: "y", CancelLabel: "n", Icon: "question"})
	add(Request{Message: "m", OKLabel: " ", CancelLabel: "\u00a0", Icon: "question", Key: "\r"})
	add(Request{Message: "m", OKLabel: "y", CancelLabel: "n", Icon: "question", DefaultApprove: true, Key: strings.Repeat("k", MaxKeyBytes+1)})

	f.Fuzz(func(t *testing.T, title, message, ok, cancel, icon string, defaultApprove bool, scope, key string) {
		r := Request{
			Title: title, Message: message, OKLabel: ok, CancelLabel: cancel,
			Icon: icon, DefaultApprove: defaultApprove, Scope: scope, Key: key,
		}
		err := r.Validate()
		if again := r.Validate(); (err == nil) != (again == nil) {
			t.Fatalf("Validate is not deterministic: %v then %v", err, again)
		}
		if err != nil {
			var ie *InvalidError
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &ie) {
				t.Fatalf("Validate() = %T %v, want an *InvalidError wrapping ErrInvalid", err, err)
			}
			switch ie.Field {
			case "--title", "--message", "--ok-label", "--cancel-label", "--icon", "--key", "--scope":
			default:
				t.Fatalf("Field = %q, not a known flag", ie.Field)
			}
			if ie.Reason == "" {
				t.Fatalf("empty Reason for %s", ie.Field)
			}
			return
		}

		texts := []struct {
			field, s  string
			max       int
			multiline bool
		}{
			{"title", title, MaxTitleBytes, false},
			{"message", message, MaxMessageBytes, true},
			{"ok", ok, MaxLabelBytes, false},
			{"cancel", cancel, MaxLabelBytes, false},
			{"scope", scope, MaxScopeBytes, false},
			{"key", key, MaxKeyBytes, false},
		}
		for _, x := range texts {
			if !utf8.ValidString(x.s) {
				t.Fatalf("accepted invalid UTF-8 in %s: %q", x.field, x.s)
			}
			if strings.IndexByte(x.s, 0) >= 0 {
				t.Fatalf("accepted NUL in %s: %q", x.field, x.s)
			}
			if len(x.s) > x.max {
				t.Fatalf("accepted %s of %d bytes, limit %d", x.field, len(x.s), x.max)
			}
			for _, c := range x.s {
				if x.multiline && (c == '\n' || c == '\t') {
					continue
				}
				if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) {
					t.Fatalf("accepted control U+%04X in %s: %q", c, x.field, x.s)
				}
				if (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) {
					t.Fatalf("accepted bidi override U+%04X in %s: %q", c, x.field, x.s)
				}
			}
		}
		if strings.TrimSpace(message) == "" || strings.TrimSpace(ok) == "" || strings.TrimSpace(cancel) == "" {
			t.Fatalf("accepted a blank message or label: %q %q %q", message, ok, cancel)
		}
		if ok == cancel {
			t.Fatalf("accepted equal labels %q", ok)
		}
		known := false
		for _, i := range Icons {
			known = known || i == icon
		}
		if !known {
			t.Fatalf("accepted icon %q", icon)
		}
	})
}

// FuzzIdentity checks that two requests with different visible content or
// scope never share a content hash, and that equal ones always do. A key,
// when given, decides the identity alone.
func FuzzIdentity(f *testing.F) {
	f.Add("a:b", "c", "OK", "Cancel", "question", false, "/s", "",
		"a", "b:c", "OK", "Cancel", "question", false, "/s", "")
	f.Add("t", "m", "OK", "Cancel", "question", false, "/s", "k",
		"t", "m", "OK", "Cancel", "question", false, "/s", "k")
	f.Add("t", "m", "OK", "Cancel", "question", false, "/s", "k",
		"T", "M", "Yes", "No", "error", true, "/other", "k")
	f.Add("", "ab", "", "", "", false, "", "",
		"a", "b", "", "", "", false, "", "")
	f.Add("a\x00\x00\x00\x00\x00\x00\x00\x01b", "", "", "", "", false, "", "",
		"a", "b", "", "", "", false, "", "")
	f.Add("", "", "", "", "", false, "", "",
		"", "", "", "", "", true, "", "")
	f.Add("x", "", "", "", "", false, "", "",
		"", "", "", "", "", false, "", "x")
	f.Add("\xff", "\u202E", "\x1b", "\n", "cancel", false, "approve", "",
		"\xff", "\u202E", "\x1b", "\n", "cancel", true, "approve", "")

	f.Fuzz(func(t *testing.T,
		title1, message1, ok1, cancel1, icon1 string, default1 bool, scope1, key1 string,
		title2, message2, ok2, cancel2, icon2 string, default2 bool, scope2, key2 string,
	) {
		a := Request{Title: title1, Message: message1, OKLabel: ok1, CancelLabel: cancel1,
			Icon: icon1, DefaultApprove: default1, Scope: scope1, Key: key1}
		b := Request{Title: title2, Message: message2, OKLabel: ok2, CancelLabel: cancel2,
			Icon: icon2, DefaultApprove: default2, Scope: scope2, Key: key2}

		for _, h := range []string{a.ContentHash(), a.Identity(), b.ContentHash(), b.Identity()} {
			if !hexSHA256.MatchString(h) {
				t.Fatalf("hash %q is not 64 lowercase hex digits", h)
			}
		}

		// The key is not content: compare everything else.
		ac, bc := a, b
		ac.Key, bc.Key = "", ""
		if sameContent := reflect.DeepEqual(ac, bc); sameContent != (a.ContentHash() == b.ContentHash()) {
			t.Fatalf("same content = %v but ContentHash equal = %v\na = %#v\nb = %#v",
				sameContent, !sameContent, a, b)
		}

		switch {
		case key1 == "" && a.Identity() != a.ContentHash():
			t.Fatalf("no key, yet Identity() != ContentHash()")
		case key1 != "" && key2 != "" && (key1 == key2) != (a.Identity() == b.Identity()):
			t.Fatalf("keys %q and %q: identities equal = %v", key1, key2, a.Identity() == b.Identity())
		case key1 != "" && key2 == "" && a.Identity() == b.Identity():
			t.Fatalf("key %q and unkeyed content share identity %s", key1, a.Identity())
		}
	})
}

// Whatever Literal is given, what it returns passes Validate's character
// checks, and printable text without escapes to make comes back unchanged.
func FuzzLiteral(f *testing.F) {
	for _, s := range []string{"ls -la", "\x1b[31mred\x1b[0m", "a\u202eb", "\xff\xfe", "tab\there\nnew", "\u0085", "\\x1b"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		out := Literal(s, multiline)
		if err := checkText("--message", out, len(out)+1, false, multiline); err != nil {
			t.Fatalf("Literal(%q, %v) = %q, which Validate refuses: %v", s, multiline, out, err)
		}
		plain := true
		for _, c := range s {
			plain = plain && (unicode.IsGraphic(c) && !Hidden(c) && !unicode.In(c, unicode.Mn, unicode.Me) && c != 0x2028 && c != 0x2029 || c == ' ' || multiline && (c == '\n' || c == '\t'))
		}
		if plain && utf8.ValidString(s) && out != s {
			t.Fatalf("Literal changed plain text %q to %q", s, out)
		}
		if again := Literal(out, multiline); again != out {
			t.Fatalf("Literal(%q) = %q, and Literal of that is %q", s, out, again)
		}
	})
}

// Whatever text Fit is given, on a surface of at least 40 columns and 12
// rows, what it returns keeps within the surface, passes Validate's
// character checks as a message, and, where the text ends in a space and
// a plain word, ends in that word: the tail of a text is never what a fit
// drops.
func FuzzFit(f *testing.F) {
	f.Add("ls "+strings.Repeat("A", 3000)+" ; rm -rf ~/x", 60, 30, 0)
	f.Add(strings.Repeat("echo abc\n", 400)+"rm zebra", 79, 18, 0)
	f.Add("ls"+strings.Repeat("\u200b", 500)+" tail", 0, 40, 4000)
	f.Add(strings.Repeat("\x1b[31m\t\r\n", 300)+" end", 39, 12, 0)
	f.Add("e"+strings.Repeat("\u0301", 300)+" word", 60, 30, 512)
	f.Fuzz(func(t *testing.T, text string, columns, rows, limit int) {
		s := Surface{Columns: columns, Rows: rows, Bytes: limit}
		if columns != 0 {
			s.Columns = 40 + abs(columns)%200
		}
		if rows != 0 {
			s.Rows = 12 + abs(rows)%100
		}
		if limit != 0 || s.Rows == 0 && s.Columns == 0 {
			s.Bytes = 512 + abs(limit)%20000
		}
		shown, _ := Fit(text, s)
		checkFitted(t, shown, s)
		if err := checkText("--message", shown, len(shown)+1, false, true); err != nil {
			t.Fatalf("Fit(%q) = %q, which Validate refuses: %v", text, shown, err)
		}
		last := text[strings.LastIndexAny(text, " \n")+1:]
		plainWord := len(last) >= 3 && len(last) <= 12 && strings.LastIndexAny(text, " \n") >= 0 && text[strings.LastIndexAny(text, " \n")] == ' '
		for _, c := range last {
			plainWord = plainWord && c >= 'a' && c <= 'z'
		}
		if plainWord && !strings.HasSuffix(shown, last) {
			t.Fatalf("Fit(%q, %+v) lost the last word %q:\n%s", text, s, last, shown)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzChoice builds a choice from fuzzed text: options (each "LABEL" or
// "LABEL=DESCRIPTION", as on the command line) split by a fuzzed
// separator, a description for the first, defaults split the same way and
// --multiple. Validate never panics and refuses with a field a person can
// find; whatever it accepts is a list a person can read: 2 to MaxOptions
// distinct one-line labels that no dialog program takes for a flag, each
// reading differently, and defaults among them. Its hash depends on the
// order of the options, and every option's command-line form reads back
// as itself.
func FuzzChoice(f *testing.F) {
	f.Add("staging=the staging cluster,production", ",", "", "", false)
	f.Add("a,b,c", ",", "first", "a", false)
	f.Add("a,b,c", ",", "", "a,c", true)
	f.Add("a,b,c", ",", "", "a,c", false)
	f.Add("a,b,a", ",", "", "", false)
	f.Add("a,,b", ",", "", "", false)
	f.Add("a,=desc", ",", "", "", false)
	f.Add("a,-x", ",", "", "", false)
	f.Add("a,--help", ",", "", "", false)
	f.Add("a\nb,c", ",", "", "", false)
	f.Add("a|b", "|", "line\nline", "", false)
	f.Add("a — b,a=b", ",", "", "", false)
	f.Add("a,b — c", ",", "", "", false)
	f.Add("a, b", ",", "", "", false)
	f.Add("a ,b", ",", "", "", false)
	f.Add("a\u00a0,b", ",", "", "", false)
	f.Add("only", ",", "", "", false)
	f.Add("", ",", "", "", false)
	f.Add("", "", "0", "0", true) // no options at all: Split("", "") is empty
	f.Add("a,b", ",", "", "c", false)
	f.Add("a,b", ",", "", "a,a", true)
	f.Add("a==b=c,x", ",", "", "a=b", false)
	f.Add("==,====", ",", "", "=", false)
	f.Add("a\xff,b", ",", "", "", false)
	f.Add("a,b\x00", ",", "", "", false)
	f.Add("a,b", ",", "\x1b[31mred\x1b[0m", "", false)
	f.Add("a,\x1b[2Jb", ",", "", "", false)
	f.Add("invoice\u202Efdp.exe,b", ",", "", "", false)
	f.Add("a,b\u2066c", ",", "", "", false)
	f.Add("a,b\u0085", ",", "", "", false)
	f.Add("a,b", ",", strings.Repeat("d", MaxDescriptionBytes+1), "", false)
	f.Add(strings.Repeat("l", MaxOptionBytes+1)+",b", ",", "", "", false)
	f.Add(strings.Repeat("l", MaxOptionBytes)+",b", ",", strings.Repeat("d", MaxDescriptionBytes), "", false)
	f.Add(strings.TrimSuffix(strings.Repeat("o,", MaxOptions+1), ","), ",", "", "", true)
	f.Add("abcdefghijklmnopqrstuvwxyzABCDEF", "", "", "", false)
	f.Add("abcdefghijklmnopqrstuvwxyzABCDEFG", "", "", "", false)

	f.Fuzz(func(t *testing.T, options, sep, description, defaults string, multiple bool) {
		r := Request{
			Message: "Pick one", OKLabel: "OK", CancelLabel: "Cancel", Scope: "/s",
			Kind: Choose, Multiple: multiple,
		}
		for _, s := range strings.Split(options, sep) {
			r.Options = append(r.Options, ParseOption(s))
		}
		if description != "" && len(r.Options) > 0 { // none when options and sep are empty
			r.Options[0].Description = description
		}
		if defaults != "" {
			r.Selected = strings.Split(defaults, sep)
		}

		err := r.Validate()
		if again := r.Validate(); (err == nil) != (again == nil) {
			t.Fatalf("Validate is not deterministic: %v then %v", err, again)
		}
		if err != nil {
			var ie *InvalidError
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &ie) {
				t.Fatalf("Validate() = %T %v, want an *InvalidError wrapping ErrInvalid", err, err)
			}
			if !choiceField(ie.Field, len(r.Options)) {
				t.Fatalf("Field = %q, not a flag of a choice with %d options", ie.Field, len(r.Options))
			}
			if ie.Reason == "" {
				t.Fatalf("empty Reason for %s", ie.Field)
			}
			for _, c := range err.Error() {
				if c < 0x20 || (c >= 0x7f && c < 0xa0) || isBidiOverride(c) {
					t.Fatalf("Error() = %q echoes U+%04X", err.Error(), c)
				}
			}
			return
		}

		if n := len(r.Options); n < 2 || n > MaxOptions {
			t.Fatalf("accepted %d options", n)
		}
		labels := map[string]bool{}
		shown := map[string]bool{}
		for i, o := range r.Options {
			switch {
			case strings.TrimSpace(o.Label) == "":
				t.Fatalf("accepted an empty label as option %d", i+1)
			case o.Label != strings.TrimSpace(o.Label):
				t.Fatalf("accepted label %q with spaces around it", o.Label)
			case strings.HasPrefix(o.Label, "-"):
				t.Fatalf("accepted label %q that looks like a flag", o.Label)
			case len(o.Label) > MaxOptionBytes:
				t.Fatalf("accepted a label of %d bytes", len(o.Label))
			case len(o.Description) > MaxDescriptionBytes:
				t.Fatalf("accepted a description of %d bytes", len(o.Description))
			case labels[o.Label]:
				t.Fatalf("accepted label %q twice", o.Label)
			case shown[o.Display()]:
				t.Fatalf("accepted two options that read %q", o.Display())
			}
			labels[o.Label], shown[o.Display()] = true, true
			for _, s := range []string{o.Label, o.Description} {
				if !utf8.ValidString(s) {
					t.Fatalf("accepted invalid UTF-8 in option %d: %q", i+1, s)
				}
				for _, c := range s {
					if c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || isBidiOverride(c) {
						t.Fatalf("accepted U+%04X in option %d: %q", c, i+1, s)
					}
				}
			}
			// The command-line form of an accepted option reads back as
			// itself, "=" in its label and all (a description that starts
			// with '=' has no command-line form).
			if got := ParseOption(escapeOption(o)); !strings.HasPrefix(o.Description, "=") && got != o {
				t.Fatalf("ParseOption(%q) = %#v, want %#v", escapeOption(o), got, o)
			}
		}
		if len(r.Selected) > 1 && !multiple {
			t.Fatalf("accepted %d defaults without multiple", len(r.Selected))
		}
		picked := map[string]bool{}
		for _, s := range r.Selected {
			if !labels[s] {
				t.Fatalf("accepted default %q, which is not an option", s)
			}
			if picked[s] {
				t.Fatalf("accepted default %q twice", s)
			}
			picked[s] = true
		}

		h := r.ContentHash()
		if !hexSHA256.MatchString(h) {
			t.Fatalf("ContentHash() = %q, not 64 lowercase hex digits", h)
		}
		reversed := r
		reversed.Options = make([]Option, len(r.Options))
		for i, o := range r.Options {
			reversed.Options[len(r.Options)-1-i] = o
		}
		if reversed.ContentHash() == h {
			t.Fatalf("options %q and their reverse have the same ContentHash", r.Labels())
		}
		flipped := r
		flipped.Multiple = !multiple
		if flipped.ContentHash() == h {
			t.Fatalf("multiple %v and %v have the same ContentHash", multiple, !multiple)
		}
		asked := r
		asked.Origin = "fuzz in /s"
		if asked.ContentHash() != h || asked.Identity() != r.Identity() {
			t.Fatalf("the origin changed the identity")
		}
	})
}

// choiceField reports whether field names a flag of a choice with n
// options: --option, --option N or --option N description with N in 1..n,
// or --default.
func choiceField(field string, n int) bool {
	switch field {
	case "--option", "--default":
		return true
	}
	rest, ok := strings.CutPrefix(field, "--option ")
	if !ok {
		return false
	}
	rest = strings.TrimSuffix(rest, " description")
	i, err := strconv.Atoi(rest)
	return err == nil && i >= 1 && i <= n && strconv.Itoa(i) == rest
}
