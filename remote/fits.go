package remote

import (
	"errors"
	"fmt"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// ErrNotForPhone is returned by Ask (and Fits) for a request the phone
// cannot answer with its buttons.
var ErrNotForPhone = errors.New("not sent to the phone, whose buttons answer only a yes-or-no question or a choice of at most three options")

// Fits reports whether r can be asked on the phone: a confirmation, or a
// choice of one among at most three options with no answer of the
// person's own. Anything else is ErrNotForPhone, wrapped with why.
func Fits(r dialog.Request) error {
	switch {
	case r.Kind == dialog.Confirm:
		return nil
	case r.Kind == dialog.Input:
		return fmt.Errorf("%w: this one asks for text", ErrNotForPhone)
	case r.Kind != dialog.Choose:
		return fmt.Errorf("%w: %q is no kind it knows", ErrNotForPhone, r.Kind)
	case r.Multiple:
		return fmt.Errorf("%w: this one takes several options", ErrNotForPhone)
	case r.Other:
		return fmt.Errorf("%w: this one takes an answer of the person's own", ErrNotForPhone)
	case len(r.Options) > MaxActions:
		return fmt.Errorf("%w: this one has %d options", ErrNotForPhone, len(r.Options))
	}
	return nil
}

// MaxActions is how many buttons ntfy shows on one message.
const MaxActions = 3

// ReplyForAnother is why a phone's reply answered nothing when it was a
// tap for another request: all requests share one reply topic, so it is
// no forgery, and the history counts such replies apart.
const ReplyForAnother = "a reply for another request"
