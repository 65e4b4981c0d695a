//go:build e2e && unix

package ntfy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// These tests run the real ntfy server (v2.13) on 127.0.0.1 with
// auth-default-access deny-all and real accounts, against a phone that
// performs a button's action exactly as written in the message
// (internal/ntfytest).

// configOf is the asking side's remote.Config for s.
func configOf(s *ntfytest.Server) remote.Config {
	return remote.Config{Server: s.URL, Topic: s.Topic, ReplyTopic: s.ReplyTopic, Token: s.AskerToken, AnswerToken: s.AnswerToken}
}

// asking runs b.Ask for r in the background.
type asking struct {
	b      *Backend
	done   chan struct{}
	cancel context.CancelFunc
	ans    dialog.Answer
	err    error
}

func ask(ctx context.Context, b *Backend, r dialog.Request) *asking {
	ctx, cancel := context.WithCancel(ctx)
	a := &asking{b: b, done: make(chan struct{}), cancel: cancel}
	go func() { a.ans, a.err = b.Ask(ctx, r); close(a.done) }()
	return a
}

// sayOnFailure has the test's log say, where it fails, whether Ask had
// returned by then, and what.
func (a *asking) sayOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		select {
		case <-a.done:
			t.Logf("Ask had returned %+v, %v", a.ans, a.err)
		default:
			t.Logf("Ask had not returned")
		}
	})
}

// wait returns what Ask returned, then ends its context as a holder does
// once it recorded the answer, and waits for the follow-up to be sent.
func (a *asking) wait(t *testing.T) (dialog.Answer, error) {
	t.Helper()
	select {
	case <-a.done:
	case <-time.After(60 * time.Second):
		t.Fatal("Ask did not return within 60 s")
	}
	a.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a.b.Finish(ctx)
	return a.ans, a.err
}

// A tap on Approve approves, on Cancel denies, on the approve-for button
// approves for its period; each is followed by a message saying what was
// taken, so nobody taps twice in doubt.
func TestPhoneAnswers(t *testing.T) {
	for _, tc := range []struct {
		tap      string
		approved bool
		period   time.Duration
		follow   string
	}{
		{"Approve", true, 0, "Approved on the phone at "},
		{"Cancel", false, 0, "Denied on the phone at "},
		{"Approve for 1h", true, time.Hour, "Approved on the phone at "},
	} {
		t.Run(tc.tap, func(t *testing.T) {
			s := ntfytest.New(t)
			phone := ntfytest.NewPhone(t, s)
			r := confirmRequest("Ship v2 to production?")
			if tc.period > 0 {
				r.ApproveFor = tc.period
			}
			a := ask(context.Background(), &Backend{Config: configOf(s)}, r)
			m := phone.Await(1)
			if m.Title != "Deploy" || !strings.HasPrefix(m.Message, "Ship v2 to production?") || m.Priority != 5 {
				t.Fatalf("the phone shows %+v", m)
			}
			if n := len(m.Actions); n != 2 && !(tc.period > 0 && n == 3) {
				t.Fatalf("%d buttons: %+v", n, m.Actions)
			}
			if m.Actions[0].Label != "Cancel" {
				t.Fatalf("the first button is %q, want Cancel", m.Actions[0].Label)
			}
			if code := phone.Tap(m, tc.tap); code != http.StatusOK {
				t.Fatalf("the tap got %d", code)
			}
			ans, err := a.wait(t)
			if err != nil || ans.Approved != tc.approved || ans.For != tc.period {
				t.Fatalf("answer %+v, %v", ans, err)
			}
			if f := phone.Await(2); !strings.HasPrefix(f.Message, tc.follow) || len(f.Actions) != 0 {
				t.Fatalf("follow-up %+v, want %q", f, tc.follow)
			}
		})
	}
}

// A request asked a minute before midnight says when it closes with the
// day, and its follow-up, sent after midnight, names the day it was
// answered: read the next morning, "at 00:00" alone would point at the
// evening before. The clock is the test's, in a year long past, so that
// the deadline, an hour from whenever the test runs, is never on its day.
func TestPhoneNamesTheDayAcrossMidnight(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	asked := time.Date(1999, 12, 31, 23, 59, 30, 0, time.Local)
	tapped := time.Date(2000, 1, 1, 0, 0, 30, 0, time.Local)
	var clock atomic.Pointer[time.Time]
	clock.Store(&asked)
	b := &Backend{Config: configOf(s), Now: func() time.Time { return *clock.Load() }}
	r := confirmRequest("Ship v2 to production?")
	r.Origin = "deploy.sh in ~/src/app"
	deadline := time.Now().Add(time.Hour)
	ctx, stop := context.WithDeadline(context.Background(), deadline)
	defer stop()
	a := ask(ctx, b, r)
	m := phone.Await(1)
	if want := " · closes at " + dialog.Clock(deadline.Local(), asked); !strings.HasSuffix(m.Message, want) || !strings.Contains(want, " on ") {
		t.Fatalf("the phone shows %q; want it to end %q, with the day", m.Message, want)
	}
	clock.Store(&tapped)
	if code := phone.Tap(m, "Approve"); code != http.StatusOK {
		t.Fatalf("the tap got %d", code)
	}
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	if f := phone.Await(2); f.Message != "Approved on the phone at 00:00 on Sat 1 Jan 2000." {
		t.Fatalf("follow-up %q, want it to name the day", f.Message)
	}
}

// Replies that are not a tap on one of this request's buttons answer
// nothing, and are reported: no capability, a malformed one, a made-up
// one, and one from an earlier request of the same question. A thousand
// of them neither approve nor stop the genuine tap that follows.
func TestPhoneIgnoresHostileReplies(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	r := confirmRequest("Rotate the keys?")

	// An earlier request of the same question, answered: its buttons'
	// capabilities must not answer the next one.
	first := ask(context.Background(), &Backend{Config: configOf(s)}, r)
	old := phone.Await(1)
	phone.Tap(old, "Cancel")
	if ans, err := first.wait(t); err != nil || ans.Approved {
		t.Fatalf("first request: %+v %v", ans, err)
	}
	phone.Await(2) // its follow-up

	var ignored atomic.Int64
	reasons := sync.Map{}
	b := &Backend{Config: configOf(s), Ignored: func(reason string) { ignored.Add(1); reasons.Store(reason, true) }}
	a := ask(context.Background(), b, r)
	m := phone.Await(3)
	id := requestIDOf(t, m)
	phone.Tap(old, "Approve") // a replay from the earlier request
	s.Post("approve")
	s.Post(replyPrefix + "req=" + id + " cap=zz")
	s.Post(oldReplyPrefix + strings.Repeat("00", capabilityBytes))
	s.Post(replyPrefix + "req=" + id + " cap=" + strings.Repeat("ab", 4*capabilityBytes))
	const flood = 1000
	for i := range flood {
		s.Post(fmt.Sprintf("%sreq=%s cap=%032x", replyPrefix, id, i+1))
	}
	deadline := time.Now().Add(60 * time.Second)
	for ignored.Load() < flood+5 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-a.done:
		t.Fatalf("a hostile reply answered: %+v %v", a.ans, a.err)
	default:
	}
	if n := ignored.Load(); n != flood+5 {
		t.Fatalf("%d replies reported as ignored, want %d", n, flood+5)
	}
	for _, want := range []string{ignoredNoCapability, ignoredMalformed, ignoredOldFormat, ignoredForged, remote.ReplyForAnother} {
		if _, ok := reasons.Load(want); !ok {
			t.Errorf("no reply was ignored as %q", want)
		}
	}
	phone.Tap(m, "Approve")
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the genuine tap: %+v %v", ans, err)
	}
}

// The access rules the setup relies on hold on the real server: the
// answer token writes the reply topic and reads neither topic; anonymous
// can do nothing.
func TestPhoneAccessRules(t *testing.T) {
	s := ntfytest.New(t)
	do := func(method, topic, path, token string) int {
		req, _ := http.NewRequest(method, s.URL+"/"+topic+path, strings.NewReader(replyPrefix+"00"))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if method == http.MethodGet {
			q := req.URL.Query()
			q.Set("poll", "1")
			req.URL.RawQuery = q.Encode()
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		what          string
		method, topic string
		path, token   string
		allowed       bool
	}{
		{"the answer token writes the reply topic", http.MethodPost, s.ReplyTopic, "", s.AnswerToken, true},
		{"the answer token reads the request topic", http.MethodGet, s.Topic, "/json", s.AnswerToken, false},
		{"the answer token reads the reply topic", http.MethodGet, s.ReplyTopic, "/json", s.AnswerToken, false},
		{"the answer token writes the request topic", http.MethodPost, s.Topic, "", s.AnswerToken, false},
		{"anonymous reads the request topic", http.MethodGet, s.Topic, "/json", "", false},
		{"anonymous writes the reply topic", http.MethodPost, s.ReplyTopic, "", "", false},
		{"the asking token reads the reply topic", http.MethodGet, s.ReplyTopic, "/json", s.AskerToken, true},
	} {
		code := do(c.method, c.topic, c.path, c.token)
		if ok := code == http.StatusOK; ok != c.allowed {
			t.Errorf("%s: %d", c.what, code)
		}
	}
}

// The server killed and restarted while the phone's answer is awaited: a
// tap made after the restart, and one made while the asking side was
// still reconnecting, are not lost.
func TestPhoneSurvivesServerRestart(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	b := &Backend{Config: configOf(s), Retry: 200 * time.Millisecond}
	a := ask(context.Background(), b, confirmRequest("Still there after a restart?"))
	m := phone.Await(1)
	s.Stop()
	s.Start()
	// Tapped at once, before the asking side has reconnected: the server
	// keeps it, and the resumed subscription reads it.
	if code := phone.Tap(m, "Approve"); code != http.StatusOK {
		t.Fatalf("the tap after the restart got %d", code)
	}
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("after the restart: %+v %v", ans, err)
	}
}

// When the request ends first (answered elsewhere, expired, cancelled),
// Ask returns the context's error and the phone is told it closed.
func TestPhoneRequestClosed(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	a := ask(ctx, &Backend{Config: configOf(s)}, confirmRequest("Closing soon?"))
	m := phone.Await(1)
	cancel()
	if _, err := a.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask returned %v, want the context's error", err)
	}
	if f := phone.Await(2); !strings.HasPrefix(f.Message, "This request closed at ") {
		t.Fatalf("follow-up %+v", f)
	}
	// A tap after the end is refused by nobody, and read by nobody: the
	// server takes it, and no request is waiting for it.
	if code := phone.Tap(m, "Approve"); code != http.StatusOK {
		t.Fatalf("the late tap got %d", code)
	}
}

// Text is sent literally, markup and all, and text longer than ntfy
// delivers is cut with a note saying so.
func TestPhoneText(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	for i, msg := range []string{"<b>bold?</b> *not markdown* `code` — ünïcødé ✓", strings.Repeat("long text ", 1024)} {
		ctx, cancel := context.WithCancel(context.Background())
		a := ask(ctx, &Backend{Config: configOf(s)}, confirmRequest(msg))
		m := phone.Await(2*i + 1)
		switch {
		case len(msg) < MaxMessageBytes && !strings.HasPrefix(m.Message, msg):
			t.Errorf("the phone shows %q, want %q first", m.Message, msg)
		case len(msg) >= MaxMessageBytes && (len(m.Message) > MaxMessageBytes || !strings.Contains(m.Message, "characters not shown …")):
			t.Errorf("10 KB of text arrived as %d bytes ending %q", len(m.Message), m.Message[max(0, len(m.Message)-40):])
		}
		cancel()
		a.wait(t)
	}
}

// A server that cannot be reached when the request starts is an error at
// once, not a wait for the request's end, and never an answer.
func TestPhoneServerDownAtStart(t *testing.T) {
	s := ntfytest.New(t)
	s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	ans, err := (&Backend{Config: configOf(s)}).Ask(ctx, confirmRequest("Anyone?"))
	if err == nil || ans.Approved || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "could not be reached within") {
		t.Fatalf("Ask with the server down: %+v %v", ans, err)
	}
	// A wait for the request's end would take the whole minute.
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the failure took %s", d)
	}
}

// A subscription the server refuses (a token that cannot read the reply
// topic) is an error, never an answer.
func TestPhoneSubscriptionRefused(t *testing.T) {
	s := ntfytest.New(t)
	c := configOf(s)
	c.Token = s.PhoneToken // reads the requests, not the replies
	ans, err := (&Backend{Config: c}).Ask(context.Background(), confirmRequest("Anyone?"))
	if !errors.Is(err, ErrRefused) || ans.Approved {
		t.Fatalf("Ask with a token that cannot read the replies: %+v %v", ans, err)
	}
}

// requestIDOf is the request's id its first button carries.
func requestIDOf(t *testing.T, m ntfytest.Message) string {
	t.Helper()
	for _, f := range strings.Fields(m.Actions[0].Body) {
		if id, ok := strings.CutPrefix(f, "req="); ok {
			return id
		}
	}
	t.Fatalf("no request id in %q", m.Actions[0].Body)
	return ""
}

// A publish the server refuses (the asking account lost its access to
// the request topic) fails at once, not after ten seconds of tries and
// not at the request's end, with the server's reason and the access line
// that would mend it.
func TestPhonePublishRefused(t *testing.T) {
	s := ntfytest.New(t, []string{"asker", "requests", "deny"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	ans, err := (&Backend{Config: configOf(s)}).Ask(ctx, confirmRequest("Anyone?"))
	if !errors.Is(err, ErrPublishRefused) || ans.Approved {
		t.Fatalf("Ask with a refused publish: %+v %v", ans, err)
	}
	for _, want := range []string{"403 Forbidden", "forbidden", "ntfy access ASKING-USER requests wo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	// One more try after a refusal; ten seconds of tries before.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %s", d)
	}
}

// A server that accepts the subscription but never answers the publish
// fails the request within tryWithin, while its caller still waits:
// never an expiry at the request's end.
func TestPhonePublishStalls(t *testing.T) {
	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, `{"id":"open1","time":%d,"event":"open","topic":"replies"}`+"\n", time.Now().Unix())
			w.(http.Flusher).Flush()
		}
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	// The handlers end first: Close waits for them.
	defer func() { close(stall); srv.Close() }()
	c := remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := (&Backend{Config: c}).Ask(ctx, confirmRequest("Anyone?"))
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "did not answer a publish within") {
		t.Fatalf("Ask against a stalling server: %v (context: %v)", err, ctx.Err())
	}
	if d := time.Since(start); d > tryWithin+5*time.Second {
		t.Errorf("the stall took %s to fail", d)
	}
}

// What a refusing server says reaches stderr and the history: its
// control characters are shown as escapes, never sent to the terminal.
func TestPhoneServerTextIsInert(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			// The subscription opens, and stays open until Ask returns.
			fmt.Fprintf(w, `{"id":"open1","time":%d,"event":"open","topic":"replies"}`+"\n", time.Now().Unix())
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "\x1b]0;owned\x07\rask-confirm: approved\x1b[2K")
	}))
	defer srv.Close()
	c := remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
	_, err := (&Backend{Config: c}).Ask(context.Background(), confirmRequest("Anyone?"))
	if err == nil {
		t.Fatal("no error")
	}
	if strings.ContainsAny(err.Error(), "\x1b\x07\r") || !strings.Contains(err.Error(), `\x1b]0;owned`) {
		t.Fatalf("the server's text reads %q", err)
	}
}

// A reply too large to read (a 70 KB title, which ntfy takes from
// whoever may write the reply topic) is passed over and reported; the
// genuine tap after it still answers, and the subscription does not stall
// on it.
func TestPhoneOversizedReply(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	var mu sync.Mutex
	var reasons []string
	b := &Backend{Config: configOf(s), Ignored: func(r string) { mu.Lock(); reasons = append(reasons, r); mu.Unlock() }}
	a := ask(context.Background(), b, confirmRequest("Ship it?"))
	m := phone.Await(1)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/"+s.ReplyTopic, strings.NewReader("hello"))
	req.Header.Set("Authorization", "Bearer "+s.AnswerToken)
	req.Header.Set("X-Title", strings.Repeat("t", 70<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the server refused the large reply: %s", resp.Status)
	}
	phone.Tap(m, "Approve")
	ans, err := a.wait(t)
	if err != nil || !ans.Approved {
		t.Fatalf("after a large reply, the genuine tap gave %+v %v", ans, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reasons) != 1 || !strings.Contains(reasons[0], "too large to read") {
		t.Errorf("ignored replies reported: %q", reasons)
	}
}

// A server that restarts as the request starts (down for a second) is
// waited for, not a failure (TestPhoneServerDownAtStart: one that stays
// down fails). The wait is long here, so that a server slow to start on a
// loaded machine is waited for too.
func TestPhoneServerBackSoon(t *testing.T) {
	s := ntfytest.New(t)
	s.Stop()
	a := ask(context.Background(), &Backend{Config: configOf(s), Retry: 200 * time.Millisecond, OpenWithin: time.Minute}, confirmRequest("Back soon?"))
	time.Sleep(time.Second)
	s.Start()
	m := ntfytest.NewPhoneFromStart(t, s).Await(1)
	ntfytest.NewPhone(t, s).Tap(m, "Approve")
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("with the server back within a second: %+v %v", ans, err)
	}
}

// Each follow-up carries a tag that says how the request ended; one that
// cannot be sent (the server down) is reported to Lost.
func TestPhoneFollowUpTagsAndLoss(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	for i, tc := range []struct{ closed, tag string }{
		{"Denied in the dialog", "x"},
		{"This request expired", "hourglass"},
		{"This request was cancelled", "no_entry_sign"},
		{"Already approved in the dialog", "white_check_mark"},
	} {
		ctx, end := context.WithCancelCause(context.Background())
		a := ask(ctx, &Backend{Config: configOf(s)}, confirmRequest("Tagged "+tc.tag+"?"))
		phone.Await(2*i + 1)
		end(&dialog.Closed{What: tc.closed})
		a.wait(t)
		if f := phone.Await(2*i + 2); !strings.HasPrefix(f.Message, tc.closed) || len(f.Tags) != 1 || f.Tags[0] != tc.tag {
			t.Errorf("the follow-up %q has the tags %q, want %q", f.Message, f.Tags, tc.tag)
		}
	}

	var lost atomic.Value
	b := &Backend{Config: configOf(s), Lost: func(r string) { lost.Store(r) }}
	ctx, end := context.WithCancelCause(context.Background())
	a := ask(ctx, b, confirmRequest("Lost?"))
	phone.Await(9)
	s.Stop()
	end(&dialog.Closed{What: "Denied in the dialog"})
	a.wait(t)
	if r, _ := lost.Load().(string); !strings.Contains(r, "Denied in the dialog") || !strings.Contains(r, "could not be sent") {
		t.Errorf("the lost follow-up was reported as %q", r)
	}
}

// A setup's check says how long the server keeps a message, as the
// server tells it: its cache-duration, 12 h by default, and what a test
// sets, down to none.
func TestVerifySaysWhatTheServerKeeps(t *testing.T) {
	s := ntfytest.New(t)
	for _, c := range []struct {
		flags []string
		keeps time.Duration
		what  string
	}{
		{nil, 12 * time.Hour, "the server keeps messages for 12h (its cache-duration)"},
		{[]string{"--cache-duration", "10m"}, 10 * time.Minute, "the server keeps messages for 10m (its cache-duration)"},
		{[]string{"--cache-duration", "0"}, 0, "the server keeps no message (its cache-duration is 0)"},
	} {
		if c.flags != nil {
			s.Flags = c.flags
			s.Stop()
			s.Start()
		}
		found := verify(context.Background(), remote.VerifyArgs{Config: configOf(s)}, nil)
		keeps, ok := remote.Keeps(found)
		if !ok || keeps != c.keeps {
			t.Errorf("with %q: the findings say the server keeps %s (told: %v): %+v", c.flags, keeps, ok, found)
			continue
		}
		var what []string
		for _, f := range found {
			if !f.OK {
				t.Errorf("with %q: %+v", c.flags, f)
			}
			what = append(what, f.What)
		}
		if !slices.Contains(what, c.what) {
			t.Errorf("with %q: no finding says %q: %q", c.flags, c.what, what)
		}
	}
}

// A server that does not say how long it keeps a message (an older ntfy,
// or a proxy that serves the topics only) makes no finding of it, and
// fails no check.
func TestVerifyWithoutWhatTheServerKeeps(t *testing.T) {
	s := ntfytest.New(t)
	target, _ := url.Parse(s.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/account" {
			http.NotFound(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	c := configOf(s)
	c.Server = front.URL
	found := verify(context.Background(), remote.VerifyArgs{Config: c}, nil)
	if keeps, ok := remote.Keeps(found); ok {
		t.Errorf("the findings say the server keeps %s: %+v", keeps, found)
	}
	for _, f := range found {
		if !f.OK {
			t.Errorf("%+v", f)
		}
	}
}
