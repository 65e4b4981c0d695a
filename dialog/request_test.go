package dialog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// validRequest is a request every validation case starts from: each case
// changes one thing, so a failure names that thing.
func validRequest() Request {
	return Request{
		Title:       "Deploy",
		Message:     "Ship v2 to prod?",
		OKLabel:     "Approve",
		CancelLabel: "Cancel",
		Icon:        "question",
		Scope:       "/home/user/repo",
	}
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Request)
	}{
		{"defaults", func(r *Request) {}},
		{"empty title, key and scope", func(r *Request) { r.Title, r.Key, r.Scope = "", "", "" }},
		{"default approve", func(r *Request) { r.DefaultApprove = true }},
		{"message with newlines and tabs", func(r *Request) { r.Message = "Run:\n\trm -rf build/\n\tmake release\n" }},
		{"message starting with a dash", func(r *Request) { r.Message = "-rf" }},
		{"message starting with two dashes", func(r *Request) { r.Message = "--force push to main?" }},
		{"message that is only dashes", func(r *Request) { r.Message = "--" }},
		{"title starting with dashes", func(r *Request) { r.Title = "--title" }},
		// Markup is shown literally by the backend, so it is ordinary text here.
		{"bold markup in message", func(r *Request) { r.Message = "<b>x</b>" }},
		{"span markup in message", func(r *Request) { r.Message = `<span foreground="red">x</span>` }},
		{"entity in message", func(r *Request) { r.Message = "a &amp; b &lt;" }},
		{"markup in title", func(r *Request) { r.Title = "<i>Deploy</i>" }},
		{"markup in labels", func(r *Request) { r.OKLabel, r.CancelLabel = "<b>Yes</b>", "<b>No</b>" }},
		{"unicode text", func(r *Request) {
			r.Title, r.Message = "Déployer 🚀", "Livrer la v2 en production ? 中文 Ελληνικά"
		}},
		{"right-to-left text without overrides", func(r *Request) { r.Message = "שלום עולם مرحبا" }},
		{"unicode labels", func(r *Request) { r.OKLabel, r.CancelLabel = "Oui ✓", "Non ✗" }},
		{"labels differing only in case", func(r *Request) { r.OKLabel, r.CancelLabel = "send", "SEND" }},
		{"title at the limit", func(r *Request) { r.Title = strings.Repeat("t", MaxTitleBytes) }},
		{"title at the limit in two-byte runes", func(r *Request) { r.Title = strings.Repeat("é", MaxTitleBytes/2) }},
		{"message at the limit", func(r *Request) { r.Message = strings.Repeat("m", MaxMessageBytes) }},
		{"message at the limit with newlines", func(r *Request) { r.Message = strings.Repeat("line\n", MaxMessageBytes/5) + "x" }},
		{"labels at the limit", func(r *Request) {
			r.OKLabel, r.CancelLabel = strings.Repeat("o", MaxLabelBytes), strings.Repeat("c", MaxLabelBytes)
		}},
		{"key at the limit", func(r *Request) { r.Key = strings.Repeat("k", MaxKeyBytes) }},
		{"scope at the limit", func(r *Request) { r.Scope = "/" + strings.Repeat("s", MaxScopeBytes-1) }},
		{"key with spaces and punctuation", func(r *Request) { r.Key = "deploy:prod/v2 #1" }},
		{"non-breaking space inside text", func(r *Request) { r.Message = "a\u00a0b" }},
	}
	for _, icon := range Icons {
		tests = append(tests, struct {
			name string
			edit func(r *Request)
		}{"icon " + icon, func(r *Request) { r.Icon = icon }})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
			tt.edit(&r)
			if err := r.Validate(); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(r *Request)
		field  string
		reason string // a substring of InvalidError.Reason
	}{
		{"empty message", func(r *Request) { r.Message = "" }, "--message", "must not be empty"},
		{"blank message", func(r *Request) { r.Message = " \n\t  " }, "--message", "must not be blank"},
		{"message of no-break spaces", func(r *Request) { r.Message = "\u00a0\u3000" }, "--message", "must not be blank"},
		{"invalid UTF-8 in message", func(r *Request) { r.Message = "ok \xff\xfe" }, "--message", "not valid UTF-8"},
		{"truncated rune in message", func(r *Request) { r.Message = "caf\xc3" }, "--message", "not valid UTF-8"},
		{"surrogate half in message", func(r *Request) { r.Message = "a\xed\xa0\x80b" }, "--message", "not valid UTF-8"},
		{"NUL in message", func(r *Request) { r.Message = "yes\x00no" }, "--message", "NUL byte at offset 3"},
		{"ANSI escape in message", func(r *Request) { r.Message = "\x1b[31mred\x1b[0m" }, "--message", "U+001B at offset 0"},
		{"ESC alone in message", func(r *Request) { r.Message = "a\x1bb" }, "--message", "U+001B"},
		{"BEL in message", func(r *Request) { r.Message = "ding\a" }, "--message", "U+0007"},
		{"backspace in message", func(r *Request) { r.Message = "yes\b\b\bno" }, "--message", "U+0008"},
		{"carriage return in message", func(r *Request) { r.Message = "safe\rrm -rf /" }, "--message", "U+000D"},
		{"vertical tab in message", func(r *Request) { r.Message = "a\vb" }, "--message", "U+000B"},
		{"form feed in message", func(r *Request) { r.Message = "a\fb" }, "--message", "U+000C"},
		{"unit separator in message", func(r *Request) { r.Message = "a\x1fb" }, "--message", "U+001F"},
		{"DEL in message", func(r *Request) { r.Message = "a\x7fb" }, "--message", "U+007F"},
		{"C1 NEL in message", func(r *Request) { r.Message = "a\u0085b" }, "--message", "U+0085"},
		{"C1 CSI in message", func(r *Request) { r.Message = "\u009b31m" }, "--message", "U+009B"},
		{"last C1 control in message", func(r *Request) { r.Message = "a\u009fb" }, "--message", "U+009F"},
		{"RLO override in message", func(r *Request) { r.Message = "invoice\u202Efdp.exe" }, "--message", "bidirectional override U+202E"},
		{"LRE embedding in message", func(r *Request) { r.Message = "a\u202Ab" }, "--message", "U+202A"},
		{"LRI isolate in message", func(r *Request) { r.Message = "a\u2066b\u2069" }, "--message", "bidirectional override U+2066"},
		{"PDI in message", func(r *Request) { r.Message = "a\u2069" }, "--message", "U+2069"},
		{"message over the limit", func(r *Request) { r.Message = strings.Repeat("m", MaxMessageBytes+1) }, "--message", "is 65537 bytes; the limit is 65536"},

		{"invalid UTF-8 in title", func(r *Request) { r.Title = "\xc0\xaf" }, "--title", "not valid UTF-8"},
		{"NUL in title", func(r *Request) { r.Title = "\x00" }, "--title", "NUL byte at offset 0"},
		{"newline in title", func(r *Request) { r.Title = "Deploy\nprod" }, "--title", "U+000A at offset 6"},
		{"tab in title", func(r *Request) { r.Title = "a\tb" }, "--title", "U+0009"},
		{"ANSI escape in title", func(r *Request) { r.Title = "\x1b]0;pwned\a" }, "--title", "U+001B"},
		{"RLO override in title", func(r *Request) { r.Title = "\u202Eyolpeddeploy" }, "--title", "U+202E"},
		{"FSI isolate in title", func(r *Request) { r.Title = "a\u2068b" }, "--title", "U+2068"},
		{"title over the limit", func(r *Request) { r.Title = strings.Repeat("t", MaxTitleBytes+1) }, "--title", "is 257 bytes; the limit is 256"},
		{"title over the limit by a split rune", func(r *Request) { r.Title = strings.Repeat("t", MaxTitleBytes-1) + "é" }, "--title", "the limit is 256"},

		{"empty ok label", func(r *Request) { r.OKLabel = "" }, "--ok-label", "must not be empty"},
		{"blank ok label", func(r *Request) { r.OKLabel = "   " }, "--ok-label", "must not be blank"},
		{"newline in ok label", func(r *Request) { r.OKLabel = "Ap\nprove" }, "--ok-label", "U+000A"},
		{"ok label over the limit", func(r *Request) { r.OKLabel = strings.Repeat("o", MaxLabelBytes+1) }, "--ok-label", "is 65 bytes; the limit is 64"},
		{"empty cancel label", func(r *Request) { r.CancelLabel = "" }, "--cancel-label", "must not be empty"},
		{"blank cancel label", func(r *Request) { r.CancelLabel = "\t" }, "--cancel-label", "must not be blank"},
		{"RLO in cancel label", func(r *Request) { r.CancelLabel = "\u202Evorppa" }, "--cancel-label", "U+202E"},
		{"cancel label over the limit", func(r *Request) { r.CancelLabel = strings.Repeat("c", MaxLabelBytes+1) }, "--cancel-label", "the limit is 64"},
		{"equal labels", func(r *Request) { r.OKLabel, r.CancelLabel = "OK", "OK" }, "--ok-label", "must differ from --cancel-label"},
		{"equal unicode labels", func(r *Request) { r.OKLabel, r.CancelLabel = "✓", "✓" }, "--ok-label", "must differ"},

		{"empty icon", func(r *Request) { r.Icon = "" }, "--icon", `"" is not one of question, warning, error, info, none`},
		{"unknown icon", func(r *Request) { r.Icon = "skull" }, "--icon", `"skull" is not one of`},
		{"icon in other case", func(r *Request) { r.Icon = "Question" }, "--icon", "is not one of"},
		{"icon with space", func(r *Request) { r.Icon = "question " }, "--icon", "is not one of"},
		{"icon path", func(r *Request) { r.Icon = "/usr/share/icons/x.png" }, "--icon", "is not one of"},

		{"key over the limit", func(r *Request) { r.Key = strings.Repeat("k", MaxKeyBytes+1) }, "--key", "is 257 bytes; the limit is 256"},
		{"newline in key", func(r *Request) { r.Key = "a\nb" }, "--key", "U+000A"},
		{"invalid UTF-8 in key", func(r *Request) { r.Key = "\xff" }, "--key", "not valid UTF-8"},
		{"scope over the limit", func(r *Request) { r.Scope = strings.Repeat("s", MaxScopeBytes+1) }, "--scope", "is 4097 bytes; the limit is 4096"},
		{"NUL in scope", func(r *Request) { r.Scope = "/tmp\x00/x" }, "--scope", "NUL byte at offset 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRequest()
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
		})
	}
}

// A request with several bad fields reports the message first: it is the one
// field every caller must get right.
func TestValidateReportsMessageFirst(t *testing.T) {
	var ie *InvalidError
	err := Request{}.Validate()
	if !errors.As(err, &ie) || ie.Field != "--message" {
		t.Fatalf("zero Request: Validate() = %v, want an *InvalidError for --message", err)
	}
	r := Request{Message: "ok", Title: "a\nb", OKLabel: "", Icon: "bad"}
	if err := r.Validate(); !errors.As(err, &ie) || ie.Field != "--title" {
		t.Fatalf("Validate() = %v, want an *InvalidError for --title", err)
	}
}

// Control characters in reason text would defeat the point of rejecting
// them, so the offending character is named, never echoed.
func TestValidateReasonDoesNotEchoControls(t *testing.T) {
	for _, msg := range []string{"\x1b[2J", "a\u202Eb", "\x00", "a\rb", "a\u009bb"} {
		r := validRequest()
		r.Message = msg
		err := r.Validate()
		if err == nil {
			t.Fatalf("Validate(%q) = nil, want an error", msg)
		}
		for _, c := range err.Error() {
			if c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) {
				t.Errorf("Validate(%q).Error() = %q contains U+%04X", msg, err.Error(), c)
			}
		}
	}
}

func TestInvalidErrorUnwrap(t *testing.T) {
	var err error = &InvalidError{Field: "--message", Reason: "must not be empty"}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(InvalidError, ErrInvalid) = false")
	}
	if errors.Is(ErrInvalid, err) {
		t.Errorf("errors.Is(ErrInvalid, InvalidError) = true")
	}
}

// A note (how a click counts, for a request of several approvers) comes
// under the origin line, or under the message without one; it is neither
// kept with the request nor part of the identity.
func TestShownWithNote(t *testing.T) {
	r := validRequest()
	r.Message = "Ship v2?"
	id, content := r.Identity(), r.ContentHash()
	r.Note = "Your answer counts as Alice's vote; 2 of 3 approvals needed"
	if got, want := shownText(r, time.Time{}, time.Time{}), "Ship v2?\n\n"+r.Note; got != want {
		t.Fatalf("Shown = %q, want %q", got, want)
	}
	r.Origin = "deploy.sh in ~/src/app"
	if got, want := shownText(r, time.Time{}, time.Time{}), "Ship v2?\n\nAsked by deploy.sh in ~/src/app\n"+r.Note; got != want {
		t.Fatalf("Shown = %q, want %q", got, want)
	}
	r.Origin = ""
	if r.Identity() != id || r.ContentHash() != content {
		t.Fatal("the note changed the request's identity")
	}
	if b, err := json.Marshal(r); err != nil || strings.Contains(string(b), "Alice") {
		t.Fatalf("the note is kept with the request: %s, %v", b, err)
	}
}

// The origin line says who asks and, given the deadline, when the dialog
// closes; without an origin the dialog shows the message alone. The
// origin is no part of the identity.
func TestShownWithOrigin(t *testing.T) {
	r := validRequest()
	r.Message = "Ship v2?"
	// The test's own clock, read in the machine's zone as the dialog is.
	now := time.Date(2026, 11, 23, 9, 30, 0, 0, time.Local)
	if got := shownText(r, now.Add(time.Hour), now); got != "Ship v2?" {
		t.Fatalf("without an origin: %q", got)
	}
	id, content := r.Identity(), r.ContentHash()
	r.Origin = "deploy.sh in ~/src/app"
	closes := time.Date(2026, 11, 23, 14, 5, 0, 0, time.Local)
	if got, want := shownText(r, closes, now), "Ship v2?\n\nAsked by deploy.sh in ~/src/app · closes at 14:05"; got != want {
		t.Fatalf("Shown = %q, want %q", got, want)
	}
	// Asked at 00:20 for 24 hours: the line names the day it closes.
	asked := time.Date(2026, 11, 26, 0, 20, 0, 0, time.Local)
	if got, want := shownText(r, asked.AddDate(0, 0, 1), asked), "Ship v2?\n\nAsked by deploy.sh in ~/src/app · closes at 00:20 on Fri 27 \nNov"; got != want {
		t.Fatalf("Shown across midnight = %q, want %q", got, want)
	}
	if got, want := shownText(r, time.Time{}, now), "Ship v2?\n\nAsked by deploy.sh in ~/src/app"; got != want {
		t.Fatalf("Shown without a deadline = %q, want %q", got, want)
	}
	if r.Identity() != id || r.ContentHash() != content {
		t.Fatal("the origin changed the request's identity")
	}
	for _, bad := range []string{"a\nb", "a\x1bb", strings.Repeat("x", MaxOriginBytes+1), "a\u202eb"} {
		r.Origin = bad
		if err := r.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("origin %q: Validate = %v", bad, err)
		}
	}
}

// Origin shows who and where literally, home as ~, and cuts a long line
// visibly to MaxOriginBytes.
func TestOrigin(t *testing.T) {
	cases := []struct{ who, dir, home, want string }{
		{"deploy.sh", "/home/me/src/app", "/home/me", "deploy.sh in ~/src/app"},
		{"bash", "/home/me", "/home/me/", "bash in ~"},
		{"bash", "/home/meg", "/home/me", "bash in /home/meg"},
		{"", "/srv", "", "a process in /srv"},
		{"evil\x1b]0;x\a", "/w\n", "", `evil\x1b]0;x\x07 in /w\n`},
	}
	for _, c := range cases {
		if got := Origin(c.who, c.dir, c.home); got != c.want {
			t.Errorf("Origin(%q, %q, %q) = %q, want %q", c.who, c.dir, c.home, got, c.want)
		}
	}
	long := Origin("make", "/"+strings.Repeat("é", MaxOriginBytes), "")
	if len(long) > MaxOriginBytes || !strings.HasSuffix(long, "é…") || !utf8.ValidString(long) {
		t.Fatalf("a long origin: %d bytes, %q", len(long), long[len(long)-20:])
	}
}

// The locale is UTF-8 only when the variable that decides it says so.
func TestIsUTF8Locale(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "C"}, false},
		{map[string]string{"LANG": "C", "LC_CTYPE": "C.UTF-8"}, true},
		{map[string]string{"LC_ALL": "POSIX", "LC_CTYPE": "C.UTF-8"}, false},
	}
	for _, c := range cases {
		if got := isUTF8Locale(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: isUTF8Locale = %v, want %v", c.env, got, c.want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute:             "5m",
		2 * time.Second:             "2s",
		40 * time.Second:            "40s",
		90 * time.Second:            "1m30s",
		time.Hour:                   "1h",
		24 * time.Hour:              "24h",
		time.Hour + 30*time.Minute:  "1h30m",
		2*time.Hour + 5*time.Second: "2h0m5s",
		0:                           "0s",
		1500 * time.Millisecond:     "1.5s",
		168 * time.Hour:             "168h",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// shownText is what a dialog shows of r (Shown on the Screen).
func shownText(r Request, closes, now time.Time) string {
	text, _ := r.Shown(Screen, closes, now)
	return text
}
