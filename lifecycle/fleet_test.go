//go:build unix

package lifecycle

import (
	"errors"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// A request that the fleet ended on another machine, as the phone says
// (remote.EndedError), ends so here, beside a way still asking: cancelled
// is a deny (exit 1), superseded exit 7; the way still asking is told so,
// and the phone is not recorded as failed.
func TestFleetEndedElsewhere(t *testing.T) {
	for _, tc := range []struct {
		status string
		exit   ExitCode
		want   store.Status
		told   string
	}{
		{remote.EndedCancelled, ExitDenied, store.Cancelled, closedCancelled},
		{remote.EndedSuperseded, ExitSuperseded, store.Superseded, closedSuperseded},
	} {
		t.Run(tc.status, func(t *testing.T) {
			te := newTestEngine(t)
			te.headlessSession()
			te.setPhone("also")
			phone := newCauseBackend(te)
			te.phone = func(remote.Config, PhoneReports) dialog.Backend { return phone }
			ch := newCauseBackend(te)
			c := channelCall(te, ch.channelBackend)
			c.Channel.Backend = ch
			go func() {
				<-phone.asked
				<-ch.asked
				phone.answers <- channelAnswer{err: &remote.EndedError{Status: tc.status}}
			}()
			r := te.ask(c)
			te.Drain()
			if r.ExitCode != tc.exit {
				t.Fatalf("the fleet's %s: %+v, want exit %d", tc.status, r, tc.exit)
			}
			if rec := te.record(r.Key); rec.Status != tc.want {
				t.Fatalf("recorded %s, want %s", rec.Status, tc.want)
			}
			if got := ch.told(t); got != tc.told {
				t.Fatalf("the channel was told %q, want %q", got, tc.told)
			}
			if kinds := te.events(r.Key); strings.Contains(strings.Join(kinds, " "), "way-failed") {
				t.Fatalf("the fleet's end was recorded as the phone's failure: %v", kinds)
			}
		})
	}
}

// The phone learns how the request ended, as a status, and an answer
// given by another way, which the fleet's other machines are told of.
func TestClosedCauseOutcome(t *testing.T) {
	var closed *dialog.Closed
	if !errors.As(closedCause(store.Record{Status: store.Approved, Kind: dialog.Choose, Answers: []string{"blue"}}, wayPhone), &closed) {
		t.Fatal("no dialog.Closed")
	}
	if closed.Status != "approved" || closed.Answer == nil || !closed.Answer.Approved || len(closed.Answer.Values) != 1 || closed.Answer.Values[0] != "blue" {
		t.Fatalf("a choice answered in the dialog, told the phone: %+v %+v", closed, closed.Answer)
	}
	if !errors.As(closedCause(store.Record{Status: store.Denied, AnsweredBy: wayPhone}, wayPhone), &closed) || closed.Answer != nil || closed.Status != "denied" {
		t.Fatalf("the phone's own deny, told the phone: %+v", closed)
	}
	if !errors.As(closedCause(store.Record{Status: store.Cancelled}, wayPhone), &closed) || closed.Status != "cancelled" || closed.Answer != nil {
		t.Fatalf("a cancel, told the phone: %+v", closed)
	}
}
