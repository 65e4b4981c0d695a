package ntfy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// finishLimit bounds the follow-ups' sending once the request has ended.
const finishLimit = 15 * time.Second

// Main is the program remote.Program, which the front ends run to reach the
// ntfy server (remote.Backend, remote.Verify), and returns its exit code:
//
//	ask-confirm-phone ask      reads remote.AskStart, then remote.AskEnd; writes remote.AskEvent lines
//	ask-confirm-phone verify   reads remote.VerifyArgs; writes the []remote.Finding
//	ask-confirm-phone hub      reads remote.Config; relays its reply topic to the asks (hub.go)
//	ask-confirm-phone cancel   reads remote.CancelArgs; cancels the key's requests fleet-wide (remote.CancelOnFleet)
//	ask-confirm-phone revoke   reads remote.RevokeArgs; voids a person's buttons fleet-wide (remote.RevokeOnFleet)
//
// Everything it is told comes on stdin, as JSON, so that the tokens never
// show in the process list.
func Main() int {
	// Told by its caller when to end, never by the caller's terminal: a
	// Ctrl-C or a hang-up reaches the whole process group, and the phone's
	// follow-up must still go out. A caller gone is an end of stdin, and a
	// write to it must not kill the program before the follow-up either.
	signal.Ignore(os.Interrupt, syscall.SIGHUP, syscall.SIGPIPE)
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "ask":
			return serveAsk(os.Stdin, os.Stdout)
		case "verify":
			return serveVerify(os.Stdin, os.Stdout)
		case "hub":
			return serveHub(os.Stdin)
		case "cancel":
			return serveCancel(os.Stdin, os.Stdout)
		case "revoke":
			return serveRevoke(os.Stdin, os.Stdout)
		}
	}
	fmt.Fprintf(os.Stderr, "%s is run by ask-confirm to reach the phone's ntfy server: %s ask|verify|hub|cancel|revoke, with JSON on stdin\n", remote.Program, remote.Program)
	return 2
}

// serveAsk asks the request of in's first line on the phone, reports on
// out, and, once in says the request ended (or ends), sends the phone's
// follow-up and reports that it is done.
func serveAsk(in io.Reader, out io.Writer) int {
	dec := json.NewDecoder(in)
	var start remote.AskStart
	if err := dec.Decode(&start); err != nil {
		fmt.Fprintf(os.Stderr, "%s ask: %v\n", remote.Program, err)
		return 2
	}
	var mu sync.Mutex
	enc := json.NewEncoder(out)
	emit := func(ev remote.AskEvent) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(ev)
	}
	cancelled, end := context.WithCancelCause(context.Background())
	// The request ends when the caller says, with how it ended; when it
	// closes is only for the phone's message to say.
	ctx := closing{cancelled, start.Closes}
	votes := make(chan dialog.Vote, dialog.MaxApprovers)
	go func() {
		var e remote.AskEnd
		err := dec.Decode(&e)
		for err == nil && e.Vote != nil {
			select {
			case votes <- *e.Vote:
			default:
				// More than one per person: none of them counts.
			}
			e = remote.AskEnd{}
			err = dec.Decode(&e)
		}
		switch {
		case err == nil && (e.Closed != "" || e.Status != ""):
			end(&dialog.Closed{What: e.Closed, Status: e.Status, Answer: e.Answer})
		case err != nil:
			// No word from the caller: it died (a holder killed, a
			// runner torn down).
			end(errCallerGone)
		default:
			end(context.Canceled)
		}
	}()
	b := &Backend{Config: start.Config, CollectWithin: start.CollectWithin, Remember: start.Remember,
		Ignored: func(reason string) { emit(remote.AskEvent{Ignored: reason}) },
		Lost:    func(reason string) { emit(remote.AskEvent{Lost: reason}) },
		Sent:    func() { emit(remote.AskEvent{Sent: true}) },
		Voted:   func(v dialog.Vote) { emit(remote.AskEvent{Vote: &v}) },
		Votes:   votes,
		Hub:     hubDialer(start.Config), HTTP: hubHTTP(start.Config)}
	ans, err := b.Ask(ctx, start.Request)
	done := remote.AskEvent{Done: true}
	var ended *remote.EndedError
	if errors.As(err, &ended) {
		done.Ended = ended.Status
	} else if err != nil {
		done.Error = err.Error()
	} else {
		done.Answer = &ans
	}
	emit(done)
	<-ctx.Done()
	finish, stop := context.WithTimeout(context.Background(), finishLimit)
	defer stop()
	b.Finish(finish)
	emit(remote.AskEvent{Finished: true})
	return 0
}

// serveVerify checks the setup in's line names, and writes the findings.
func serveVerify(in io.Reader, out io.Writer) int {
	var args remote.VerifyArgs
	if err := json.NewDecoder(in).Decode(&args); err != nil {
		fmt.Fprintf(os.Stderr, "%s verify: %v\n", remote.Program, err)
		return 2
	}
	if err := json.NewEncoder(out).Encode(verify(context.Background(), args, nil)); err != nil {
		return 1
	}
	return 0
}

// fleetCommandWithin bounds a fleet's cancel or revoke: reads, writes,
// and the follow-up's wait (toldWait, settleAfter).
const fleetCommandWithin = 30 * time.Second

// serveCancel cancels the fleet's open requests of in's key, and writes
// what it found.
func serveCancel(in io.Reader, out io.Writer) int {
	var args remote.CancelArgs
	if err := json.NewDecoder(in).Decode(&args); err != nil {
		fmt.Fprintf(os.Stderr, "%s cancel: %v\n", remote.Program, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetCommandWithin)
	defer cancel()
	found, err := cancelKey(ctx, args.Config, nil, args.Key, time.Now())
	if remote.WriteFleetResult(json.NewEncoder(out), found, err) != nil {
		return 1
	}
	return 0
}

// serveRevoke writes the revocation of in's person, and whether it could.
func serveRevoke(in io.Reader, out io.Writer) int {
	var args remote.RevokeArgs
	if err := json.NewDecoder(in).Decode(&args); err != nil {
		fmt.Fprintf(os.Stderr, "%s revoke: %v\n", remote.Program, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetCommandWithin)
	defer cancel()
	if remote.WriteFleetResult(json.NewEncoder(out), nil, revoke(ctx, args.Config, nil, args.Name)) != nil {
		return 1
	}
	return 0
}

// closing is a request's context as the phone program sees it: ended by
// its caller (remote.AskEnd), with the time the request closes as its
// deadline, which Backend's message gives, but no timer of its own: the
// caller's word on how the request ended must reach the phone.
type closing struct {
	context.Context
	closes time.Time
}

func (c closing) Deadline() (time.Time, bool) { return c.closes, !c.closes.IsZero() }
