package terminal

import (
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// timing is the prompt's rules of when a key is an answer, apart from
// reading keys and drawing: given each key and when it was read, it says
// what the prompt does with it.
//
//   - A key read before ready (the guard after the prompt appeared) was
//     not typed for it: no answer. A cancel then takes effect once ready
//     has passed. A line begun before ready is no answer up to and
//     including its Enter, or a "n" typed too soon would leave its Enter
//     to press the default.
//   - An Enter alone on its line answers with the default (button, option
//     or text), but only once settle has passed with no other key: a key
//     within settle of the one before starts a burst (a held key or a
//     paste), whose keys are no answer until the keyboard is quiet for
//     settle.
type timing struct {
	ready     time.Time // keys before it are no answer
	cancelled bool      // a cancel came; it takes effect at ready
	voided    bool      // the line was begun before ready: no answer to its Enter
	alone     bool      // nothing but Enter has been typed on this line
	burst     bool      // keys come within settle of each other
	lastKey   time.Time
	pending   *dialog.Answer // an Enter alone's answer, waiting for settle
	pendingAt time.Time
}

func newTiming(ready time.Time) *timing { return &timing{ready: ready, alone: true} }

// step is what the prompt does with one key.
type step int

const (
	stepIgnore   step = iota // no answer: typed too soon, or on a line begun too soon
	stepHeld                 // no answer: part of a burst; the prompt says keys were held
	stepVoid                 // no answer: on a line begun too soon, typed since; the prompt says so
	stepKey                  // the question takes it
	stepKeyAlone             // the question takes it, an Enter alone: its answer waits (wait)
)

// key says what k, read at at, does.
func (t *timing) key(k key, at time.Time) step {
	since := at.Sub(t.lastKey)
	t.lastKey = at
	if at.Before(t.ready) || t.cancelled {
		t.cancelled = t.cancelled || k.kind == keyCancel
		// A line ended within the guard is gone whole; one still open
		// when it passes is void up to its Enter.
		t.voided = k.kind != keyEnter && (t.voided || k.kind != keyCancel)
		return stepIgnore
	}
	if t.voided {
		// The rest of a line begun too soon, to its Enter.
		t.voided = k.kind != keyEnter
		t.cancelled = k.kind == keyCancel
		return stepVoid
	}
	if t.pending != nil {
		// Another key came within settle of an Enter alone.
		t.pending, t.burst = nil, true
	}
	if t.burst && since < settle {
		t.cancelled = k.kind == keyCancel
		return stepHeld
	}
	t.burst = false
	wasAlone := t.alone && k.kind == keyEnter
	t.alone = k.kind == keyEnter
	switch {
	case wasAlone && since < settle:
		t.burst = true
		return stepHeld
	case wasAlone:
		return stepKeyAlone
	}
	return stepKey
}

// wait keeps ans, an Enter alone's answer read at at, until settle has
// passed with no other key.
func (t *timing) wait(ans dialog.Answer, at time.Time) { t.pending, t.pendingAt = &ans, at }

// settled returns the waiting answer once settle has passed at at.
func (t *timing) settled(at time.Time) (dialog.Answer, bool) {
	if t.pending == nil || at.Sub(t.pendingAt) < settle {
		return dialog.Answer{}, false
	}
	return *t.pending, true
}

// cancelDue reports whether a cancel has come and takes effect at now.
func (t *timing) cancelDue(now time.Time) bool { return t.cancelled && !now.Before(t.ready) }
