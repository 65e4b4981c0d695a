package dialog

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has installed
)

// A time names its day whenever the day is not the reader's: across
// midnight, across a year's end, across a change to and from daylight
// saving time, and in a zone where midnight is not UTC's. Every time here
// is the test's own; none is read from the clock.
func TestClockNamesTheDayWhenItIsNotTheReaders(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	kolkata := time.FixedZone("IST", 5*3600+30*60)
	at := func(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
		return time.Date(y, m, d, h, min, 0, 0, loc)
	}
	cases := []struct {
		name    string
		t, now  time.Time
		clock   string
		seconds string
	}{
		{"same day", at(time.UTC, 2026, 11, 26, 14, 5), at(time.UTC, 2026, 11, 26, 13, 0), "14:05", "14:05:00"},
		{"asked at 00:20 for 24h: closes at the same time the next day",
			at(berlin, 2026, 11, 27, 0, 20), at(berlin, 2026, 11, 26, 0, 20), "00:20 on Fri 27 Nov", "00:20:00 on Fri 27 Nov"},
		{"a minute past midnight", at(berlin, 2026, 11, 27, 0, 1), at(berlin, 2026, 11, 26, 23, 59), "00:01 on Fri 27 Nov", "00:01:00 on Fri 27 Nov"},
		{"in the past, yesterday", at(berlin, 2026, 11, 25, 23, 59), at(berlin, 2026, 11, 26, 0, 1), "23:59 on Wed 25 Nov", "23:59:00 on Wed 25 Nov"},
		{"a week ahead", at(time.UTC, 2026, 12, 3, 9, 0), at(time.UTC, 2026, 11, 26, 9, 0), "09:00 on Thu 3 Dec", "09:00:00 on Thu 3 Dec"},
		{"next year", at(time.UTC, 2027, 1, 1, 0, 20), at(time.UTC, 2026, 12, 31, 23, 50), "00:20 on Fri 1 Jan 2027", "00:20:00 on Fri 1 Jan 2027"},
		// Europe's clocks go back at 03:00 on 25 Oct 2026: the day after
		// 00:30 is 24 hours and 1 hour away, and still one day later.
		{"across the end of summer time", at(berlin, 2026, 10, 26, 0, 30), at(berlin, 2026, 10, 25, 0, 30), "00:30 on Mon 26 Oct", "00:30:00 on Mon 26 Oct"},
		// America's clocks go forward at 02:00 on 8 Mar 2026: 23:30 is
		// 22 hours and 30 minutes after 00:00 that day, and the same day.
		{"across the start of summer time, same day", at(newYork, 2026, 3, 8, 23, 30), at(newYork, 2026, 3, 8, 0, 0), "23:30", "23:30:00"},
		{"across the start of summer time, next day", at(newYork, 2026, 3, 9, 0, 10), at(newYork, 2026, 3, 8, 1, 50), "00:10 on Mon 9 Mar", "00:10:00 on Mon 9 Mar"},
		// The day is the reader's in t's zone: 01:00 in Kolkata is
		// still the evening before in UTC.
		{"the reader's zone decides the day", at(kolkata, 2026, 11, 27, 1, 0), at(time.UTC, 2026, 11, 26, 19, 0), "01:00", "01:00:00"},
		{"the reader's zone decides the day, other way", at(kolkata, 2026, 11, 27, 4, 0), at(time.UTC, 2026, 11, 26, 18, 0), "04:00 on Fri 27 Nov", "04:00:00 on Fri 27 Nov"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Clock(c.t, c.now); got != c.clock {
				t.Errorf("Clock = %q, want %q", got, c.clock)
			}
			if got := ClockSeconds(c.t, c.now); got != c.seconds {
				t.Errorf("ClockSeconds = %q, want %q", got, c.seconds)
			}
		})
	}
}
