//go:build e2e && unix

package ntfy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// How a request ended on one machine reaches the fleet's others: an answer
// given in a dialog or at a terminal, a cancel, a supersede; and the
// phone's follow-up is sent once per request, whoever is left to send it.

// askEnding asks r on m until ended is called with how the request ended
// there, as a holder ends its phone's ask (dialog.Closed).
func askEnding(t *testing.T, m *machine, r dialog.Request) (a *asking, ended context.CancelCauseFunc) {
	ctx, stop := context.WithTimeout(context.Background(), time.Hour)
	t.Cleanup(stop)
	ctx, end := context.WithCancelCause(ctx)
	a = ask(ctx, m.Backend, r)
	m.asking = a
	return a, end
}

// endedAs reports whether err is the fleet's word that the request ended
// as status on another machine.
func endedAs(err error, status string) bool {
	var ended *remote.EndedError
	return errors.As(err, &ended) && ended.Status == status
}

// awaitFollowUps waits until the phone received want messages, then a
// second more, and fails where it received another number.
func awaitFollowUps(t *testing.T, phone *ntfytest.Phone, want int) ntfytest.Message {
	t.Helper()
	last := phone.Await(want)
	time.Sleep(time.Second)
	if n := phone.Count(); n != want {
		t.Fatalf("the phone received %d messages, want %d", n, want)
	}
	return last
}

// An answer given in the dialog on the machine that asked reaches the
// machine that joined, and a machine that never asked collects it; one
// that a joined machine gave reaches the asker. The phone is followed up
// once each time.
func TestFleetAnswerGivenElsewhere(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Deploy from the laptop?")
	r.Key = "answered-here"

	asker := newMachine(c, 15*time.Minute)
	a, answered := askEnding(t, asker, r)
	phone.Await(1)
	asker.awaitSent(t)
	joiner := newMachine(c, 15*time.Minute)
	askFor(joiner, r)
	joiner.awaitSent(t)
	answered(&dialog.Closed{What: "Approved in the dialog", Status: "approved", Answer: &dialog.Answer{Approved: true}})
	a.wait(t)
	if ans, err := joiner.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the machine that joined: %+v %v, want the approval given in the other's dialog", ans, err)
	}
	// The asker took it: a machine that never asked collects it within
	// --remember.
	late := newMachine(c, 15*time.Minute)
	late.Remember = time.Minute
	if ans, err := askFor(late, r).wait(t); err != nil || !ans.Approved {
		t.Fatalf("a machine that never asked: %+v %v, want the approval collected", ans, err)
	}
	if f := awaitFollowUps(t, phone, 2); !strings.HasPrefix(f.Message, "Approved in the dialog at ") {
		t.Fatalf("follow-up %q", f.Message)
	}

	// Denied in the dialog of the machine that joined.
	r.Key = "answered-there"
	asker = newMachine(c, 15*time.Minute)
	askFor(asker, r)
	phone.Await(3)
	asker.awaitSent(t)
	joiner = newMachine(c, 15*time.Minute)
	j, answered := askEnding(t, joiner, r)
	joiner.awaitSent(t)
	answered(&dialog.Closed{What: "Denied in the dialog", Status: "denied", Answer: &dialog.Answer{}})
	if ans, err := asker.wait(t); err != nil || ans.Approved {
		t.Fatalf("the asker: %+v %v, want the deny given on the other machine", ans, err)
	}
	j.wait(t)
	if f := awaitFollowUps(t, phone, 4); !strings.HasPrefix(f.Message, "Denied on another machine at ") {
		t.Fatalf("follow-up %q", f.Message)
	}
}

// ask-confirm cancel on a machine that joined ends the request on every
// machine as cancelled, not as ended (which asks anew); the phone is
// followed up once; a tap on the cancelled request answers nothing. A
// machine asking the same question after ends cancelled within the time
// it collects the fleet's outcomes (a re-run of a cancelled job exits 1),
// and asks anew after it.
func TestFleetCancelReachesEveryMachine(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Drop the staging database?")
	r.Key = "drop-staging"

	asker := newMachine(c, 15*time.Minute)
	askFor(asker, r)
	old := phone.Await(1)
	asker.awaitSent(t)
	canceller, third := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
	x, cancelled := askEnding(t, canceller, r)
	canceller.awaitSent(t)
	askFor(third, r)
	third.awaitSent(t)
	cancelled(&dialog.Closed{What: "This request was cancelled", Status: "cancelled"})
	for name, m := range map[string]*machine{"the asker": asker, "a third machine": third} {
		if _, err := m.wait(t); !endedAs(err, remote.EndedCancelled) {
			t.Fatalf("%s: %v, want the request cancelled", name, err)
		}
	}
	x.wait(t)
	if f := awaitFollowUps(t, phone, 2); !strings.HasPrefix(f.Message, "This request was cancelled") {
		t.Fatalf("follow-up %q", f.Message)
	}

	phone.Tap(old, "Approve")
	rerun := newMachine(c, 15*time.Minute)
	askFor(rerun, r)
	if _, err := rerun.wait(t); !endedAs(err, remote.EndedCancelled) {
		t.Fatalf("a re-run after the cancel: %v, want the request cancelled", err)
	}
	oldTapAnswersNothing(t, phone, newMachine(c, 0), r, old, 3)
}

// A new question under the same key, from a machine that never asked,
// supersedes the open one on every machine that waits for it; a tap on
// the superseded request answers nothing.
func TestFleetSupersedeReachesEveryMachine(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Release v1.2?")
	r.Key = "release"

	asker, joiner := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
	askFor(asker, r)
	old := phone.Await(1)
	asker.awaitSent(t)
	askFor(joiner, r)
	joiner.awaitSent(t)
	newer := r
	newer.Message = "Release v1.3?"
	other := newMachine(c, 15*time.Minute)
	b := askFor(other, newer)
	for name, m := range map[string]*machine{"the asker": asker, "the machine that joined": joiner} {
		if _, err := m.wait(t); !endedAs(err, remote.EndedSuperseded) {
			t.Fatalf("%s: %v, want the request superseded", name, err)
		}
	}
	m := phone.AwaitFirst(2, "Release v1.3?")
	if len(m.Actions) == 0 {
		t.Fatalf("the newer question is not on the phone: %q", m.Message)
	}
	phone.Tap(old, "Approve")
	time.Sleep(2 * time.Second)
	select {
	case <-b.done:
		t.Fatalf("a tap on the superseded request answered the newer one: %+v %v", b.ans, b.err)
	default:
	}
	phone.Tap(m, "Approve")
	if ans, err := b.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the newer request: %+v %v", ans, err)
	}
	if f := phone.AwaitFirst(3, "This request was replaced"); f.Message == "" {
		t.Fatal("the superseded request was not followed up")
	}
}

// The machine that put the request on the phone is gone (its holder
// killed: the phone program's caller gone); of the two machines that
// joined it and take the tap, one follows the phone up, once.
func TestFleetFollowUpOnceWhenTheAskerIsGone(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Run the migration?")
	r.Key = "migrate-once"

	asker := newMachine(c, 15*time.Minute)
	a, killed := askEnding(t, asker, r)
	m := phone.Await(1)
	asker.awaitSent(t)
	joiners := []*machine{newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)}
	for _, j := range joiners {
		askFor(j, r)
		j.awaitSent(t)
	}
	asker.dead.Store(true)
	killed(errCallerGone)
	<-a.done
	phone.Tap(m, "Approve")
	for i, j := range joiners {
		if ans, err := j.wait(t); err != nil || !ans.Approved {
			t.Fatalf("machine %d: %+v %v", i+2, ans, err)
		}
	}
	if f := awaitFollowUps(t, phone, 2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("follow-up %q", f.Message)
	}
}

// A tap given after the request closed answers nothing, also where the
// machine that asked died before (no end recorded): a machine asking the
// same question afterwards asks anew.
func TestFleetTapAfterExpiryAnswersNothing(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Rotate the certificate?")
	r.Key = "rotate-cert"

	asker := newMachine(c, 15*time.Minute)
	closes := time.Now().Add(3 * time.Second)
	ctx, stop := context.WithDeadline(context.Background(), closes)
	defer stop()
	ctx, killed := context.WithCancelCause(ctx)
	a := ask(ctx, asker.Backend, r)
	asker.asking = a
	old := phone.Await(1)
	asker.awaitSent(t)
	asker.dead.Store(true)
	killed(errCallerGone)
	<-a.done
	// The server's clock is this machine's: past the request's closing
	// second.
	time.Sleep(time.Until(closes.Truncate(time.Second).Add(1100 * time.Millisecond)))
	phone.Tap(old, "Approve")
	b := askFor(newMachine(c, 15*time.Minute), r)
	m := phone.Await(2)
	if len(m.Actions) == 0 {
		t.Fatalf("the second message is %q, want a new request", m.Message)
	}
	select {
	case <-b.done:
		t.Fatalf("a tap after the request closed answered the new one: %+v %v", b.ans, b.err)
	case <-time.After(2 * time.Second):
	}
	phone.Tap(m, "Cancel")
	if ans, err := b.wait(t); err != nil || ans.Approved {
		t.Fatalf("the new request: %+v %v, want the deny tapped", ans, err)
	}
}

// An answer given in a dialog and a tap of the other button on the phone
// within one second of the server's: the machine that joined, and one
// that collects after, deny, as for two taps in one second.
func TestFleetDialogAndPhoneInOneSecondDeny(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Force-push main?")
	r.Key = "force-push"
	asker := newMachine(c, 15*time.Minute)
	a, answered := askEnding(t, asker, r)
	m := phone.Await(1)
	asker.awaitSent(t)
	joiner := newMachine(c, 15*time.Minute)
	j := askFor(joiner, r)
	joiner.awaitSent(t)
	time.Sleep(ntfytest.ReadingTime)
	// Both early in one second of the server's, which runs on this
	// machine's clock.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	answered(&dialog.Closed{What: "Approved in the dialog", Status: "approved", Answer: &dialog.Answer{Approved: true}})
	phone.Tap(m, "Cancel")
	a.wait(t)
	if ans, err := j.wait(t); err != nil || ans.Approved {
		t.Fatalf("the machine that joined: %+v %v, want a deny", ans, err)
	}
	late := newMachine(c, 15*time.Minute)
	late.Remember = time.Minute
	if ans, err := askFor(late, r).wait(t); err != nil || ans.Approved {
		t.Fatalf("a machine that collects after: %+v %v, want a deny", ans, err)
	}
}
