//go:build !windows

package dialog

// Screen is a dialog window on a screen of 1024 by 768 pixels, the
// smallest that ask-confirm fits, as GNOME zenity (shown with --no-wrap,
// so that Fit breaks the lines) and macOS's alert draw it: 60 columns are
// at most about 860 pixels of the widest letters (W) in GTK's default
// font, with the icon and the margins beside them; 30 rows are about 580
// pixels, with the buttons under them (both measured under Xvfb, and
// read back from the screen by the tests). What else the window says
// (the origin line, a note) is counted in the 30.
var Screen = Surface{Columns: 60, Rows: 30}
