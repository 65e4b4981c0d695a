package terminal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rivo/uniseg"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// The prompt line at 40, 80 and 120 columns, with long and wide labels,
// notes and typed text: no row reaches the last column (so a redraw never
// leaves a wrapped copy behind), the prompt and the note are shown whole
// (what each key does never scrolls out of view), and the end of what is
// typed is where the cursor is.
func TestLayout(t *testing.T) {
	long := confirmRequest()
	long.OKLabel = "Deploy everything to production now and restart every worker"
	long.CancelLabel = "Do not deploy anything and roll back the staging env too"
	wide := confirmRequest()
	wide.OKLabel, wide.CancelLabel = "本番環境にすべてをデプロイして再起動する", "何もデプロイせずにステージングを戻す"
	wideFor := wide
	wideFor.ApproveFor = time.Hour
	many := chooseRequest()
	many.Options = append(many.Options, dialog.Option{Label: "eu"})
	many.Multiple = true
	input := inputRequest()
	input.OKLabel, input.CancelLabel = "送信する", "やめる"

	type setup struct {
		name  string
		r     dialog.Request
		note  string
		typed string
	}
	setups := []setup{
		{"long labels", long, "", ""},
		{"long labels, typed", long, "", "yes"},
		{"wide labels", wide, "", ""},
		{"wide labels with approve-for", wideFor, "", "a"},
		{"wide typing into ASCII labels", confirmRequest(), "", "はいはい"},
		{"choose several, refused", many, fmt.Sprintf(noteNotAnOption, "x", 4), ""},
		{"held keys", confirmRequest(), noteHeld, ""},
		{"held keys, wide labels", wide, noteHeld, ""},
		{"bad text", input, fmt.Sprintf(noteBadText, "it holds U+200B"), ""},
		{"long input", input, "", strings.Repeat("入力", 300) + "END"},
	}
	for _, width := range []int{40, 80, 120} {
		for _, c := range setups {
			t.Run(fmt.Sprintf("%d/%s", width, c.name), func(t *testing.T) {
				q := newQuestion(c.r)
				q.note, q.typed = c.note, []rune(c.typed)
				rows := q.rows(-1, width)
				for i, r := range rows {
					if w := uniseg.StringWidth(r); w >= width {
						t.Errorf("row %d takes %d of %d columns: %q", i, w, width, r)
					}
				}
				// Rows break between words, or within a word wider than a row.
				bare := strings.NewReplacer(" ", "", "…", "")
				shown, want := bare.Replace(strings.Join(rows, "")), bare.Replace(c.note+q.prompt())
				if !strings.HasPrefix(shown, want) {
					t.Errorf("the note and prompt are not shown whole:\n%q\nwant them to start with\n%q", rows, want)
				}
				end := c.typed
				if len(end) > 10 {
					end = end[len(end)-10:]
				}
				if !strings.HasSuffix(rows[len(rows)-1], end) {
					t.Errorf("the last row %q does not end in what was typed", rows[len(rows)-1])
				}
				checkInert(t, strings.Join(rows, newline))
			})
		}
	}
}

// A few layouts written out whole.
func TestLayoutRows(t *testing.T) {
	cases := []struct {
		prompt, typed string
		width         int
		want          []string
	}{
		{"> ", "abc", 10, []string{"> abc"}},
		{"Approve (y) or Cancel (n)? [y/N] ", "y", 20, []string{"Approve (y) or", "Cancel (n)? [y/N] y"}},
		{"prompt: ", strings.Repeat("x", 30) + "END", 30, []string{"prompt: …" + strings.Repeat("x", 17) + "END"}},
		{"a long prompt that fills the line: ", "typed", 20, []string{"a long prompt that", "fills the line: ", "typed"}},
		{"短い？ [y/N] ", "はい", 12, []string{"短い？", "[y/N] はい"}},
		{"[y/N] ", "あいうえおかきくけこ", 12, []string{"[y/N] ", "…かきくけこ"}},
		{"> ", "abc", 0, []string{"> abc"}},
		{"Café? ", "e\u0301e\u0301e\u0301", 10, []string{"Café? e\u0301e\u0301e\u0301"}},
		{"OK? ", "👍👍👍👍", 10, []string{"OK? ", "👍👍👍👍"}},
		{"Averyveryverylongword ok", "", 10, []string{"Averyvery", "verylongw", "ord ok"}},
	}
	for _, c := range cases {
		got := layout(c.prompt, c.typed, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("layout(%q, %q, %d) = %q, want %q", c.prompt, c.typed, c.width, got, c.want)
		}
	}
}

// Redrawing moves up over the rows drawn last, as many as they take now:
// rows drawn at 120 columns and reflowed at 40 take more.
func TestScreenRedraw(t *testing.T) {
	var s screen
	if got := s.draw([]string{"a", "b"}, 80); got != "\r"+clearToEnd+"a\r\nb" {
		t.Errorf("first draw %q", got)
	}
	if got := s.draw([]string{"a", "b"}, 80); got != "" {
		t.Errorf("the same rows drawn again: %q", got)
	}
	if got := s.draw([]string{"c"}, 80); got != "\r"+cursorUp+clearToEnd+"c" {
		t.Errorf("two rows replaced by one: %q", got)
	}
	s.rows = []string{strings.Repeat("x", 100)}
	if got := s.draw([]string{"d"}, 40); got != "\r"+cursorUp+cursorUp+clearToEnd+"d" {
		t.Errorf("a row of 100 columns at 40: %q", got)
	}
}
