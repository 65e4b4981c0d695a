package terminal

import (
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// Each case types keys at times after the prompt appeared (the guard is
// 300 ms) and says what the prompt does with each.
func TestTimingTable(t *testing.T) {
	const guard = 300 * time.Millisecond
	r := func(c rune) key { return key{kind: keyRune, r: c} }
	enter, cancel := key{kind: keyEnter}, key{kind: keyCancel}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type typed struct {
		k    key
		at   time.Duration
		want step
	}
	for _, c := range []struct {
		name  string
		keys  []typed
		later time.Duration // when to ask about a due cancel and a settled answer
		due   bool          // a cancel takes effect then
		ready bool          // an Enter alone's answer is settled then
	}{
		{"a key after the guard is the question's", []typed{{r('y'), ms(500), stepKey}, {enter, ms(1500), stepKey}}, ms(1600), false, false},
		{"a key within the guard is no answer", []typed{{r('y'), ms(100), stepIgnore}}, ms(400), false, false},
		{"a line begun within the guard is void up to its Enter", []typed{{r('n'), ms(100), stepIgnore}, {enter, ms(900), stepVoid}, {r('y'), ms(1700), stepKey}}, ms(1800), false, false},
		{"keys after the guard on a line begun within it are void, and said so", []typed{{r('y'), ms(200), stepIgnore}, {r('y'), ms(1200), stepVoid}, {r('e'), ms(1210), stepVoid}, {enter, ms(1250), stepVoid}, {r('y'), ms(2000), stepKey}}, ms(2100), false, false},
		{"a line ended within the guard is gone whole", []typed{{r('n'), ms(50), stepIgnore}, {enter, ms(100), stepIgnore}, {enter, ms(900), stepKeyAlone}}, ms(1600), false, true},
		{"a cancel within the guard takes effect when it passes", []typed{{cancel, ms(100), stepIgnore}, {r('y'), ms(500), stepIgnore}}, ms(400), true, false},
		{"a cancel within the guard is not due before it passes", []typed{{cancel, ms(100), stepIgnore}}, ms(200), false, false},
		{"an Enter alone waits for settle", []typed{{enter, ms(1000), stepKeyAlone}}, ms(1000) + settle, false, true},
		{"an Enter alone is not settled before settle", []typed{{enter, ms(1000), stepKeyAlone}}, ms(1000) + settle - time.Millisecond, false, false},
		{"a key within settle of an Enter alone makes a burst", []typed{{enter, ms(1000), stepKeyAlone}, {enter, ms(1100), stepHeld}, {enter, ms(1200), stepHeld}}, ms(3000), false, false},
		{"a burst ends when the keyboard is quiet for settle", []typed{{enter, ms(1000), stepKeyAlone}, {enter, ms(1100), stepHeld}, {r('y'), ms(1100) + settle, stepKey}}, ms(3000), false, false},
		{"Enter alone twice within settle is held", []typed{{r('x'), ms(500), stepKey}, {enter, ms(1000), stepKey}, {enter, ms(1100), stepHeld}}, ms(3000), false, false},
		{"a cancel in a burst takes effect at once", []typed{{enter, ms(1000), stepKeyAlone}, {cancel, ms(1100), stepHeld}}, ms(1200), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Unix(1000, 0)
			tm := newTiming(start.Add(guard))
			for i, k := range c.keys {
				at := start.Add(k.at)
				got := tm.key(k.k, at)
				if got != k.want {
					t.Fatalf("key %d (%v at %s): step %d, want %d", i, k.k, k.at, got, k.want)
				}
				if got == stepKeyAlone {
					tm.wait(dialogAnswer(), at)
				}
			}
			if got := tm.cancelDue(start.Add(c.later)); got != c.due {
				t.Fatalf("cancel due at %s: %v, want %v", c.later, got, c.due)
			}
			if _, got := tm.settled(start.Add(c.later)); got != c.ready {
				t.Fatalf("settled at %s: %v, want %v", c.later, got, c.ready)
			}
		})
	}
}

func dialogAnswer() dialog.Answer { return dialog.Answer{Approved: true} }
