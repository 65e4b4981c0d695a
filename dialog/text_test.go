//go:build !windows && !darwin

package dialog

import "testing"

// GNOME zenity reads a list's text as Pango markup and both a list's and an
// entry's text through g_strcompress: the escapes undo both.
func TestZenityTextEscapes(t *testing.T) {
	for _, c := range []struct{ in, list, entry string }{
		{"plain", "plain", "plain"},
		{`<b>x</b> & "y" 'z'`, `&lt;b&gt;x&lt;/b&gt; &amp; &quot;y&quot; &#39;z&#39;`, `<b>x</b> & "y" 'z'`},
		{`a\nb \t \\ \`, `a\\nb \\t \\\\ \\`, `a\\nb \\t \\\\ \\`},
		{"&amp;", "&amp;amp;", "&amp;"},
		{"line\nbreak", "line\nbreak", "line\nbreak"},
	} {
		if got := listText(c.in); got != c.list {
			t.Errorf("listText(%q) = %q, want %q", c.in, got, c.list)
		}
		if got := entryText(c.in); got != c.entry {
			t.Errorf("entryText(%q) = %q, want %q", c.in, got, c.entry)
		}
	}
}
