package dialog

import (
	"fmt"
	"strings"
	"testing"
)

// A message that would grow the window past the screen is cut to
// MaxShownRows rows, saying how many of its lines were not shown in full;
// one that fits is shown whole. (A 5,000-line message once grew the window
// past the screen, its buttons and origin line out of reach.)
func TestFitScreen(t *testing.T) {
	numbered := func(n int) string {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprint(i + 1)
		}
		return strings.Join(lines, "\n")
	}
	long := strings.Repeat("x", WrapColumns)
	for _, c := range []struct {
		name, message, want string
	}{
		{"short", "Ship v2?", "Ship v2?"},
		{"exactly the rows", numbered(MaxShownRows), numbered(MaxShownRows)},
		{"5,000 lines", numbered(5000), numbered(MaxShownRows) + "\n… (cut: 4,970 of 5,000 lines not shown in full)"},
		{"one line too many", numbered(MaxShownRows + 1), numbered(MaxShownRows) + "\n… (cut: 1 of 31 lines not shown in full)"},
		{"one long line", strings.Repeat(long, 100), strings.Repeat(long, MaxShownRows) + "\n… (cut: 1 of 1 line not shown in full)"},
		{"long lines count their rows", strings.Repeat(long+"y\n", MaxShownRows/2) + "last",
			strings.TrimSuffix(strings.Repeat(long+"y\n", MaxShownRows/2), "\n") + "\n… (cut: 1 of 16 lines not shown in full)"},
		{"wide characters take two columns", strings.Repeat("界", WrapColumns*MaxShownRows),
			strings.Repeat("界", WrapColumns*MaxShownRows/2) + "\n… (cut: 1 of 1 line not shown in full)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := FitScreen(c.message)
			if got != c.want {
				t.Fatalf("FitScreen = %q\nwant %q", got, c.want)
			}
			if rows := strings.Count(got, "\n") + 1; rows > MaxShownRows+1 {
				t.Fatalf("%d lines shown", rows)
			}
		})
	}
}
