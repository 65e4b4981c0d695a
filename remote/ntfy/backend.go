package ntfy

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// Backend asks the person on their phone: it publishes the request with
// one button per answer to Config.Topic and waits on Config.ReplyTopic for
// a tap whose capability is one of this request's. It implements
// dialog.Backend for what fits on the phone's buttons (Fits), and
// dialog.Finisher: the phone is told what became of the request once
// Ask's context ends, after Ask returned. One Backend asks one request at
// a time.
type Backend struct {
	Config remote.Config
	// HTTP is the client to reach the server with; nil is one without a
	// timeout of its own (the subscription is a stream), over
	// http.DefaultTransport.
	HTTP *http.Client
	// Now is the clock of the times the follow-ups give; nil is time.Now.
	Now func() time.Time
	// Ignored is told about each reply that answered nothing, and why: no
	// capability, a malformed one, one that is not this request's, one
	// too large to read; a reply for another request is told as
	// remote.ReplyForAnother. Nil ignores them silently. It must not
	// block.
	Ignored func(reason string)
	// Lost is told about a follow-up that could not be sent, after Ask
	// returned and until Finish returns. Nil ignores it.
	Lost func(reason string)
	// Sent is told once the server took the request. Nil ignores it.
	Sent func()
	// Voted is told each vote of a request of several approvers
	// (dialog.Request.Approvers) as it counts, until Ask returns. Nil
	// ignores them. It must not block.
	Voted func(dialog.Vote)
	// Votes brings the votes given on this machine (remote.Backend.Vote):
	// each counts as its person's tap, and is recorded for the fleet.
	// Nil brings none.
	Votes <-chan dialog.Vote
	// Retry is how long to wait before reconnecting a dropped
	// subscription; zero is one second.
	Retry time.Duration
	// OpenWithin is how long Ask waits for the subscription to open, its
	// tries included; zero is openWithin.
	OpenWithin time.Duration
	// CollectWithin is how long after its tap an answer of the fleet's
	// (remote.Config.Secret) that no machine has taken yet is collected
	// by a machine that asks the same question, and Remember how long
	// one that a machine took is; zero collects none, and only joins a
	// request that is still open.
	CollectWithin, Remember time.Duration
	// Hub reaches the machine's hub (hub.go), which the reply topic is
	// read through; nil, or a hub that cannot be reached or is gone,
	// reads it with a stream of this Backend's own.
	Hub func(context.Context) (net.Conn, error)

	// followUps are the follow-ups still on their way (Finish).
	followUps sync.WaitGroup
}

// replyPrefix starts every button's body: what ask-confirm's replies look
// like, so that a stray message on the reply topic is told apart from a
// forged one. After it come fields, each NAME=VALUE, separated by
// spaces: req, the request's id, and cap, the button's capability. A
// reader takes the fields it knows and passes over the others, so a later
// version can add one (a MAC over the reply, say) that this one's
// readers ignore. oldReplyPrefix started the replies of the version
// before, which carried the capability alone.
const (
	replyPrefix    = "ask-confirm/2 "
	oldReplyPrefix = "ask-confirm/1 "
)

// capabilityBytes is the size of a button's capability: 128 random bits;
// requestIDBytes the size of a request's id, which says whose a reply is
// and is no secret: 64 random bits.
const (
	capabilityBytes = 16
	requestIDBytes  = 8
)

// How long Ask waits for the subscription to open before it gives up:
// a server that restarts is back within a second or two, and one that
// cannot be reached within this fails the request while its caller still
// waits.
const openWithin = 5 * time.Second

// followUpWithin bounds the sending of a follow-up, its tries included:
// within the time the holder gives its ways to close (10 s), so that one
// that could not be sent is still reported.
const followUpWithin = 8 * time.Second

// button is one answer on the phone and the capability that proves a tap
// on it.
type button struct {
	choice string // approve, deny, approve-for, or option for a choice's
	label  string
	cap    [capabilityBytes]byte
	// by is the person whose button it is, in a vote (votes.go), and
	// voter their place among the request's approvers; "" for a request
	// of one person.
	by    string
	voter int
	// votes and forDur are a vote's outcome, for a button that stands for
	// it (tally): the votes that decided it, and the shortest approval
	// given for a while.
	votes  []dialog.Vote
	forDur time.Duration
}

// Ask implements dialog.Backend. It subscribes to the reply topic before it
// publishes, so that no tap is missed, and keeps the subscription across
// dropped connections, resuming after the last reply it read. It returns
// the first reply that carries one of this request's capabilities; every
// other reply is reported to Ignored and changes nothing. When ctx ends
// first, it returns ctx's error.
//
// Either way the phone is told what became of the request once ctx ends:
// the cause ctx ends with if it is a *dialog.Closed ("Approved in the
// dialog at 14:05"), and otherwise what was tapped, or that the request
// closed. Whoever calls Ask ends ctx, and calls Finish before exiting.
//
// With a fleet's secret (remote.Config.Secret), the request is the
// fleet's (fleet.go): Ask first reads the fleet's record of the same
// question on the server, and collects its answer (given within
// CollectWithin) or joins it while it is open, without a message of its
// own on the phone; only a request it put on the phone itself gets a
// follow-up from it. Its taps are read as every machine reads them
// (outcome).
func (b *Backend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if err := remote.Fits(r); err != nil {
		return dialog.Answer{}, err
	}
	if err := b.Config.Check(); err != nil {
		return dialog.Answer{}, err
	}
	people, err := voters(b.Config, r)
	if err != nil {
		return dialog.Answer{}, err
	}
	buttons, err := newButtons(r, people)
	if err != nil {
		return dialog.Answer{}, err
	}
	id, err := newRequestID()
	if err != nil {
		return dialog.Answer{}, err
	}
	cl := client{c: b.Config, http: b.HTTP}
	if cl.http == nil {
		cl.http = &http.Client{CheckRedirect: noRedirect}
	}
	began, asked := time.Now(), b.now()
	var closes int64
	if d, ok := ctx.Deadline(); ok {
		closes = d.Unix()
	}
	q := newQuestion(b.Config.SecretKey(), r, buttons, id, closes)
	q.people, q.approvals, q.approveFor = people, r.Approvals, r.ApproveFor
	sub := b.subscribe(ctx, cl, q)
	// Ask returns only once the subscription has ended: nothing is
	// reported to Ignored after it.
	defer sub.stop()

	opening := time.NewTimer(cmp.Or(b.OpenWithin, openWithin))
	defer opening.Stop()
	select {
	case <-sub.opened:
	case rp := <-sub.replies:
		return dialog.Answer{}, rp.err
	case <-opening.C:
		return dialog.Answer{}, fmt.Errorf("the ntfy server could not be reached within %s: %w", cmp.Or(b.OpenWithin, openWithin), sub.lastError())
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
	if err := b.answerTokenRefused(ctx, cl); err != nil {
		return dialog.Answer{}, err
	}
	if q.key != nil {
		if bt, ok := b.lookUp(ctx, cl, q, sub); ok {
			if bt == fleetCancelled {
				// Told already, by the machine that cancelled it.
				pace(ctx, began)
				return dialog.Answer{}, &remote.EndedError{Status: remote.EndedCancelled}
			}
			b.took(cl, q)
			// Where the machine that put it on the phone is gone, this
			// one tells the phone, before it hands the answer over.
			b.tellCollected(ctx, cl, q, r, tappedText(bt, false)+" at "+dialog.Clock(b.now().Local(), asked)+".", sub)
			// Collected: given by a person before this Ask began, which
			// the engine must not take for a dialog that ended at once.
			pace(ctx, began)
			return answerFor(r, bt), nil
		}
	}
	return b.await(ctx, cl, r, q, sub, asked)
}

// answerTokenRefused is the error of a setup whose answer token the
// server refuses to let write the reply topic (probeAnswerToken), found
// before anything is put on the phone: every tap would be refused, and
// the request would wait out its timeout with nobody able to answer. A
// server that says neither yes nor no is left to the publish to judge.
func (b *Backend) answerTokenRefused(ctx context.Context, cl client) error {
	pctx, cancel := context.WithTimeout(ctx, min(cmp.Or(b.OpenWithin, openWithin), probeWithin))
	defer cancel()
	p := probeAnswerToken(pctx, cl.http, b.Config)
	if !p.refused {
		return nil
	}
	return fmt.Errorf("the server refuses the answer token, which the buttons carry, to write %s (%s): every tap on the phone would be refused; to mend: %s",
		b.Config.ReplyTopic, p.said, mendFor(true, p.status, nil, "ntfy access ANSWERER "+b.Config.ReplyTopic+" wo"))
}

// probeWithin bounds the answer token's check on a request's way: a
// server that does not answer it in time is left to the publish, whose
// own bound (tryWithin) then applies.
const probeWithin = 2 * time.Second

// await puts q on the phone, or joins the fleet's request of it, and
// waits for its tap, or for ctx to end; a joined request that ends
// without a tap is left, and q asked anew.
func (b *Backend) await(ctx context.Context, cl client, r dialog.Request, q *question, sub *subscription, asked time.Time) (dialog.Answer, error) {
	for {
		if !q.joined() {
			if err := b.put(ctx, cl, r, q, asked); err != nil {
				return dialog.Answer{}, err
			}
		}
		if b.Sent != nil {
			b.Sent()
		}
		if q.voting() {
			ans, err, again := b.awaitVotes(ctx, cl, r, q, sub, asked)
			if again {
				continue
			}
			return ans, err
		}
		replies := sub.replies
		if q.joined() {
			// What came on the stream before the join was read as
			// another request's: read it again.
			replies = b.recheck(ctx, cl, q, sub)
		}
		select {
		case rp := <-replies:
			if ctx.Err() != nil {
				// The request ended as the tap came: the end stands.
				b.tellWhenClosed(ctx, cl, r, q, asked, ending{})
				return dialog.Answer{}, ctx.Err()
			}
			if rp.ended == recCancel || rp.ended == recSupersede {
				// A machine of the fleet cancelled the request, or a
				// newer question superseded it: it ends so here too.
				b.tellWhenClosed(ctx, cl, r, q, asked, ending{fleet: rp.ended})
				return dialog.Answer{}, &remote.EndedError{Status: map[string]string{recCancel: remote.EndedCancelled, recSupersede: remote.EndedSuperseded}[rp.ended]}
			}
			if rp.ended != "" {
				// The request this one joined ended without a tap, on
				// the machine that asked it: ask anew.
				fresh, err := newRequestID()
				if err != nil {
					return dialog.Answer{}, err
				}
				q.leave(fresh)
				continue
			}
			if rp.err != nil {
				return dialog.Answer{}, rp.err
			}
			bt := b.settle(ctx, cl, q, rp)
			b.took(cl, q)
			elsewhere := rp.elsewhere && bt == rp.b
			b.tellWhenClosed(ctx, cl, r, q, asked, ending{tapped: tappedText(bt, elsewhere), byRecord: elsewhere})
			return answerFor(r, bt), nil
		case <-ctx.Done():
			b.tellWhenClosed(ctx, cl, r, q, asked, ending{})
			return dialog.Answer{}, ctx.Err()
		}
	}
}

// recheck reads the fleet's record of the request q just joined, once:
// a tap or its end that the stream brought before the join, when it was
// still another request's, is read from there. It returns replies, or a
// channel with what the record holds.
//
// A tap found there is collected by the look-up's rule (collects): the
// server sends a message to the streams that wait for it before it
// stores it for a poll, so a look-up can find a request open whose tap
// its asker already has. A tap the rule does not collect leaves the
// request, as its end would, and q is asked anew.
func (b *Backend) recheck(ctx context.Context, cl client, q *question, sub *subscription) chan reply {
	replies := sub.replies
	ms, err := b.pollRecord(ctx, cl, q, "all")
	if err != nil {
		return replies
	}
	id, closes, _ := q.current()
	found := make(chan reply, 1)
	switch taps := q.taps(ms, closes); {
	case endedIn(q, id, ms):
		found <- reply{ended: endingIn(q, id, ms)}
	case len(taps) > 0:
		first := taps[0]
		for _, t := range taps {
			if t.at < first.at {
				first = t
			}
		}
		taken := takenIn(q, id, taps, ms)
		if !b.collects(ctx, sub, first.at, first.id, taken) {
			found <- reply{ended: recEnd}
			break
		}
		found <- reply{b: first.bt, at: first.at, elsewhere: first.recorded}
	default:
		return replies
	}
	return found
}

// put puts r on the phone as request q. For a fleet, it first claims the
// request (claim), and joins another machine's claim that comes first
// instead of putting anything on the phone; where the phone's message
// cannot be sent after a claim, the claim is ended, so that the machines
// that joined it ask anew.
func (b *Backend) put(ctx context.Context, cl client, r dialog.Request, q *question, asked time.Time) error {
	claimed := false
	if q.key != nil && !q.alone {
		if claimed = b.claim(ctx, cl, q); q.joined() {
			return nil
		}
		if q.supersededByNewer() {
			// Nobody saw it: the phone is told nothing.
			return &remote.EndedError{Status: remote.EndedSuperseded}
		}
	}
	if ctx.Err() != nil {
		// The request ended before it was put on the phone (it expired
		// while its claim settled): the person is told nothing of a
		// request they never saw, and no machine joins the claim.
		if claimed {
			b.followUps.Add(1)
			go func() {
				defer b.followUps.Done()
				b.record(cl, q, q.ownID, recEnd)
			}()
		}
		return ctx.Err()
	}
	if err := b.publishRequest(ctx, cl, r, q); err != nil {
		if ctx.Err() != nil {
			// The request ended while the message was on its way: it may
			// have reached the phone.
			b.tellWhenClosed(ctx, cl, r, q, asked, ending{})
			return ctx.Err()
		}
		if claimed {
			b.record(cl, q, q.ownID, recEnd)
		}
		return err
	}
	return nil
}

// claim writes q's record on the reply topic, waits until the second it
// was stamped in is over, and reads the fleet's open requests of the same
// question: where another machine's claim comes first, in the server's
// order (byServerOrder, which every poll gives), q joins it. Two
// machines asking at once so agree on one of them. A claim that cannot be
// written or read leaves q to ask alone: at worst, the phone shows the
// question twice. It reports whether the claim was written.
func (b *Backend) claim(ctx context.Context, cl client, q *question) bool {
	rec := message{Topic: b.Config.ReplyTopic, Message: openBody(q.key, q.identity, q.content, q.id, q.closes, q.rkey), Tags: q.recordTags()}
	if _, err := cl.publish(ctx, rec); err != nil {
		if ctx.Err() == nil {
			b.ignored(fmt.Sprintf("the fleet's record of this request could not be written, so no other machine can join it: %v", err))
		}
		return false
	}
	ms, ok := b.afterTheSecond(ctx, cl, q, "all")
	if !ok {
		return true
	}
	newer, others := newest(q, ms)
	if !newer {
		// A newer question under the same key, claimed in the same
		// moment: this one ends superseded before it reaches the phone,
		// as every machine reads the claims.
		q.mu.Lock()
		q.lost = true
		q.mu.Unlock()
		b.record(cl, q, q.ownID, recSupersede)
		return true
	}
	for _, rec := range others {
		b.supersedeID(cl, q, rec.id)
	}
	first := firstOpen(q, ms)
	if first != nil {
		q.mu.Lock()
		q.askedAt = first.at
		q.mu.Unlock()
	}
	if first != nil && first.id != q.ownID {
		q.mu.Lock()
		q.id, q.closes, q.join = first.id, first.closes, true
		q.mu.Unlock()
		// This claim is over: no machine may join it.
		b.record(cl, q, q.ownID, recEnd)
	}
	return true
}

// pace holds a collected answer until paceCollected after began, or ctx
// ends.
func pace(ctx context.Context, began time.Time) {
	t := time.NewTimer(time.Until(began.Add(paceCollected)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// paceCollected is the least time Ask takes to return an answer collected
// from the fleet's record: more than lifecycle.DefaultHumanAnswer, so that
// the holder does not read it as a dialog that died at once.
const paceCollected = 500 * time.Millisecond

// Finish implements dialog.Finisher: it waits until the follow-ups of the
// requests asked have been sent (or given up on), or ctx ends.
func (b *Backend) Finish(ctx context.Context) {
	done := make(chan struct{})
	go func() { b.followUps.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// reply is what the subscription found: a tap on one of the buttons, or
// why it cannot go on.
type reply struct {
	b  *button
	at int64 // the server's time of the tap
	// elsewhere says b is the fleet's record of an answer given on a
	// machine (rec=answer), not a tap on the phone.
	elsewhere bool
	// ended is how the request ended without a tap, as the fleet's
	// record says: recEnd (the request joined), recCancel, recSupersede.
	ended string
	err   error
}

// subscription reads the reply topic for a tap on one of a request's
// buttons.
type subscription struct {
	replies chan reply
	// opened is closed once the first connection is open.
	opened chan struct{}
	stop   func()

	mu       sync.Mutex
	lastErr  error // why the first connection is not open yet
	openedAt int64 // the server's time when the first connection opened
	// streamed holds the IDs of the messages the stream brought (at most
	// maxStreamed): each was sent after the subscription opened.
	streamed map[string]bool
}

// maxStreamed bounds the IDs a subscription keeps of what its stream
// brought; past it, a tap is judged by its time alone (collects).
const maxStreamed = 1 << 16

// streamedNow records that the stream brought the message id.
func (s *subscription) streamedNow(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streamed == nil {
		s.streamed = map[string]bool{}
	}
	if len(s.streamed) < maxStreamed {
		s.streamed[id] = true
	}
}

// cameOnStream waits up to limit for the stream to bring the message id,
// which a poll has read: the server sends a message to the streams that
// wait for it before it stores it for a poll, but this process may read
// the stream later than the poll. It reports whether the stream brought
// it, as it does every message sent after the subscription opened.
func (s *subscription) cameOnStream(ctx context.Context, id string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		s.mu.Lock()
		seen := s.streamed[id]
		s.mu.Unlock()
		if seen || time.Now().After(deadline) || ctx.Err() != nil {
			return seen
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// open records that the first connection opened, at the server's time.
func (s *subscription) open(serverTime int64) {
	s.mu.Lock()
	s.openedAt = serverTime
	s.mu.Unlock()
	close(s.opened)
}

// serverTime is the server's time when the subscription first opened:
// what a machine whose clock is off compares the fleet's times with.
func (s *subscription) serverTime() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.openedAt
}

func (s *subscription) lastError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastErr == nil {
		return errors.New("it did not answer")
	}
	return s.lastErr
}

// subscribe opens the reply topic and keeps it open until a capability
// matches, the server refuses, ctx ends or stop is called. A connection
// that drops is opened again after Retry, from the last reply read or,
// before any, from the server's time when the first opened, whatever this
// machine's clock says. A server that cannot be reached at the start is
// tried again after Retry too, until Ask gives up on it (openWithin). A
// stream the server refuses for its limits is read by polling (follow).
func (b *Backend) subscribe(ctx context.Context, cl client, q *question) *subscription {
	s := &subscription{replies: make(chan reply, 1), opened: make(chan struct{})}
	sctx, cancel := context.WithCancel(ctx)
	ended := make(chan struct{})
	s.stop = func() { cancel(); <-ended }
	var openOnce sync.Once
	var openedAt int64
	openedOnce := func(serverTime int64) {
		openOnce.Do(func() { openedAt = serverTime; s.open(serverTime) })
	}
	go func() {
		defer close(ended)
		since := ""
		refusals := 0 // the tries refused with 403 in a row
		useHub := b.Hub != nil
		for {
			connected := false
			opened := func(serverTime int64) { connected = true; openedOnce(serverTime) }
			got := b.reader(sctx, q, s)
			tooLong := func(size int) {
				b.ignored(fmt.Sprintf("a reply too large to read (%d bytes), passed over", size))
			}
			var last string
			var err error
			if useHub {
				if last, err = b.throughHub(sctx, &since, opened, got, tooLong); errors.Is(err, errHubGone) {
					// Read from where the hub left off, at once.
					useHub = false
					continue
				}
			} else {
				last, err = cl.follow(sctx, b.Config.ReplyTopic, since, q.pollTags(), opened, got, tooLong)
			}
			if last != "" {
				since = last
			}
			switch {
			case sctx.Err() != nil:
				return
			case err == nil:
				return // a capability matched
			case errors.As(err, new(forbidden)) && refusals < forbiddenAgain:
				// Tried again (forbidden).
				refusals++
			case errors.Is(err, ErrRefused):
				s.replies <- reply{err: err}
				return
			default:
				refusals = 0
			}
			if connected {
				refusals = 0
			}
			select {
			case <-s.opened:
			default:
				s.mu.Lock()
				s.lastErr = err
				s.mu.Unlock()
			}
			if since == "" && openedAt != 0 {
				since = strconv.FormatInt(openedAt, 10)
			}
			pause := b.retry()
			if refusals > 0 {
				pause = min(pause, forbiddenPause(refusals))
			}
			select {
			case <-sctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}()
	return s
}

// reader reads each message of the reply topic for q, and sends s what
// it found: a tap on one of q's buttons, the fleet's record of its answer
// or its end. It returns false once the reading is over.
func (b *Backend) reader(sctx context.Context, q *question, s *subscription) func(message) bool {
	return func(m message) bool {
		s.streamedNow(m.ID)
		if q.key != nil {
			if rec, ok := readOpen(q.key, q.identity, q.content, m); ok {
				q.see(rec)
				return true
			}
		}
		if what := q.endOf(m.Message); what != "" {
			select {
			case s.replies <- reply{ended: what}:
			case <-sctx.Done():
			}
			// A joined request's end asks anew; any other ends
			// the request.
			return what == recEnd
		}
		// A vote reads on: every person's vote counts.
		if bt := q.recordedAnswer(m.Message); bt != nil {
			select {
			case s.replies <- reply{b: bt, at: m.Time, elsewhere: true}:
			case <-sctx.Done():
				return false
			}
			return q.voting()
		}
		if bt := b.match(q, m.Message); bt != nil {
			select {
			case s.replies <- reply{b: bt, at: m.Time}:
			case <-sctx.Done():
				return false
			}
			return q.voting()
		}
		return true
	}
}

// throughHub reads the reply topic through the machine's hub (hubFollow),
// and, where the hub is gone, sets since to where it left off: the last
// message it relayed, or else the server's time of its open.
func (b *Backend) throughHub(sctx context.Context, since *string, opened func(int64), got func(message) bool, tooLong func(int)) (string, error) {
	last, hubAt, err := hubFollow(sctx, b.Hub, opened, got, tooLong)
	if errors.Is(err, errHubGone) {
		if last != "" {
			*since = last
		} else if *since == "" && hubAt != 0 {
			*since = strconv.FormatInt(hubAt, 10)
		}
	}
	return last, err
}

// ending is how a request ended as Ask saw it, for tellWhenClosed.
type ending struct {
	// tapped is the answer's follow-up before its time (tappedText);
	// empty for none.
	tapped string
	// byRecord says tapped is an answer another machine recorded: it
	// names the answer, whatever ctx's cause says ("on the phone").
	byRecord bool
	// fleet is recCancel or recSupersede where the fleet's record ended
	// the request, and so needs no record of this machine's.
	fleet string
	// progress is where an undecided vote stood as it closed ("1 of
	// 2"), for its follow-up; "" for a request of one person.
	progress string
}

// tellWhenClosed tells the phone, once ctx ends, what became of r: ctx's
// cause if it is a *dialog.Closed, else e.tapped (what the person tapped
// here), else that r closed without an answer from the phone. The time it
// names has its day when that is not the day r was asked, at asked: the
// person reads it beside the request, maybe the next morning. It does not
// wait: Finish does.
//
// For a fleet, it first records on the reply topic what the fleet's other
// machines must learn (recordEnd): an answer given here in a dialog or at
// a terminal, a cancel, a supersede, or the asker's end. The follow-up is
// sent once per request, fleet-wide (tellOnce), also where the machine
// that put the request on the phone is gone; a machine that joined it
// tells only of an end that is the request's (an answer, a cancel, a
// supersede), never of its own expiry.
func (b *Backend) tellWhenClosed(ctx context.Context, cl client, r dialog.Request, q *question, asked time.Time, e ending) {
	owner := !q.joined()
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		<-ctx.Done()
		if q.key != nil && errors.Is(context.Cause(ctx), errCallerGone) {
			// The request lives on in the fleet's record, and on the
			// phone: a retry on any machine collects or joins it.
			return
		}
		var closed *dialog.Closed
		errors.As(context.Cause(ctx), &closed)
		shared := b.recordEnd(cl, q, closed, e, owner)
		if !owner && !shared {
			return
		}
		at := dialog.Clock(b.now().Local(), asked)
		text := "This request closed at " + at + " without an answer from here."
		switch {
		case e.tapped != "" && (e.byRecord || closed == nil || closed.What == ""):
			text = e.tapped + " at " + at + "."
		case closed != nil && closed.What != "":
			text = closed.What + " at " + at + "."
		case e.fleet == recCancel:
			text = "This request was cancelled on another machine at " + at + "."
		case e.fleet == recSupersede:
			text = "This request was replaced by a newer one at " + at + "."
		}
		if e.progress != "" && e.tapped == "" && (closed == nil || closed.Answer == nil && closed.Status != "approved" && closed.Status != "denied") {
			// "This request expired at 14:05 with 1 of 2 approvals."
			text = strings.TrimSuffix(text, ".") + " with " + e.progress + " approvals."
		}
		if q.key == nil {
			b.followUp(cl, q, r, text)
			return
		}
		b.tellOnce(cl, q, r, text, owner)
	}()
}

// recordEnd writes, for a fleet, beside the follow-up (each has its time
// to be sent, or reported lost), what the other machines learn of how q's
// request ended as closed and e say: an answer given here other than on
// the phone (rec=answer), a cancel or a supersede here, or, where this
// machine put it on the phone and it ended without an answer, its end.
// It reports whether the end is the request's (an answer, a cancel, a
// supersede) rather than this machine's alone.
func (b *Backend) recordEnd(cl client, q *question, closed *dialog.Closed, e ending, owner bool) bool {
	if e.fleet != "" || e.tapped != "" {
		return true
	}
	if q.key == nil {
		return false
	}
	id, closes, _ := q.current()
	var body, what string
	switch {
	case closed != nil && closed.Answer != nil:
		bt := q.buttonFor(*closed.Answer)
		if bt == nil {
			// No button says it (a typed answer): the others wait for the
			// phone, or their own end.
			return false
		}
		body, what = answerBody(q, id, closes, bt), "answer"
	case closed != nil && closed.Status == remote.EndedCancelled:
		what = recCancel
	case closed != nil && closed.Status == remote.EndedSuperseded:
		what = recSupersede
	case owner:
		what = recEnd
	default:
		return false
	}
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		if body != "" {
			b.publishRecord(cl, q, body, what)
			return
		}
		b.record(cl, q, id, what)
	}()
	return what != recEnd
}

// errCallerGone ends a request whose caller died without saying how it
// ended (remote.Program's stdin ended): for a fleet, the request is not
// over, and nothing is told.
var errCallerGone = errors.New("the caller of " + remote.Program + " is gone")

// Why a reply answered nothing, as Ignored is told.
const (
	ignoredNoCapability = "a reply without an ask-confirm capability"
	ignoredOldFormat    = "a reply without a request's id (from an ask-confirm before this one, or forged)"
	ignoredMalformed    = "a reply with a malformed capability"
	ignoredForged       = "a reply for this request whose capability is not one of its buttons' (forged)"
	ignoredForeign      = "a reply for this request whose MAC is not its fleet's (made with another setup's secret, or forged)"
	ignoredNoMAC        = "a reply for this request without the MAC its fleet's buttons carry (from a setup without the fleet's secret, or forged)"
	ignoredForgedRecord = "a record of this request in its fleet's name whose MAC does not verify (forged)"
)

// match returns the button of request q whose capability body carries,
// or nil (and tells Ignored why) for anything else. A reply for another
// request, which shares the reply topic, is that request's: it is told as
// remote.ReplyForAnother, not as a forgery; so is a line of another
// fleet's record, while this fleet's own are passed over. With a fleet's
// secret, a reply must carry the MAC of its
// button; a request this machine joined, whose capabilities it never
// saw, is answered by the MAC alone.
func (b *Backend) match(q *question, body string) *button {
	f, ok := fields(body)
	if !ok {
		body = strings.TrimSpace(body)
		switch {
		case strings.HasPrefix(body, oldReplyPrefix):
			b.ignored(ignoredOldFormat)
		case strings.HasPrefix(body, replyPrefix):
			// A field given twice is no reply this version writes.
			b.ignored(ignoredMalformed)
		default:
			b.ignored(ignoredNoCapability)
		}
		return nil
	}
	id, closes, joined := q.current()
	if f["rec"] != "" || f["fleet"] != "" {
		// The fleet's record, or a setup's marker: no reply. This
		// fleet's own are no news, unless one names this request and
		// does not verify; another's are another's.
		switch {
		case q.key == nil || !macEqual(f["fleet"], fleetID(q.key)):
			b.ignored(remote.ReplyForAnother)
		case f["req"] == id && !q.verifiedRecord(f, body, id):
			b.ignored(ignoredForgedRecord)
		}
		return nil
	}
	if req := f["req"]; req != id {
		if bt := q.otherTap(req, f["mac"]); bt != nil {
			if !sameVoter(f, bt) {
				b.ignored(ignoredAsAnother)
				return nil
			}
			return bt
		}
		if req == "" {
			b.ignored(ignoredMalformed)
		} else {
			b.ignored(remote.ReplyForAnother)
		}
		return nil
	}
	var found *button
	if !joined {
		if found = q.byCapability(f["cap"]); found == nil {
			b.ignored(capabilityFault(f["cap"]))
			return nil
		}
	}
	if q.key == nil {
		if !sameVoter(f, found) {
			b.ignored(ignoredAsAnother)
			return nil
		}
		return found
	}
	var byMAC *button
	for _, bt := range q.buttons {
		// Every button is compared, whichever matches.
		if macEqual(f["mac"], replyMAC(q.key, q.identity, id, bt, closes)) {
			byMAC = bt
		}
	}
	switch {
	case f["mac"] == "":
		b.ignored(ignoredNoMAC)
		return nil
	case byMAC == nil || (found != nil && byMAC != found):
		b.ignored(ignoredForeign)
		return nil
	}
	if !sameVoter(f, byMAC) {
		b.ignored(ignoredAsAnother)
		return nil
	}
	return byMAC
}

// byCapability returns the button of q whose capability capHex is, or
// nil.
func (q *question) byCapability(capHex string) *button {
	var got [capabilityBytes]byte
	if len(capHex) != hex.EncodedLen(capabilityBytes) {
		return nil
	}
	if _, err := hex.Decode(got[:], []byte(capHex)); err != nil {
		return nil
	}
	var found *button
	for _, bt := range q.buttons {
		// Every button is compared, whichever matches: the time taken
		// says nothing of which one did.
		if subtle.ConstantTimeCompare(got[:], bt.cap[:]) == 1 {
			found = bt
		}
	}
	return found
}

// capabilityFault says why capHex, which is none of the buttons', is
// ignored: malformed, or forged.
func capabilityFault(capHex string) string {
	if len(capHex) != hex.EncodedLen(capabilityBytes) {
		return ignoredMalformed
	}
	if _, err := hex.DecodeString(capHex); err != nil {
		return ignoredMalformed
	}
	return ignoredForged
}

// replyBody is what the button bt of request q sends: with a fleet's
// secret, with the MAC that lets every machine of the fleet verify it.
func (q *question) replyBody(bt *button) string {
	body := replyPrefix + "req=" + q.id + bt.voterField() + " cap=" + hex.EncodeToString(bt.cap[:])
	if q.key != nil {
		body += " mac=" + replyMAC(q.key, q.identity, q.id, bt, q.closes)
	}
	return body
}

// newRequestID makes a request's id: random, so that no two requests,
// not even two of the same question, share one.
func newRequestID() (string, error) {
	var id [requestIDBytes]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("making the request's id: %w", err)
	}
	return hex.EncodeToString(id[:]), nil
}

func (b *Backend) ignored(reason string) {
	if b.Ignored != nil {
		b.Ignored(reason)
	}
}

func (b *Backend) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Backend) retry() time.Duration {
	if b.Retry > 0 {
		return b.Retry
	}
	return time.Second
}

// newButtons makes r's buttons, each with a fresh capability: for a
// confirmation Deny first, then Approve for DURATION if offered, then
// Approve; for a choice its options in order, then Cancel where there is
// room.
func newButtons(r dialog.Request, people []person) ([]*button, error) {
	var bs []*button
	if r.Kind == dialog.Choose {
		for _, o := range r.Options {
			bs = append(bs, &button{choice: "option", label: o.Label})
		}
		if len(bs) < remote.MaxActions {
			bs = append(bs, &button{choice: "deny", label: r.CancelLabel})
		}
	} else {
		bs = append(bs, &button{choice: "deny", label: r.CancelLabel})
		if r.ApproveFor > 0 {
			bs = append(bs, &button{choice: "approve-for", label: r.ApproveForLabel()})
		}
		bs = append(bs, &button{choice: "approve", label: r.OKLabel})
	}
	for _, bt := range bs {
		if bt.label == "" {
			bt.label = map[string]string{"deny": "Deny", "approve": "Approve"}[bt.choice]
		}
	}
	if len(people) > 0 {
		bs = personButtons(people, bs)
	}
	for _, bt := range bs {
		if _, err := rand.Read(bt.cap[:]); err != nil {
			return nil, fmt.Errorf("making the buttons' capabilities: %w", err)
		}
	}
	return bs, nil
}

// publishRequest puts r on the phone as request q: on the phone set up,
// or, for a vote, on each person's, each with their own buttons. A vote
// that reached some of its people but not all fails: a person who was not
// asked cannot vote.
func (b *Backend) publishRequest(ctx context.Context, cl client, r dialog.Request, q *question) error {
	if !q.voting() {
		_, err := cl.publish(ctx, b.request(r, q, b.Config.Topic, q.buttons, ""))
		return err
	}
	for i, p := range q.people {
		var mine []*button
		for _, bt := range q.buttons {
			if bt.voter == i {
				mine = append(mine, bt)
			}
		}
		if _, err := cl.publish(ctx, b.request(r, q, p.topic, mine, b.askedAs(q, p))); err != nil {
			return fmt.Errorf("asking %s: %w", p.name, err)
		}
	}
	return nil
}

// askedAs is the line a vote's message ends with on p's phone: who is
// asked, and what decides.
func (b *Backend) askedAs(q *question, p person) string {
	var others []string
	for _, o := range q.people {
		if o.name != p.name {
			others = append(others, o.name)
		}
	}
	line := "Asked of you, " + p.name + ", with " + dialog.Names(others) + ": "
	if len(others) == 0 {
		// A vote of one: Approve decides.
		return "Asked of you, " + p.name + ", alone: your answer decides."
	}
	if q.approvals == len(q.people) {
		return line + "every one of you must approve; any one of you can deny."
	}
	return line + strconv.Itoa(q.approvals) + " of " + strconv.Itoa(len(q.people)) + " must approve; any one of you can deny."
}

// request is the message that asks r on the phone whose topic is given,
// with buttons: its text shown literally (no Markdown), with who asks and
// when it closes, and then, for a vote, asked (askedAs).
func (b *Backend) request(r dialog.Request, q *question, topic string, buttons []*button, asked string) message {
	var closes time.Time
	if q.closes != 0 {
		closes = time.Unix(q.closes, 0)
	}
	// A title shows its invisible characters as markers, as the text does.
	title := dialog.Literal(r.Title, false)
	if title == "" {
		title = dialog.DefaultTitle
	}
	if r.Kind == dialog.Choose {
		// The buttons carry the labels; the text lists each option with
		// its description.
		lines := []string{r.Message, ""}
		for _, o := range r.Options {
			lines = append(lines, "• "+o.Display())
		}
		r.Message = strings.Join(lines, "\n")
	}
	// The text is fitted to the phone (dialog.Fit): within what ntfy
	// keeps of a message, its head and its tail, the who-asks line and
	// the vote's line under it always in view.
	phone := dialog.Phone
	if asked != "" {
		phone.Bytes -= len(asked) + 2
		phone.Rows -= strings.Count(asked, "\n") + 2
	}
	text, _ := r.Shown(phone, closes, b.now())
	if asked != "" {
		text += "\n\n" + asked
	}
	m := message{
		Topic:    topic,
		Title:    title,
		Message:  text,
		Priority: 5,
		Tags:     []string{"question"},
	}
	for _, bt := range buttons {
		headers := map[string]string{"Authorization": "Bearer " + b.Config.AnswerToken}
		if q.key != nil {
			// The tap carries its question's tag, which a machine that
			// never asked filters the reply topic by.
			headers["X-Tags"] = keyTag(q.key, q.identity)
		}
		m.Actions = append(m.Actions, action{
			Action:  "http",
			Label:   bt.label,
			URL:     b.Config.TopicURL(b.Config.ReplyTopic),
			Method:  http.MethodPost,
			Headers: headers,
			Body:    q.replyBody(bt),
			Clear:   true,
		})
	}
	return m
}

// followUp tells the phone what became of r, so that nobody taps again in
// doubt, with a tag that shows how at a glance. It is best effort: the
// answer stands whether or not it arrives; one that cannot be sent is told
// to Lost.
//
// A vote's follow-up goes to every person it asks, each on their own
// phone, at once.
func (b *Backend) followUp(cl client, q *question, r dialog.Request, text string) {
	// A title shows its invisible characters as markers, as the text does.
	title := dialog.Literal(r.Title, false)
	if title == "" {
		title = dialog.DefaultTitle
	}
	ctx, cancel := context.WithTimeout(context.Background(), followUpWithin)
	defer cancel()
	topics := []string{b.Config.Topic}
	if q.voting() {
		topics = nil
		for _, p := range q.people {
			topics = append(topics, p.topic)
		}
	}
	var wg sync.WaitGroup
	for _, topic := range topics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cl.publish(ctx, message{Topic: topic, Title: title, Message: text, Priority: 3, Tags: []string{followUpTag(text)}}); err != nil && b.Lost != nil {
				b.Lost(fmt.Sprintf("the follow-up %q could not be sent to %s within %s: %v", text, b.whose(q, topic), followUpWithin, err))
			}
		}()
	}
	wg.Wait()
}

// whose names the phone that reads topic: a vote's person, or the phone.
func (b *Backend) whose(q *question, topic string) string {
	for _, p := range q.people {
		if p.topic == topic {
			return p.name + "'s phone"
		}
	}
	return "the phone"
}

// followUpTag is the ntfy tag (an emoji's name) of a follow-up's text, as
// tellWhenClosed, progressText and the engine word it: a check mark for an
// answer, a cross for a deny, an hourglass for an expiry, a ballot box for
// a vote that decided nothing yet, a no-entry sign for any other end.
func followUpTag(text string) string {
	lower := strings.ToLower(strings.TrimPrefix(text, "Already "))
	switch {
	case progressOf.MatchString(text):
		return "ballot_box_with_check"
	case strings.HasPrefix(lower, "approved"), strings.HasPrefix(lower, "chose"), strings.HasPrefix(lower, "answered"):
		return "white_check_mark"
	case strings.HasPrefix(lower, "denied"):
		return "x"
	case strings.Contains(lower, "expired"):
		return "hourglass"
	}
	return "no_entry_sign"
}

// tappedText is the follow-up for a tap on bt, before its time; for an
// answer a machine of the fleet recorded, elsewhere.
func tappedText(bt *button, elsewhere bool) string {
	if bt.votes != nil {
		return votesText(bt)
	}
	where := " on the phone"
	if elsewhere {
		where = " on another machine"
	}
	switch bt.choice {
	case "approve", "approve-for":
		return "Approved" + where
	case "option":
		return "Chose " + strconv.Quote(bt.label) + where
	case "doubt":
		return "Denied: two different answers were given"
	default:
		return "Denied" + where
	}
}

func answerFor(r dialog.Request, bt *button) dialog.Answer {
	if bt.votes != nil {
		return dialog.Answer{Approved: bt.choice != "deny", For: bt.forDur, Votes: bt.votes}
	}
	switch bt.choice {
	case "approve":
		return dialog.Answer{Approved: true}
	case "approve-for":
		return dialog.Answer{Approved: true, For: r.ApproveFor}
	case "option":
		return dialog.Answer{Approved: true, Values: []string{bt.label}}
	default:
		return dialog.Answer{}
	}
}
