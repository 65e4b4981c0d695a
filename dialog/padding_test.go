package dialog

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/padding"
)

func TestCompactPadding(t *testing.T) {
	for _, p := range padding.Cases {
		t.Run(p.Name, func(t *testing.T) {
			got := Compact(padding.Head + p.Pad + padding.Tail)
			if !strings.HasPrefix(got, padding.Head) || !strings.HasSuffix(got, padding.Tail) {
				t.Fatalf("Compact lost the head or the tail: %q", got)
			}
			if lines := strings.Count(got, "\n") + 1; lines > 3 {
				t.Errorf("%d lines left: %q", lines, got)
			}
			if len(got) > 80 {
				t.Errorf("%d bytes left: %q", len(got), got)
			}
			if !strings.Contains(got, "×") && !strings.Contains(got, " blanks⟩") {
				t.Errorf("no marker says padding was there: %q", got)
			}
			if again := Compact(got); again != got {
				t.Errorf("Compact is not idempotent: %q, then %q", got, again)
			}
		})
	}
}

func TestCompact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ls\n" + strings.Repeat("\n", 29) + "rm", "ls\n⏎ ×30\nrm"},
		{"a\n\nb", "a\n\nb"},
		{"a\n \t\nb", "a\n \t\nb"},
		{"a\n\n\nb", "a\n⏎ ×3\nb"},
		{"a\n  \n\n  b", "a\n⏎ ×3\n  b"},
		{"a" + strings.Repeat(" ", 32) + "b", "a" + strings.Repeat(" ", 32) + "b"},
		{"a" + strings.Repeat(" ", 33) + "b", "a⟨33 blanks⟩b"},
		{"a\t\t\t\tb", "a\t\t\t\tb"},
		{"a\t\t\t\t\tb", "a⟨5 blanks⟩b"},
		{"x\u2028\u2028\u2028y", "x\n⏎ ×3\ny"},
		{"x\u2028y", "x\u2028y"},
		{"NAME        STATUS\nweb         Running", "NAME        STATUS\nweb         Running"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Compact(c.in); got != c.want {
			t.Errorf("Compact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Shown, what the dialog and the terminal show, writes padding as
// markers, so the origin line and the message's tail stay in view.
func TestShownCompactsPadding(t *testing.T) {
	r := Request{Message: "Run ls?" + strings.Repeat("\n", 40) + "and rm -rf ~", Origin: "agent in ~/w"}
	want := "Run ls?\n⏎ ×40\nand rm -rf ~\n\nAsked by agent in ~/w"
	if got := shownText(r, time.Time{}, time.Time{}); got != want {
		t.Errorf("Shown = %q, want %q", got, want)
	}
}
