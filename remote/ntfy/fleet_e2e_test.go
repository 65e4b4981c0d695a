//go:build e2e && unix

package ntfy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// These tests run two or three "machines" of one fleet: Backends that
// share a setup with its secret and nothing else (each has its own
// connection, its own request and its own buttons), against the real ntfy
// server, with the tap through the scripted phone.

// fleetConfig is configOf(s) with a fleet's secret.
func fleetConfig(t *testing.T, s *ntfytest.Server) remote.Config {
	t.Helper()
	c := configOf(s)
	var err error
	if c.Secret, err = remote.NewSecret(); err != nil {
		t.Fatal(err)
	}
	return c
}

// machine is one machine of a fleet: its Backend, and what it reported.
type machine struct {
	*Backend
	asking  *asking // the last askFor on it
	mu      sync.Mutex
	ignored []string
	sent    chan struct{}
	once    sync.Once
	dead    atomic.Bool
}

// newMachine is a machine with setup c that collects the fleet's answers
// given within collect. Its connection to the server can be cut for good
// (kill), as when its runner is torn down.
func newMachine(c remote.Config, collect time.Duration) *machine {
	m := &machine{sent: make(chan struct{})}
	m.Backend = &Backend{Config: c, CollectWithin: collect,
		HTTP: &http.Client{Transport: cuttable{&m.dead}, CheckRedirect: noRedirect},
		Ignored: func(r string) {
			m.mu.Lock()
			m.ignored = append(m.ignored, r)
			m.mu.Unlock()
		},
		Sent: func() { m.once.Do(func() { close(m.sent) }) }}
	return m
}

// cuttable is the default transport until dead: then every request fails,
// as from a machine that is gone.
type cuttable struct{ dead *atomic.Bool }

func (c cuttable) RoundTrip(r *http.Request) (*http.Response, error) {
	if c.dead.Load() {
		return nil, errors.New("this machine is gone")
	}
	return http.DefaultTransport.RoundTrip(r)
}

// gone cuts m from the server for good, as a runner torn down mid-request:
// its Ask a, which has put its request on the phone, ends, and what it
// would still send is given a second.
func (m *machine) gone(t *testing.T, a *asking) {
	t.Helper()
	m.awaitSent(t)
	m.dead.Store(true)
	a.cancel()
	<-a.done
	ctx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	m.Finish(ctx)
}

func (m *machine) ignoredAs(reason string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.ignored {
		if r == reason {
			return true
		}
	}
	return false
}

func (m *machine) awaitSent(t *testing.T) {
	t.Helper()
	var returned chan struct{}
	if m.asking != nil {
		returned = m.asking.done
	}
	select {
	case <-m.sent:
	case <-returned:
		select {
		case <-m.sent:
		default:
			t.Fatalf("Ask returned before its request reached the server: %+v, %v; it ignored %q", m.asking.ans, m.asking.err, m.ignoredList())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the machine's request never reached the server; it ignored %q", m.ignoredList())
	}
}

// wait is m's last askFor's wait, and says what m ignored if it hangs.
func (m *machine) wait(t *testing.T) (dialog.Answer, error) {
	t.Helper()
	select {
	case <-m.asking.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("Ask did not return within 60 s; it ignored %q", m.ignoredList())
	}
	return m.asking.wait(t)
}

func (m *machine) ignoredList() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.ignored)
}

// askFor asks r on m until an hour from now.
func askFor(m *machine, r dialog.Request) *asking {
	ctx, stop := context.WithTimeout(context.Background(), time.Hour)
	a := ask(ctx, m.Backend, r)
	cancel := a.cancel
	a.cancel = func() { cancel(); stop() }
	m.asking = a
	return a
}

// A machine that never asked collects an answer given on the phone after
// the machine that asked is gone (cut from the server mid-request, as a
// runner torn down): no second request on the phone, the answer returned,
// and the phone followed up once, by the machine that collected, since
// the one that asked cannot.
func TestFleetCollectsAfterTheAskerIsGone(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Deploy v2 from CI?")
	r.Key = "deploy-abc123"

	first := newMachine(c, 15*time.Minute)
	a := askFor(first, r)
	m := phone.Await(1)
	first.gone(t, a)

	if code := phone.Tap(m, "Approve"); code != http.StatusOK {
		t.Fatalf("the tap got %d", code)
	}
	rerun := newMachine(c, 15*time.Minute)
	b := askFor(rerun, r)
	ans, err := b.wait(t)
	if err != nil || !ans.Approved {
		t.Fatalf("the re-run on another machine: %+v %v, want the approval given on the phone", ans, err)
	}
	if f := phone.Await(2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("follow-up %q", f.Message)
	}
	time.Sleep(time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the one request and one follow-up", n)
	}
}

// A second and a third machine asking the same request while it is open
// join it: one message on the phone, one tap, the same answer everywhere,
// and one follow-up, from the machine that put it on the phone.
func TestFleetJoinsAnOpenRequest(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Ship the matrix?")
	r.Key = "release-42"

	var ms []*machine
	var asks []*asking
	for i := range 3 {
		m := newMachine(c, 15*time.Minute)
		ms, asks = append(ms, m), append(asks, askFor(m, r))
		m.awaitSent(t)
		if i == 0 {
			phone.Await(1)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := phone.Count(); n != 1 {
		t.Fatalf("three machines put %d messages on the phone, want 1", n)
	}
	phone.Tap(phone.Await(1), "Approve")
	for i := range asks {
		if ans, err := ms[i].wait(t); err != nil || !ans.Approved {
			t.Fatalf("machine %d: %+v %v", i+1, ans, err)
		}
	}
	if f := phone.Await(2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("follow-up %q", f.Message)
	}
	time.Sleep(time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the request and one follow-up", n)
	}
}

// A look-up that reads a request as open, untapped, while its tap is
// already given: the server sends a message to the streams that wait for
// it before it stores it for a poll, so a machine that asks just after the
// tap, on a loaded server, can read the record without it. The tap is
// then read when the machine joins the request, and it is collected by
// the rule a look-up collects by: past --remember (here 0) it is not, and
// the machine asks anew. The first poll of the second machine is read as
// the server's cache held it before the tap was stored: the claim alone.
func TestFleetTapStoredLateIsNotCollectedPastRemember(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Rotate the keys?")
	r.Key = "rotate"

	first := newMachine(c, 0)
	askFor(first, r)
	phone.Tap(phone.Await(1), "Approve")
	if ans, err := first.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the first machine: %+v %v", ans, err)
	}
	first.Finish(context.Background())
	if f := phone.Await(2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
		t.Fatalf("follow-up %q", f.Message)
	}

	// A machine whose stream a hub opened: the hub gives the server's time
	// of its opening a second early, so the tap, given before this machine
	// asked, reads as given in the second after its opening. The stream
	// never brought it: it is collected within --remember only.
	cl := client{c: c, http: http.DefaultClient}
	bs, _ := newButtons(r, nil)
	q := newQuestion(c.SecretKey(), r, bs, "0000000000000000", 0)
	ms, err := cl.poll(context.Background(), c.ReplyTopic, "all", keepAll, keyTag(q.key, q.identity))
	if err != nil {
		t.Fatal(err)
	}
	var tapAt int64
	for _, m := range ms {
		if f, ok := fields(m.Message); ok && f["cap"] != "" {
			tapAt = m.Time
		}
	}
	if tapAt == 0 {
		t.Fatalf("no tap in the fleet's record: %+v", ms)
	}
	for _, remember := range []time.Duration{0, time.Minute} {
		q := newQuestion(c.SecretKey(), r, bs, "0000000000000000", 0)
		bt, ok := (&Backend{Config: c, Remember: remember}).lookUp(context.Background(), cl, q, &subscription{openedAt: tapAt - 1})
		if want := remember > 0; ok != want || ok && bt.choice != "approve" {
			t.Fatalf("--remember %s: a look-up a hub opened a second before the tap collected %v (%+v), want %v", remember, ok, bt, want)
		}
	}

	second := newMachine(c, 0)
	stale := &claimsOnlyFirstPoll{next: second.HTTP.Transport}
	second.HTTP.Transport = stale
	askedAnew(t, second, askFor(second, r), phone.Count, 3)
	m := phone.Await(3)
	if len(m.Actions) == 0 || m.Message != r.Message {
		t.Fatalf("the phone's third message is %q, not the request asked anew", m.Message)
	}
	if stale.dropped.Load() == 0 {
		t.Fatal("the second machine's look-up read nothing that the test could hold back: the test proves nothing")
	}
	phone.Tap(m, "Cancel")
	if ans, err := second.wait(t); err != nil || ans.Approved {
		t.Fatalf("the second machine, asked anew and denied: %+v %v", ans, err)
	}
}

// askedAnew waits until count, a phone's messages, reaches n: m, whose
// Ask is a, has asked anew. It fails the test where a returns first,
// with an answer given before m asked.
func askedAnew(t *testing.T, m *machine, a *asking, count func() int, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); count() < n; time.Sleep(20 * time.Millisecond) {
		select {
		case <-a.done:
			t.Fatalf("the machine returned %+v, %v without asking anew: it took an answer given before it asked, past --remember", a.ans, a.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the machine neither asked anew nor returned within 30 s; it ignored %q", m.ignoredList())
		}
	}
}

// claimsOnlyFirstPoll answers the first poll with the requests' records
// alone (rec=open), as a server's cache that has stored no tap yet, and
// counts what it held back.
type claimsOnlyFirstPoll struct {
	next    http.RoundTripper
	polls   atomic.Int64
	dropped atomic.Int64
}

func (c *claimsOnlyFirstPoll) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || r.URL.Query().Get("poll") != "1" || c.polls.Add(1) != 1 {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var kept []byte
	for line := range bytes.Lines(body) {
		var m message
		if json.Unmarshal(line, &m) == nil && strings.Contains(m.Message, "rec=open") {
			kept = append(kept, line...)
		} else {
			c.dropped.Add(1)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(kept))
	resp.ContentLength = int64(len(kept))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// Approve and Deny tapped within one second: every machine, the one that
// reads the stream, the one that joined, and one that asks after, within
// --remember, denies.
func TestFleetTwoTapsInOneSecondDeny(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Drop the table?")
	r.Key = "drop-1"
	asker, joiner := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
	a := askFor(asker, r)
	m := phone.Await(1)
	asker.awaitSent(t)
	j := askFor(joiner, r)
	joiner.awaitSent(t)
	time.Sleep(ntfytest.ReadingTime)
	// Both taps early in one second of the server's, which runs on this
	// machine's clock.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	phone.Tap(m, "Approve")
	phone.Tap(m, "Cancel")
	for name, x := range map[string]*asking{"the asker": a, "the joiner": j} {
		if ans, err := x.wait(t); err != nil || ans.Approved {
			t.Fatalf("%s: %+v %v, want a deny", name, ans, err)
		}
	}
	// The two machines took the answer: a third reuses it within
	// --remember.
	late := newMachine(c, 15*time.Minute)
	late.Remember = time.Minute
	if ans, err := askFor(late, r).wait(t); err != nil || ans.Approved {
		t.Fatalf("a machine that collects after: %+v %v, want a deny", ans, err)
	}
}

// A reply made with another fleet's secret answers nothing, on the
// machine that asked and on one that joined, and is recorded as ignored;
// another fleet asking the same question on the same topics neither joins
// this one nor is answered by its tap.
func TestFleetIgnoresAnotherFleet(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c, other := fleetConfig(t, s), fleetConfig(t, s)
	r := confirmRequest("Rotate the keys?")
	r.Key = "rotate"
	asker, joiner, stranger := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute), newMachine(other, 15*time.Minute)
	a := askFor(asker, r)
	m := phone.Await(1)
	asker.awaitSent(t)
	j := askFor(joiner, r)
	joiner.awaitSent(t)
	x := askFor(stranger, r)
	theirs := phone.Await(2)
	stranger.awaitSent(t)

	// The other fleet's Approve, sent for this fleet's request.
	id := requestIDOf(t, m)
	body := theirs.Actions[len(theirs.Actions)-1].Body
	forged := strings.Replace(body, "req="+requestIDOf(t, theirs), "req="+id, 1)
	s.Post(forged)
	deadline := time.Now().Add(30 * time.Second)
	for !(joiner.ignoredAs(ignoredForeign) && asker.ignoredAs(ignoredForged)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !joiner.ignoredAs(ignoredForeign) || !asker.ignoredAs(ignoredForged) {
		t.Fatalf("the other fleet's reply: the joiner recorded %q, the asker %q", joiner.ignored, asker.ignored)
	}
	phone.Tap(m, "Approve")
	for name, y := range map[string]*asking{"the asker": a, "the joiner": j} {
		if ans, err := y.wait(t); err != nil || !ans.Approved {
			t.Fatalf("%s: %+v %v", name, ans, err)
		}
	}
	select {
	case <-x.done:
		t.Fatalf("the other fleet's request was answered by this fleet's tap: %+v %v", x.ans, x.err)
	case <-time.After(2 * time.Second):
	}
	x.cancel()
	x.wait(t)
}

// Past the time an answer is collected, the same question asks anew, on
// any machine, and the earlier request's Approve, tapped again, answers
// nothing.
func TestFleetSingleUse(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Restart the service?")
	r.Key = "restart"
	first := newMachine(c, 0)
	a := askFor(first, r)
	old := phone.Await(1)
	phone.Tap(old, "Approve")
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the first request: %+v %v", ans, err)
	}
	phone.Await(2) // its follow-up
	// Another machine, which collects nothing already answered.
	oldTapAnswersNothing(t, phone, newMachine(c, 0), r, old, 3)
}

// oldTapAnswersNothing asks r on m, which puts a new request on the
// phone as its n-th message; a tap of Approve on old, an earlier request
// of the same question, answers nothing, and the new request ends with
// the deny tapped on its own message.
func oldTapAnswersNothing(t *testing.T, phone *ntfytest.Phone, m *machine, r dialog.Request, old ntfytest.Message, n int) {
	t.Helper()
	b := askFor(m, r)
	msg := phone.Await(n)
	if len(msg.Actions) == 0 {
		t.Fatalf("message %d is %q, want a new request", n, msg.Message)
	}
	phone.Tap(old, "Approve")
	time.Sleep(2 * time.Second)
	select {
	case <-b.done:
		t.Fatalf("a tap on the earlier request answered the new one: %+v %v", b.ans, b.err)
	default:
	}
	phone.Tap(msg, "Cancel")
	if ans, err := b.wait(t); err != nil || ans.Approved {
		t.Fatalf("the new request: %+v %v, want the deny tapped", ans, err)
	}
}

// Three machines asking the same request at the same moment, before any
// has seen another's record, agree on one of them: one message on the
// phone, one tap, three answers.
func TestFleetAskedAtOnce(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	r := confirmRequest("Migrate the database?")
	r.Key = "migrate-7"
	var asks []*asking
	var ms []*machine
	for range 3 {
		ms = append(ms, newMachine(c, 15*time.Minute))
	}
	for _, m := range ms {
		asks = append(asks, askFor(m, r))
	}
	for _, m := range ms {
		m.awaitSent(t)
	}
	time.Sleep(time.Second)
	if n := phone.Count(); n != 1 {
		t.Fatalf("three machines asking at once put %d messages on the phone, want 1", n)
	}
	phone.Tap(phone.Await(1), "Approve")
	for i := range asks {
		if ans, err := ms[i].wait(t); err != nil || !ans.Approved {
			t.Fatalf("machine %d: %+v %v; it ignored %q", i+1, ans, err, ms[i].ignored)
		}
	}
}

// counting counts the HTTP requests a machine makes.
type counting struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// A machine that never asked collects an answer from the fleet's record
// with the same number of requests to the server however many other
// messages the reply topic holds: the server filters the record by its
// tag (P11's bound, at 100 and 2,000 other messages). The look-up's time
// is logged beside a bare poll's over the whole cache, filtered by a tag
// nothing carries: the server reads the topic's cache either way.
func TestFleetLookUpCostIsFixed(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	cl := client{c: c, http: http.DefaultClient}
	filled := 0
	var counts []int64
	for i, others := range []int{100, 2000} {
		r := confirmRequest("Collect me?")
		r.Key = fmt.Sprintf("p11-%d", i)
		first := newMachine(c, 15*time.Minute)
		before := phone.Count()
		a := askFor(first, r)
		m := phone.Await(before + 1)
		first.awaitSent(t)
		first.dead.Store(true)
		a.cancel()
		<-a.done
		phone.Tap(m, "Approve")
		for ; filled < others; filled++ {
			s.Post(fmt.Sprintf("unrelated %d", filled))
		}
		bare := time.Now()
		if _, err := cl.poll(context.Background(), c.ReplyTopic, "all", keepAll, "no-such-tag"); err != nil {
			t.Fatal(err)
		}
		bareTook := time.Since(bare)
		// The look-up alone, as the collector makes it.
		bs, _ := newButtons(r, nil)
		looked := time.Now()
		if bt, ok := (&Backend{Config: c, CollectWithin: time.Hour}).lookUp(context.Background(), cl, newQuestion(c.SecretKey(), r, bs, "0000000000000000", 0), &subscription{openedAt: time.Now().Unix()}); !ok || bt.choice != "approve" {
			t.Fatalf("with %d other messages the look-up found %+v", others, bt)
		}
		lookUpTook := time.Since(looked)
		collector := newMachine(c, 15*time.Minute)
		count := &counting{next: collector.HTTP.Transport}
		collector.HTTP.Transport = count
		ans, err := askFor(collector, r).wait(t)
		if err != nil || !ans.Approved {
			t.Fatalf("with %d other messages: %+v %v", others, ans, err)
		}
		t.Logf("with %d other messages: the look-up took %s, a bare poll %s; collecting made %d requests", others, lookUpTook, bareTook, count.n.Load())
		counts = append(counts, count.n.Load())
		// The collector tells the phone, as the machine that asked is
		// gone; awaited here, so the next round's request is the next
		// message (a loaded machine sent it after that request once).
		if f := phone.Await(before + 2); !strings.HasPrefix(f.Message, "Approved on the phone at ") {
			t.Fatalf("with %d other messages: follow-up %q", others, f.Message)
		}
	}
	if counts[0] != counts[1] {
		t.Fatalf("the look-up made %d requests with 100 other messages and %d with 2,000", counts[0], counts[1])
	}
}

// gated holds a machine's requests to the server as a test orders them:
// its claim waits for claimAfter, and its poll number failPoll (from 1)
// fails; looked is closed once its first poll (the look-up) answered,
// claimed once its claim was stored.
type gated struct {
	next       http.RoundTripper
	claimAfter <-chan struct{}
	failPoll   int64
	polls      atomic.Int64
	looked     chan struct{}
	claimed    chan struct{}
	claimID    string // the request id its claim named, once claimed
}

func (g *gated) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && r.URL.Query().Get("poll") == "1" {
		n := g.polls.Add(1)
		if n == g.failPoll {
			return nil, errors.New("this poll fails, as the test says")
		}
		resp, err := g.next.RoundTrip(r)
		if n == 1 {
			close(g.looked)
		}
		return resp, err
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return g.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte("rec=open")) {
		return g.next.RoundTrip(r)
	}
	if g.claimAfter != nil {
		<-g.claimAfter
	}
	resp, err := g.next.RoundTrip(r)
	var m message
	if json.Unmarshal(body, &m) == nil {
		for _, f := range strings.Fields(m.Message) {
			if id, ok := strings.CutPrefix(f, "req="); ok {
				g.claimID = id
			}
		}
	}
	close(g.claimed)
	return resp, err
}

// Two machines that ask at once put two requests on the phone where one
// cannot read the fleet's record after its claim (the same happens when a
// loaded server stores a claim too late for the other's read). A tap on
// either request answers both machines: neither waits for a tap the
// person gave on the other's message. The order is forced: machine 2
// claims after machine 1 looked the record up, and machine 1 claims after
// machine 2, so each sees the other's claim, machine 2's first, and
// machine 1's read of the claims fails.
func TestFleetTwoRequestsOnThePhoneAnswerEachOther(t *testing.T) {
	for _, tapOn := range []int{1, 2} {
		t.Run(fmt.Sprintf("tap on machine %d's", tapOn), func(t *testing.T) {
			s := ntfytest.New(t)
			phone := ntfytest.NewPhone(t, s)
			c := fleetConfig(t, s)
			r := confirmRequest("Rotate the keys?")
			r.Key = "rotate-1"
			m1, m2 := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
			g1 := &gated{next: m1.HTTP.Transport, failPoll: 2, looked: make(chan struct{}), claimed: make(chan struct{})}
			g2 := &gated{next: m2.HTTP.Transport, claimAfter: g1.looked, looked: make(chan struct{}), claimed: make(chan struct{})}
			g1.claimAfter = g2.claimed
			m1.HTTP.Transport, m2.HTTP.Transport = g1, g2
			askFor(m1, r)
			askFor(m2, r)
			m1.awaitSent(t)
			m2.awaitSent(t)
			first, second := phone.Await(1), phone.Await(2)
			if phone.Count() != 2 {
				t.Fatalf("the phone has %d messages, want the two requests", phone.Count())
			}
			tapped := map[string]ntfytest.Message{requestIDOf(t, first): first, requestIDOf(t, second): second}
			m := tapped[g1.claimID]
			if tapOn == 2 {
				m = tapped[g2.claimID]
			}
			if m.ID == "" {
				t.Fatalf("the phone's messages %v are not the two machines' requests", tapped)
			}
			phone.Tap(m, "Approve")
			for i, mc := range []*machine{m1, m2} {
				if ans, err := mc.wait(t); err != nil || !ans.Approved {
					t.Fatalf("machine %d: %+v %v; it ignored %q", i+1, ans, err, mc.ignored)
				}
			}
		})
	}
}

// Faults across the fleet (point 6): the server killed and restarted
// while two machines wait on one request (every connection dropped at
// once, the tap made before either reconnected), and machines whose
// clocks are a minute behind and a minute ahead, one joining and one
// collecting after the tap (a retry within --remember). No answer is lost, none invented, and the
// phone gets one request and one follow-up.
func TestFleetFaults(t *testing.T) {
	t.Run("server restarted", func(t *testing.T) {
		s := ntfytest.New(t)
		phone := ntfytest.NewPhone(t, s)
		c := fleetConfig(t, s)
		r := confirmRequest("Restart-proof?")
		r.Key = "restart-1"
		m1, m2 := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
		m1.Retry, m2.Retry = 200*time.Millisecond, 200*time.Millisecond
		askFor(m1, r)
		m := phone.Await(1)
		m1.awaitSent(t)
		askFor(m2, r)
		m2.awaitSent(t)
		s.Stop()
		s.Start()
		if code := phone.Tap(m, "Approve"); code != http.StatusOK {
			t.Fatalf("the tap after the restart got %d", code)
		}
		for i, mc := range []*machine{m1, m2} {
			if ans, err := mc.wait(t); err != nil || !ans.Approved {
				t.Fatalf("machine %d after the restart: %+v %v; it ignored %q", i+1, ans, err, mc.ignoredList())
			}
		}
		awaitOneFollowUp(t, phone, "Approved on the phone at ")
	})
	t.Run("clocks a minute off", func(t *testing.T) {
		s := ntfytest.New(t)
		phone := ntfytest.NewPhone(t, s)
		c := fleetConfig(t, s)
		r := confirmRequest("Whatever the clocks say?")
		r.Key = "clocks-1"
		behind, ahead := newMachine(c, 15*time.Minute), newMachine(c, 15*time.Minute)
		behind.Now = func() time.Time { return time.Now().Add(-time.Minute) }
		ahead.Now = func() time.Time { return time.Now().Add(time.Minute) }
		// The machines that waited took the answer: a retry collects it
		// within --remember.
		ahead.Remember = 15 * time.Minute
		asker := newMachine(c, 15*time.Minute)
		askFor(asker, r)
		m := phone.Await(1)
		asker.awaitSent(t)
		askFor(behind, r)
		behind.awaitSent(t)
		phone.Tap(m, "Approve")
		for i, mc := range []*machine{asker, behind} {
			if ans, err := mc.wait(t); err != nil || !ans.Approved {
				t.Fatalf("machine %d: %+v %v; it ignored %q", i+1, ans, err, mc.ignoredList())
			}
		}
		askFor(ahead, r)
		if ans, err := ahead.wait(t); err != nil || !ans.Approved {
			t.Fatalf("the machine a minute ahead: %+v %v; it ignored %q", ans, err, ahead.ignoredList())
		}
		awaitOneFollowUp(t, phone, "Approved on the phone at ")
	})
}

// awaitOneFollowUp waits for the phone's second message, a follow-up that
// starts with prefix, and checks that no third comes within 2 s.
func awaitOneFollowUp(t *testing.T, phone *ntfytest.Phone, prefix string) {
	t.Helper()
	if f := phone.Await(2); !strings.HasPrefix(f.Message, prefix) {
		t.Fatalf("follow-up %q, want one starting %q", f.Message, prefix)
	}
	time.Sleep(2 * time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the request and one follow-up", n)
	}
}

// A request that ends while its claim settles, before it was put on the
// phone (a short --timeout on a loaded machine), tells the phone nothing:
// its person never saw it, and a follow-up would speak of a request they
// cannot find. Its claim is ended for the fleet.
func TestFleetEndedBeforeThePhoneTellsNothing(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	m := newMachine(fleetConfig(t, s), 0)
	g := &gated{next: m.HTTP.Transport, looked: make(chan struct{}), claimed: make(chan struct{})}
	m.HTTP.Transport = g
	ctx, end := context.WithCancelCause(context.Background())
	a := ask(ctx, m.Backend, confirmRequest("Rotate the keys?"))
	<-g.claimed
	end(&dialog.Closed{What: "This request expired", Status: "expired"})
	if _, err := a.wait(t); err == nil {
		t.Fatal("a request that expired returned an answer")
	}
	// Finish has returned: whatever the machine sent is on the server.
	if err := s.Publish("marker"); err != nil {
		t.Fatal(err)
	}
	if first := phone.Await(1); first.Message != "marker" {
		t.Fatalf("the phone was told %q of a request it never showed", first.Message)
	}
	ms := pollReplies(t, s)
	ended := false
	for _, msg := range ms {
		ended = ended || strings.Contains(msg.Message, "rec=end") && strings.Contains(msg.Message, "req="+g.claimID)
	}
	if !ended {
		t.Fatalf("the claim of %s was not ended: %d messages on the reply topic", g.claimID, len(ms))
	}
}

// pollReplies reads every message of s's reply topic, with the asking
// token.
func pollReplies(t *testing.T, s *ntfytest.Server) []message {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+s.ReplyTopic+"/json?poll=1&since=all", nil)
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ms []message
	dec := json.NewDecoder(resp.Body)
	for {
		var m message
		if dec.Decode(&m) != nil {
			return ms
		}
		ms = append(ms, m)
	}
}
