package dialog

import "time"

// Clock and ClockSeconds say when t is to a person who reads it at now:
// the time of day alone ("14:05") when t falls on now's calendar day, else
// the time and the day ("00:20 on Sat 28 Nov"), and the year too when it
// is not now's ("00:20 on Fri 1 Jan 2027"). Both are read in t's location:
// callers pass t.Local() for what a person on this machine reads.
//
// The day is named, never "tomorrow": a dialog, a phone's notification or
// a follow-up is read some time after it was written, and "tomorrow" read
// after midnight points at the wrong day. The time of day alone would read
// as closing now for a request asked at 00:20 that closes at 00:20 a day
// later. The day is compared on the calendar, not as 24 hours, so a change
// to or from daylight saving time moves nothing.
func Clock(t, now time.Time) string { return when(t, now, "15:04") }

// ClockSeconds is Clock with the seconds, for a line that counts down.
func ClockSeconds(t, now time.Time) string { return when(t, now, "15:04:05") }

func when(t, now time.Time, clock string) string {
	now = now.In(t.Location())
	ty, tm, td := t.Date()
	ny, nm, nd := now.Date()
	switch {
	case ty == ny && tm == nm && td == nd:
		return t.Format(clock)
	case ty == ny:
		return t.Format(clock + " on Mon 2 Jan")
	default:
		return t.Format(clock + " on Mon 2 Jan 2006")
	}
}
