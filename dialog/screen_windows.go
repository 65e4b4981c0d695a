package dialog

// Screen is a Windows message box as Fit fits text to it. The message
// box wraps its text again, at its own width, and never scrolls: under
// Wine it wrapped every row wider than about 257 pixels, and a line the
// width of GTK's 60 columns took three. 24 columns of the widest letters
// stay within that width, so no row is wrapped again and the rows Fit
// counts are the rows the box shows; 32 of them are about 400 pixels,
// with the buttons under them, on a screen of 1024 by 768.
var Screen = Surface{Columns: 24, Rows: 32}
