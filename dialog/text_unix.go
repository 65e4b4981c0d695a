//go:build !windows && !darwin

package dialog

import "strings"

// On Linux and the BSDs the dialog program is GNOME zenity (or qarma or
// matedialog), which passes the text of a list through Pango markup and the
// text of both a list and an entry through g_strcompress, which reads
// backslash escapes. These undo both, so the text shows as itself.

// listText is s as the --text of a zenity list.
func listText(s string) string {
	return markupEscaper.Replace(s)
}

// entryText is s as the --text of a zenity entry: no markup, but escapes.
func entryText(s string) string {
	return strings.ReplaceAll(s, `\`, `\\`)
}

var markupEscaper = strings.NewReplacer(`\`, `\\`, "&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
