package dialog

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// checkFitted fails t unless shown keeps within s: no more rows than
// s.Rows, no row wider than s.Columns, no more bytes than s.Bytes.
func checkFitted(t *testing.T, shown string, s Surface) {
	t.Helper()
	rows := strings.Split(shown, "\n")
	if s.Rows > 0 && len(rows) > s.Rows {
		t.Errorf("%d rows, more than the surface's %d:\n%s", len(rows), s.Rows, shown)
	}
	if s.Bytes > 0 && len(shown) > s.Bytes {
		t.Errorf("%d bytes, more than the surface's %d", len(shown), s.Bytes)
	}
	if s.Columns > 0 {
		for i, r := range rows {
			if w := uniseg.StringWidth(r); w > s.Columns {
				t.Errorf("row %d is %d columns wide, more than the surface's %d: %q", i+1, w, s.Columns, r)
			}
		}
	}
}

// lines is n lines, "line 1" to "line n".
func lines(n int) string {
	l := make([]string, n)
	for i := range l {
		l[i] = fmt.Sprint("line ", i+1)
	}
	return strings.Join(l, "\n")
}

// The shapes of text that hid an agent's command's tail, or put a
// dialog's buttons off the screen, with the real zenity (issue 42): each
// now shows its tail, within the screen's rows and columns, and those
// that do not fit say so first.
func TestFitKeepsTheTailOnTheScreen(t *testing.T) {
	const tail = " rm -rf ~/x"
	echo := strings.Repeat("echo "+strings.Repeat("abcdefgh", 8)+"\n", 20)
	var many strings.Builder
	many.WriteString("ls ")
	for range 1000 {
		many.WriteString(strings.Repeat("q", 98) + "\n")
	}
	for _, c := range []struct {
		name, text string
		whole      bool
	}{
		{"20 lines of echo", echo + tail, false},
		{"1,000 lines of 99 characters", many.String() + tail, false},
		{"500 zero-width spaces", "ls" + strings.Repeat("\u200b", 500) + tail, true},
		{"3,000 letters", "ls " + strings.Repeat("A", 3000) + tail, false},
		{"1,400 base64 characters", "echo " + strings.Repeat("aGVsbG8gd29ybGQh", 88)[:1400] + tail, true},
		{"3,000 letters and a semicolon", "ls" + strings.Repeat("A", 3000) + " ;" + tail, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			shown, whole := Fit(c.text, Screen)
			checkFitted(t, shown, Screen)
			if !strings.HasSuffix(shown, strings.TrimSpace(tail)) {
				t.Errorf("the tail %q is not at the end:\n%s", tail, shown)
			}
			if whole != c.whole {
				t.Errorf("whole = %v, want %v", whole, c.whole)
			}
			if first := strings.SplitN(shown, "\n", 2)[0]; !whole && first != tooLong {
				t.Errorf("a text not shown whole starts %q, not %q", first, tooLong)
			}
		})
	}
}

func TestFitWholeText(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"short", "Ship v2?", "Ship v2?"},
		{"exactly the rows", lines(Screen.Rows), lines(Screen.Rows)},
		{"a tab stops at eight columns", "a\tb", "a       b"},
		{"a long line breaks between words", strings.Repeat("word ", 15) + "end",
			strings.Repeat("word ", 12) + "\n" + strings.Repeat("word ", 3) + "end"},
		{"a word longer than a row breaks between characters", strings.Repeat("x", 70), strings.Repeat("x", 60) + "\n" + strings.Repeat("x", 10)},
		{"a long word starts a row of its own", "ab " + strings.Repeat("x", 70),
			"ab \n" + strings.Repeat("x", 60) + "\n" + strings.Repeat("x", 10)},
		{"a key's fingerprint is not broken where a space is before it", "Allow use of key SHA256:" + strings.Repeat("Zq9", 15) + "?",
			"Allow use of key \nSHA256:" + strings.Repeat("Zq9", 15) + "?"},
		{"a marker is not broken", strings.Repeat("y", 50) + "\u200b\u200c\u200d\u2060" + strings.Repeat("z", 20),
			strings.Repeat("y", 50) + "\n⟨U+200B U+200C U+200D … ×4⟩" + strings.Repeat("z", 20)},
		{"wide characters take two columns", strings.Repeat("界", 31), strings.Repeat("界", 30) + "\n界"},
		{"invisible characters are one marker", "ls\u200b\u200b\u200b -l", "ls⟨U+200B ×3⟩ -l"},
		{"lines of invisible characters are padding", "ls" + strings.Repeat("\n\u200b", 300) + "\nrm", "ls\n⏎ ×301\nrm"},
		{"spaces and invisible characters are padding", "ls" + strings.Repeat(" \u200b", 200) + "rm", "ls⟨400 blanks⟩rm"},
		{"a stack of combining marks", "e" + strings.Repeat("\u0301", 50), "e\u0301\u0301\u0301\u0301⟨U+0301 ×46⟩"},
		{"an escape sequence shows as text", "\x1b[31mred", `\x1b[31mred`},
		{"an emoji sequence stays", "👩\u200d💻 ❤\ufe0f", "👩\u200d💻 ❤\ufe0f"},
		{"trailing newlines go", "ok\n\n", "ok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, whole := Fit(c.text, Screen)
			if got != c.want || !whole {
				t.Fatalf("Fit(%q) = %q, %v\nwant %q, true", c.text, got, whole, c.want)
			}
		})
	}
}

// A text cut to fit says how many characters are not shown, and keeps
// about two thirds of the rows for its head.
func TestFitCutsBetweenHeadAndTail(t *testing.T) {
	shown, whole := Fit(lines(5000), Screen)
	if whole {
		t.Fatal("5,000 lines shown whole")
	}
	checkFitted(t, shown, Screen)
	rows := strings.Split(shown, "\n")
	want := []string{tooLong, "", "line 1"}
	for i, w := range want {
		if rows[i] != w {
			t.Fatalf("row %d is %q, want %q:\n%s", i+1, rows[i], w, shown)
		}
	}
	if rows[len(rows)-1] != "line 5000" {
		t.Fatalf("the last row is %q", rows[len(rows)-1])
	}
	mark := -1
	for i, r := range rows {
		if strings.HasSuffix(r, "characters not shown …") {
			mark = i
		}
	}
	if mark < 0 {
		t.Fatalf("no line says what was left out:\n%s", shown)
	}
	headRows, tailRows := mark-2, len(rows)-mark-1
	if headRows < 2*tailRows-2 || headRows > 2*tailRows+2 {
		t.Errorf("%d rows of head and %d of tail", headRows, tailRows)
	}
	// What the person sees, plus what the line says, is the whole text.
	seen := strings.Join(rows[2:mark], "\n") + "\n" + strings.Join(rows[mark+1:], "\n")
	var n int
	if _, err := fmt.Sscanf(strings.ReplaceAll(rows[mark], ",", ""), "… %d characters not shown …", &n); err != nil {
		t.Fatalf("line %q: %v", rows[mark], err)
	}
	if total := utf8.RuneCountInString(lines(5000)); n+utf8.RuneCountInString(seen)-1 != total-2 {
		t.Errorf("%d characters said not shown and %d shown, of %d", n, utf8.RuneCountInString(seen), total)
	}
}

// A text a front end cut (Cut, a 100 KB command) and a surface cuts
// again says how much of the whole text is not shown, not how much of
// what the front end kept.
func TestFitCountsAnEarlierCut(t *testing.T) {
	text := strings.Repeat(strings.Repeat("z", 99)+"\n", 1000) + "tail"
	kept := Cut(text, 16<<10)
	if len(kept) > 16<<10 || !strings.HasSuffix(kept, "\ntail") {
		t.Fatalf("Cut kept %d bytes, ending %q", len(kept), kept[max(0, len(kept)-20):])
	}
	shown, whole := Fit(kept, Screen)
	if whole {
		t.Fatal("shown whole")
	}
	var left int
	for _, r := range strings.Split(shown, "\n") {
		if strings.HasPrefix(r, "… ") {
			if _, err := fmt.Sscanf(strings.ReplaceAll(r, ",", ""), "… %d characters not shown …", &left); err != nil {
				t.Fatalf("line %q: %v", r, err)
			}
		}
	}
	seen := 0
	for _, r := range strings.Split(shown, "\n") {
		if strings.Trim(r, "z") == "" && r != "" {
			seen += len(r)
		}
	}
	// Each line of z's ends in a line break, which counts as a character.
	if want := (99*1000 - seen) * 100 / 99; left < want-200 || left > want+200 {
		t.Errorf("%d characters said not shown; about %d of the z's and their line breaks were not", left, want)
	}
}

// On a phone (no columns, a limit of bytes) a single long line keeps its
// head and its tail.
func TestFitByBytes(t *testing.T) {
	text := "ls " + strings.Repeat("A", 6000) + " ; rm -rf ~/x"
	shown, whole := Fit(text, Phone)
	if whole {
		t.Fatal("shown whole")
	}
	checkFitted(t, shown, Phone)
	if !strings.HasPrefix(shown, tooLong+"\n\nls AAA") || !strings.HasSuffix(shown, "AAA ; rm -rf ~/x") {
		t.Fatalf("head or tail lost: %q…%q", shown[:80], shown[len(shown)-40:])
	}
}

// A narrow terminal still shows the first line, a head, the line of what
// was left out and the tail, whatever its size.
func TestFitNarrowTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {40, 24}, {30, 16}, {0, 0}} {
		s := Terminal(size[0], size[1])
		shown, _ := Fit(strings.Repeat("word ", 2000)+"TAIL", s)
		checkFitted(t, shown, s)
		if !strings.HasSuffix(shown, "TAIL") {
			t.Errorf("%dx%d: the tail is lost:\n%s", size[0], size[1], shown)
		}
	}
}

// The lines under a message (who asks) are counted in the room: the
// whole text keeps within the screen.
func TestShownKeepsTheOriginLineInTheRoom(t *testing.T) {
	r := Request{Message: lines(500), Origin: strings.Repeat("deploy.sh ", 20) + "in ~/src/app", Note: "Your answer counts as Alice's vote"}
	text, whole := r.Shown(Screen, time.Time{}, time.Time{})
	if whole {
		t.Fatal("500 lines shown whole")
	}
	checkFitted(t, text, Screen)
	if !strings.HasSuffix(text, "Your answer counts as Alice's vote") || !strings.Contains(text, "line 500\n\nAsked by deploy.sh") {
		t.Fatalf("the tail or the lines under it are lost:\n%s", text)
	}
}

// The count of what was left out is exact, whether the cut falls within a
// line that Fit broke into rows or between lines: what is shown and what
// the line says make up the text.
func TestFitCountIsExact(t *testing.T) {
	for _, text := range []string{
		"ls" + strings.Repeat("A", 3000) + " ; rm -rf ~/x",
		strings.Repeat("1234", 750),
		strings.Repeat("界", 3000),
		lines(500),
		"head\n" + strings.Repeat("B", 5000) + "\ntail",
	} {
		for _, s := range []Surface{Screen, Terminal(40, 24), Terminal(80, 10), Phone} {
			shown, whole := Fit(text, s)
			if whole {
				continue // the phone takes 3,000 characters on a line
			}
			rows := strings.Split(shown, "\n")[2:] // under the first line and the blank one
			var n, mark int
			for i, r := range rows {
				if _, err := fmt.Sscanf(strings.ReplaceAll(r, ",", ""), "… %d characters not shown …", &n); err == nil {
					mark = i
					break
				}
			}
			head, tail := strings.Join(rows[:mark], "\n"), strings.Join(rows[mark+1:], "\n")
			// Fit's own breaks are no characters: count the shown rows
			// without the breaks that fall within a line of the text.
			shownChars := utf8.RuneCountInString(strings.ReplaceAll(head, "\n", "")) + utf8.RuneCountInString(strings.ReplaceAll(tail, "\n", ""))
			textLines := strings.Count(text, "\n")
			all := utf8.RuneCountInString(strings.ReplaceAll(text, "\n", ""))
			// Line breaks of the text: those inside the shown parts are
			// shown as breaks, those in the middle are counted.
			if got := shownChars + n; got > all+textLines || got < all {
				t.Errorf("%.20q on %+v: %d shown and %d said not shown, of %d characters and %d line breaks", text, s, shownChars, n, all, textLines)
			}
			if !strings.Contains(text, "\n") && shownChars+n != all {
				t.Errorf("%.20q on %+v: %d shown and %d said not shown, of %d", text, s, shownChars, n, all)
			}
		}
	}
}
