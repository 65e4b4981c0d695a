//go:build unix

package lifecycle

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// channelBackend is a way of asking in process that a test scripts: each
// Ask waits for an answer on the answers channel (or for its context),
// after moving the test clock by took, as a person reading takes time.
type channelBackend struct {
	te      *testEngine
	took    time.Duration
	answers chan channelAnswer
	asked   chan dialog.Request
	ended   chan error
}

type channelAnswer struct {
	approved    bool
	values      []string
	typed       bool
	approvedFor time.Duration
	err         error
}

func newChannelBackend(te *testEngine) *channelBackend {
	return &channelBackend{te: te, took: 2 * time.Second,
		answers: make(chan channelAnswer, 1), asked: make(chan dialog.Request, 4), ended: make(chan error, 4)}
}

func (b *channelBackend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	b.asked <- r
	select {
	case a := <-b.answers:
		b.te.advance(b.took)
		b.ended <- nil
		return dialog.Answer{Approved: a.approved, Values: a.values, Typed: a.typed, For: a.approvedFor}, a.err
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return dialog.Answer{}, ctx.Err()
	}
}

func channelCall(te *testEngine, b *channelBackend) Call {
	c := testCall("Ship v2?")
	ctx, cancel := context.WithCancel(context.Background())
	c.Channel = &Channel{Name: "elicitation", Backend: b, Context: ctx}
	c.Wait = 20 * time.Second
	// The holder's deadline is a real timer: the test clock starts now.
	te.clock.Store(time.Now().UnixNano())
	// Cleanups run last first: whatever is still asked ends, then the
	// test waits for it.
	te.t.Cleanup(te.Drain)
	te.t.Cleanup(cancel)
	return c
}

func (te *testEngine) headlessSession() {
	te.detect = func() platform.Session { return platform.Session{Reason: "no display"} }
}

// Where no dialog can be shown, a call with a Channel asks through it, in
// this process: no holder starts, the answer is recorded as a holder's
// would be, and the record and every history event name the channel.
func TestChannelAsksWhereNoDialogCanBeShown(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	b.answers <- channelAnswer{approved: true}
	r := te.ask(c)
	if r.ExitCode != ExitApproved || r.Remembered {
		t.Fatalf("asked through the channel: %+v", r)
	}
	if te.startCount() != 0 {
		t.Fatalf("%d holder processes started for a channel", te.startCount())
	}
	rec := te.record(te.prepare(c).Request.Identity())
	if rec.Channel != "elicitation" || rec.HolderPID != 0 || rec.Uncollected {
		t.Fatalf("record: channel %q, holder %d, uncollected %v", rec.Channel, rec.HolderPID, rec.Uncollected)
	}
	events, _, err := te.Events(0, te.prepare(c).Request.Identity())
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev.Event)
		if ev.Channel != "elicitation" {
			t.Errorf("event %s names channel %q", ev.Event, ev.Channel)
		}
	}
	if got := strings.Join(kinds, " "); got != "requested shown answered collected" && got != "requested answered collected" {
		t.Fatalf("history %q", got)
	}
}

// A Channel that is not Always stays unused where a dialog can be shown;
// one that is Always is used even there.
func TestChannelOnlyWhenNoDialogUnlessAlways(t *testing.T) {
	te := newTestEngine(t)
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Wait = 0
	if r := te.ask(c); r.ExitCode != ExitPending || te.startCount() != 1 || len(b.asked) != 0 {
		t.Fatalf("with a display: %+v, %d holders, %d channel asks; want a dialog", r, te.startCount(), len(b.asked))
	}

	c = channelCall(te, b)
	c.Request.Message, c.Channel.Always = "Tag v2?", true
	b.answers <- channelAnswer{approved: false}
	if r := te.ask(c); r.ExitCode != ExitDenied || te.startCount() != 1 {
		t.Fatalf("Always with a display: %+v after %d holder starts", r, te.startCount())
	}
}

// An answer given through a Channel after the call stopped waiting is
// kept: the next identical call collects it, once, without asking again.
func TestChannelAnswerAfterPendingIsCollected(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Wait = 0
	if r := te.ask(c); r.ExitCode != ExitPending {
		t.Fatalf("first call: %+v, want pending", r)
	}
	<-b.asked
	b.answers <- channelAnswer{approved: true}
	<-b.ended
	te.Drain()
	rec := te.record(te.prepare(c).Request.Identity())
	if rec.Status != store.Approved || !rec.Uncollected {
		t.Fatalf("after the late answer: %s, uncollected %v", rec.Status, rec.Uncollected)
	}
	te.advance(c.Remember + time.Second)
	if r := te.ask(c); r.ExitCode != ExitApproved || !r.Remembered {
		t.Fatalf("retry: %+v, want the kept approval", r)
	}
	if len(b.asked) != 0 {
		t.Fatal("the retry asked again")
	}
	if r := te.ask(c); r.ExitCode == ExitApproved {
		t.Fatalf("second retry past --remember got the approval again: %+v", r)
	}
}

// An answer faster than a person can read is no answer: the request
// fails as not shown, and nothing approves.
func TestChannelInstantAnswerIsNotShown(t *testing.T) {
	for _, approved := range []bool{false, true} {
		te := newTestEngine(t)
		te.headlessSession()
		b := newChannelBackend(te)
		b.took = 0
		c := channelCall(te, b)
		c.Retries = 0
		b.answers <- channelAnswer{approved: approved}
		r := te.ask(c)
		if r.ExitCode != ExitFailed || !strings.Contains(r.Message, "not shown") {
			t.Fatalf("instant answer (approve=%v): %+v", approved, r)
		}
	}
}

// A cancel reaches a request asked in this process without any signal:
// its asking ends, and the request ends cancelled.
func TestCancelRequestAskedThroughChannel(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Wait = 0
	if r := te.ask(c); r.ExitCode != ExitPending {
		t.Fatalf("first call: %+v", r)
	}
	<-b.asked
	r, outcome := te.cancel(te.record(te.prepare(c).Request.Identity()))
	if outcome != CancelledNow || r.Status != StatusCancelled {
		t.Fatalf("cancel: %+v outcome %v", r, outcome)
	}
	if err := <-b.ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the channel's asking ended with %v", err)
	}
}

// A channel's Context ends its asking: the request fails, and the next
// call asks again.
func TestChannelContextEndsAsking(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	ctx, cancel := context.WithCancel(context.Background())
	c.Channel.Context, c.Wait = ctx, 0
	te.ask(c)
	<-b.asked
	cancel()
	te.Drain()
	if rec := te.record(te.prepare(c).Request.Identity()); rec.Status != store.Failed {
		t.Fatalf("after the channel's context ended: %s", rec.Status)
	}
}

// With Withdraw, a request still open when the wait runs out is closed
// and ends withdrawn: no answer, so the next identical call asks again.
func TestWithdrawClosesTheOpenDialog(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("rm -rf build?")
	c.Wait, c.Withdraw = 0, true
	stop := te.fakeHolder(c)
	go closeOnRequest(te, c, stop)
	r := te.ask(c)
	if r.Status != StatusWithdrawn || r.ExitCode != ExitDenied {
		t.Fatalf("withdrawn call: %+v", r)
	}
	rec := te.record(c.Request.Identity())
	if rec.Status != store.Withdrawn || rec.Uncollected {
		t.Fatalf("record: %s, uncollected %v", rec.Status, rec.Uncollected)
	}
	c.Withdraw = false
	if r := te.ask(c); r.ExitCode != ExitPending || te.startCount() != 1 {
		t.Fatalf("next call: %+v after %d starts, want a new dialog", r, te.startCount())
	}
	if got := strings.Join(te.events(c.Request.Identity()), " "); !strings.HasPrefix(got, "withdrawn ") {
		t.Fatalf("history %q", got)
	}
}

// An answer that lands as the wait runs out wins over the withdrawal.
func TestWithdrawReturnsAnAnswerGivenMeanwhile(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("rm -rf build?")
	c.Wait, c.Withdraw = 0, true
	stop := te.fakeHolder(c)
	go func() {
		// The person clicks in the instant the withdrawal is asked.
		for {
			if rec, _, err := te.store.Get(c.Request.Identity()); err == nil && rec.CancelRequest != "" {
				stop(store.Approved)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if r := te.ask(c); r.ExitCode != ExitApproved {
		t.Fatalf("an approval given as the wait ran out: %+v", r)
	}
	if te.record(c.Request.Identity()).Uncollected {
		t.Fatal("the approval was returned but left uncollected")
	}
}

// closeOnRequest ends the fake holder's request as soon as something asks
// it to close, as a real holder does on SIGTERM or within a second.
func closeOnRequest(te *testEngine, c Call, stop func(store.Status)) {
	for {
		rec, _, err := te.store.Get(c.Request.Identity())
		if err == nil && rec.CancelRequest != "" {
			stop(rec.CancelRequest)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Joined is called once when an invocation starts or joins the asking of
// its request, and never for an answer it only returns.
func TestJoinedCalledOncePerAskingJoined(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	joins := 0
	c.Joined = func() {
		joins++
		if len(b.answers) == 0 {
			b.answers <- channelAnswer{approved: true}
		}
	}
	if r := te.ask(c); r.ExitCode != ExitApproved || joins != 1 {
		t.Fatalf("asked: %+v after %d joins, want approved after 1", r, joins)
	}
	if r := te.ask(c); r.ExitCode != ExitApproved || !r.Remembered || joins != 1 {
		t.Fatalf("remembered: %+v after %d joins, want no new join", r, joins)
	}
}

// An answer given through a Channel (a form an agent's host may fill in)
// is never the answer to the same question asked by dialog: the two are
// different requests, and the dialog's caller asks anew.
func TestDialogCallerNeverTakesAChannelsAnswer(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	b.answers <- channelAnswer{approved: true}
	if r := te.ask(c); r.ExitCode != ExitApproved {
		t.Fatalf("through the channel: %+v", r)
	}
	te.detect = func() platform.Session { return platform.Session{CanAsk: true} }
	plain := c
	plain.Channel, plain.Wait = nil, 0
	if r := te.ask(plain); r.ExitCode != ExitPending || te.startCount() != 1 {
		t.Fatalf("the same question by dialog: %+v after %d holder starts, want a new dialog", r, te.startCount())
	}
	always := *c.Channel
	always.Always = true
	c.Channel = &always
	if te.prepare(c).Request.Identity() == plain.Request.Identity() {
		t.Fatal("the form's request and the dialog's share an identity")
	}
	keyed, keyedPlain := c, plain
	keyed.Request.Key, keyedPlain.Request.Key = "release", "release"
	if te.prepare(keyed).Request.Identity() == keyedPlain.Request.Identity() {
		t.Fatal("under one --key, the form's request and the dialog's share an identity")
	}
}

// prepare decides once how a call is asked: the channel where no dialog
// can be shown or it is Always, naming it in the request; else a dialog.
func TestPrepare(t *testing.T) {
	te := newTestEngine(t)
	b := newChannelBackend(te)
	c := channelCall(te, b)
	if p := te.prepare(c); p.Channel != nil || p.Request.Via != "" {
		t.Fatalf("with a display: %+v", p.Channel)
	}
	c.Channel.Always = true
	p := te.prepare(c)
	if p.Channel == nil || p.Request.Via != "elicitation" || !c.Channel.Always {
		t.Fatalf("Always: via %q", p.Request.Via)
	}
	if again := te.prepare(p); !reflect.DeepEqual(again.Request, p.Request) || again.Channel != p.Channel {
		t.Fatal("preparing a prepared call changed it")
	}
	te.headlessSession()
	c.Channel.Always = false
	if p := te.prepare(c); p.Channel == nil || p.Request.Via != "elicitation" || c.Channel.Always {
		t.Fatalf("headless: via %q, and the caller's Channel changed: %v", p.Request.Via, c.Channel.Always)
	}
	bad := testCall("x")
	bad.Request.Via = "elicitation"
	if _, err := te.Ask(context.Background(), bad); err == nil {
		t.Fatal("a request naming a channel it is not asked through was asked")
	}
}

// ask-confirm status of a withdrawn request says there is no answer, and
// that asking again shows a new dialog: never the withdrawal as an answer.
func TestStatusOfWithdrawnRequest(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("rm -rf build?")
	rec := te.seedAnswer(c, store.Withdrawn, time.Second)
	r := te.statusOf(rec)
	if r.Status != StatusStale || r.ExitCode != ExitPending || !r.ShouldRetry || !strings.Contains(r.Message, "withdrawn") || strings.Contains(r.Message, "--remember") {
		t.Fatalf("status of a withdrawn request: %+v", r)
	}
}

// A Channel that cannot outlive its caller (the terminal prompt) is waited
// for until the request ends, whatever the call's Wait: a pending result
// would end the asking with the caller's process.
func TestAttachedChannelIsWaitedForPastWait(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Channel.Name, c.Channel.Attached = "terminal", true
	c.Wait = 0
	go func() {
		<-b.asked
		// The person answers well after the call's Wait of 0.
		time.Sleep(100 * time.Millisecond)
		b.answers <- channelAnswer{approved: true}
	}()
	r := te.ask(c)
	if r.ExitCode != ExitApproved || r.Remembered {
		t.Fatalf("attached channel with --wait 0: %+v, want the answer", r)
	}
	rec := te.record(te.prepare(c).Request.Identity())
	if rec.Channel != "terminal" || rec.Uncollected {
		t.Fatalf("record: channel %q, uncollected %v", rec.Channel, rec.Uncollected)
	}

	// Its expiry, at the request's own deadline, is reported as one.
	c.Request.Message, c.Timeout = "Tag v2?", 300*time.Millisecond
	if r := te.ask(c); r.ExitCode != ExitExpired {
		t.Fatalf("attached channel left unanswered: %+v, want expired", r)
	}
}

// A request asked with --key through a Channel is found by that key, as
// one asked by dialog is, though the channel is part of its identity.
func TestFindByKeyOfChannelRequest(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Request.Key = "release-42"
	b.answers <- channelAnswer{approved: true}
	if r := te.ask(c); r.ExitCode != ExitApproved {
		t.Fatalf("asked: %+v", r)
	}
	rec, err := te.Find("release-42")
	if err != nil || rec.Identity != te.prepare(c).Request.Identity() {
		t.Fatalf("Find(release-42) = %s, %v; want the channel's request", rec.Identity, err)
	}
	events, _, err := te.Events(0, "release-42")
	if err != nil || len(events) == 0 {
		t.Fatalf("Events(release-42) = %d events, %v", len(events), err)
	}

	// The same key asked by dialog too, with another question, is a second
	// request: the key alone names neither, since either one's answer read
	// as the other's would tell a caller what nobody answered; each
	// identity still names its own.
	d := testCall("Deploy staging?")
	d.Request.Key = "release-42"
	byDialog := te.seedAnswer(d, store.Approved, time.Second)
	if rec, err := te.Find("release-42"); !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), dialog.ShortIdentity(byDialog.Identity)+": dialog, approved") ||
		!strings.Contains(err.Error(), dialog.ShortIdentity(te.prepare(c).Request.Identity())+": "+c.Channel.Name+", approved") {
		t.Fatalf("Find(release-42) asked two ways = %s, %v; want ErrUnknownKey naming both", rec.Identity, err)
	}
	for _, id := range []string{byDialog.Identity, te.prepare(c).Request.Identity()} {
		if rec, err := te.Find(id); err != nil || rec.Identity != id {
			t.Fatalf("Find(%s) = %s, %v", id, rec.Identity, err)
		}
	}
}

// A caller that joins another's open prompt, and starts its own only when
// that one dies late, waits for its own prompt to its end: the wait it set
// out with is no bound on a prompt started after it.
func TestAttachedChannelStartedLateIsWaitedFor(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Channel.Name, c.Channel.Attached = "terminal", true
	c.Wait, c.Timeout = 0, time.Second
	watch := &watchRecorder{}
	c.Watch = watch
	// Another invocation's prompt, open, holding the identity's lock.
	lock := te.promptElsewhere(t, c)

	done := make(chan Result, 1)
	go func() { done <- te.ask(c) }()
	// Joined, waiting on the lock: the Watcher is told of the wait.
	deadline := time.Now().Add(time.Minute)
	for n, _ := watch.told(); n == 0; n, _ = watch.told() {
		if time.Now().After(deadline) {
			t.Fatal("the caller never joined the prompt open elsewhere")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// That prompt dies just before this caller's first wait would end
	// (Timeout plus its grace), and this caller asks itself.
	te.advance(attachedGrace + c.Timeout - 500*time.Millisecond)
	lock.Release()
	<-b.asked
	// Past the end of the wait it set out with, its own prompt is still up.
	te.advance(time.Second)
	time.Sleep(1500 * time.Millisecond) // more than a relook
	select {
	case r := <-done:
		t.Fatalf("the caller returned %+v while its own prompt was up", r)
	default:
	}
	b.answers <- channelAnswer{approved: true}
	if r := <-done; r.ExitCode != ExitApproved || r.Attempt != 2 {
		t.Fatalf("%+v, want its own prompt's approval, attempt 2", r)
	}
}

// An answer a person gave in a dialog is returned to the same question
// from a call that could also ask through its Channel, before anything
// decides how that call would ask (no Detect: a connection to the
// display), wherever it now runs. An answer given through the Channel is
// never returned to the dialog's question, and a failure to show the
// dialog is no answer to return.
func TestDialogAnswerIsReturnedBeforeDecidingTheChannel(t *testing.T) {
	te := newTestEngine(t)
	detected := 0
	te.detect = func() platform.Session { detected++; return platform.Session{Reason: "no display"} }
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Channel.Name, c.Channel.Attached = "terminal", true
	te.seedAnswer(c, store.Approved, time.Second)
	r := te.ask(c)
	if r.ExitCode != ExitApproved || !r.Remembered || detected != 0 || len(b.asked) != 0 {
		t.Fatalf("%+v after %d detections and %d asks through the channel", r, detected, len(b.asked))
	}

	c.Request.Message = "Tag v2?"
	te.seedAnswer(c, store.Failed, time.Second)
	b.answers <- channelAnswer{approved: false}
	if r := te.ask(c); r.ExitCode != ExitDenied || detected != 1 || r.Remembered {
		t.Fatalf("after a failed dialog: %+v after %d detections", r, detected)
	}
}

// A Channel another program may answer (an MCP client's form, not
// Attached) keeps its requests apart from the dialog's both ways: a
// dialog's answer is not returned to the question asked through it, which
// is asked through the Channel anew.
func TestDetachedChannelDoesNotTakeADialogsAnswer(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	te.seedAnswer(c, store.Approved, time.Second)
	b.answers <- channelAnswer{approved: false}
	if r := te.ask(c); r.ExitCode != ExitDenied || r.Remembered || len(b.asked) != 1 {
		t.Fatalf("%+v after %d asks through the channel; want the form asked, and its deny", r, len(b.asked))
	}
}

// watchRecorder is a Watcher that counts what it is told.
type watchRecorder struct {
	mu             sync.Mutex
	waits          int
	channel, phone string
}

func (w *watchRecorder) Waiting(time.Duration, time.Time) { w.mu.Lock(); w.waits++; w.mu.Unlock() }
func (w *watchRecorder) Done()                            {}
func (w *watchRecorder) AskedOn(channel, phone string) {
	w.mu.Lock()
	w.channel, w.phone = channel, phone
	w.mu.Unlock()
}

func (w *watchRecorder) told() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waits, w.channel
}

// A caller with a terminal of its own that joins the same question open on
// another terminal is told of its wait, and where the question is open, so
// it does not wait on a blank screen; once it asks on its own terminal,
// its prompt counts down itself and the Watcher is told nothing more.
func TestAttachedChannelJoinerIsToldWhereItIsOpen(t *testing.T) {
	te := newTestEngine(t)
	te.headlessSession()
	b := newChannelBackend(te)
	c := channelCall(te, b)
	c.Channel.Name, c.Channel.Attached = "terminal", true
	c.Wait, c.Timeout = 0, time.Hour
	watch := &watchRecorder{}
	c.Watch = watch
	lock := te.promptElsewhere(t, c)
	done := make(chan Result, 1)
	go func() { done <- te.ask(c) }()
	deadline := time.Now().Add(time.Minute)
	for n, ch := watch.told(); n == 0 || ch != "terminal"; n, ch = watch.told() {
		if time.Now().After(deadline) {
			t.Fatalf("a caller joining a prompt on another terminal was told %d times, channel %q", n, ch)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// That prompt dies; this caller asks on its own terminal.
	lock.Release()
	<-b.asked
	before, _ := watch.told()
	time.Sleep(2500 * time.Millisecond) // more than two of the Watcher's ticks
	if after, _ := watch.told(); after > before+1 {
		t.Fatalf("the Watcher was told %d more times while the caller's own prompt was up", after-before)
	}
	b.answers <- channelAnswer{approved: true}
	if r := <-done; r.ExitCode != ExitApproved {
		t.Fatalf("%+v, want its own prompt's approval", r)
	}
}

// A prefix of an identity too short to name a request says so, rather
// than that nothing matches: the person gave the right characters, too
// few of them.
func TestFindTooShortAPrefix(t *testing.T) {
	te := newTestEngine(t)
	rec := te.seedAnswer(testCall("Deploy?"), store.Approved, time.Second)
	for _, key := range []string{rec.Identity[:1], strings.ToUpper(rec.Identity[:3])} {
		_, err := te.Find(key)
		if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "too short") || !strings.Contains(err.Error(), "at least 4") {
			t.Errorf("Find(%q) = %v; want it called too short, with the least it takes", key, err)
		}
	}
	if got, err := te.Find(rec.Identity[:minPrefix]); err != nil || got.Identity != rec.Identity {
		t.Errorf("Find(%q) = %s, %v", rec.Identity[:minPrefix], got.Identity, err)
	}
	if _, err := te.Find("zz"); err == nil || strings.Contains(err.Error(), "too short") {
		t.Errorf("Find(zz) = %v; want no match, it is no identity's start", err)
	}
}

// promptElsewhere plays another invocation's prompt of c on a terminal,
// open: its record is shown on the terminal channel, and it holds the
// identity's lock until the caller releases it.
func (te *testEngine) promptElsewhere(t *testing.T, c Call) platform.Lock {
	t.Helper()
	prepared := te.prepare(c)
	id := prepared.Request.Identity()
	if err := store.EnsureDir(te.paths.Locks); err != nil {
		t.Fatal(err)
	}
	lock, ok, err := platform.TryLock(te.paths.LockFile(id))
	if err != nil || !ok {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	now := te.now()
	if _, err := te.store.Update(id, func(r *store.Record, _ bool) (bool, error) {
		*r = store.Record{ContentHash: prepared.Request.ContentHash(), Status: store.Shown, Attempt: 1,
			RequestedAt: now, ShownAt: now, Deadline: now.Add(time.Hour), Channel: "terminal"}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return lock
}
