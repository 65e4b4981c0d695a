package dialog

// Screen is a Windows message box as Fit fits text to it. The message
// box wraps its text again, at its own width, and never scrolls: under
// Wine (8.0, its Tahoma, 8 points) it wraps every row wider than 264
// pixels, even one without spaces, or keeps it whole and gives it two
// lines, so a line the width of GTK's 60 columns took three. The widest
// ASCII character there is % (12 pixels; W and @ are 10): 22 of
// them are 264 pixels, and 23 took two lines each. So at 22 columns no
// row is wrapped again and the rows Fit counts are the lines the box
// shows (a character of CJK, two columns, is 11 pixels); 32 of them are
// 416 pixels, and the window about 490, with the buttons under them, on
// a screen of 1024 by 768. Rarer characters are wider still, and their
// rows still take two lines (32 rows of ‰, 15 pixels, made a window 764
// pixels high; of a cuneiform sign, 22 pixels, 777).
var Screen = Surface{Columns: 22, Rows: 32}
