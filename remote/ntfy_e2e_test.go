//go:build e2e && unix

package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// These tests run the real ntfy server (v2.13) on 127.0.0.1 with
// auth-default-access deny-all and real users, access rules and tokens
// made with ntfy's own CLI. The phone is phoneClient: it subscribes to the
// request topic with the phone's account, as the ntfy app does, and
// performs a button's action exactly as written in the message.

// ntfyServer is one ntfy server of a test, with its accounts.
type ntfyServer struct {
	t      *testing.T
	bin    string
	dir    string
	addr   string
	cmd    *exec.Cmd
	config Config
	// phone is the token of the account the phone app reads Topic with.
	phone string
}

// ntfyProgram finds the ntfy program: ASK_CONFIRM_NTFY, which scripts/test
// sets, then PATH, then the shared tools beside the repository. Without
// one, the test fails when ASK_CONFIRM_E2E=require and skips otherwise.
func ntfyProgram(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ASK_CONFIRM_NTFY"); p != "" {
		return p
	}
	if p, err := exec.LookPath("ntfy"); err == nil {
		return p
	}
	if p, err := filepath.Abs("../../shared/tools/ntfy"); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "the ntfy tests need the ntfy server (v2.13): put it on PATH or in ASK_CONFIRM_NTFY; scripts/test finds ../shared/tools/ntfy"
	if os.Getenv("ASK_CONFIRM_E2E") == "require" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// newNtfyServer starts a server with three accounts: the asking side's
// (writes the request topic, reads the reply topic), the phone's (reads
// the request topic) and the answerer's, whose token the buttons carry
// (writes the reply topic).
func newNtfyServer(t *testing.T) *ntfyServer {
	t.Helper()
	s := &ntfyServer{t: t, bin: ntfyProgram(t), dir: t.TempDir()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	ln.Close()
	// The server makes its auth file when it first starts; the accounts
	// are made then, and the server started again: a token added while it
	// runs is refused for a moment.
	s.start()
	topic, reply := "requests", "replies"
	s.ntfy("user", "add", "asker")
	s.ntfy("user", "add", "phone")
	s.ntfy("user", "add", "answerer")
	s.ntfy("access", "asker", topic, "wo")
	s.ntfy("access", "asker", reply, "ro")
	s.ntfy("access", "phone", topic, "ro")
	s.ntfy("access", "answerer", reply, "wo")
	s.config = Config{Server: "http://" + s.addr, Topic: topic, ReplyTopic: reply, Token: s.token("asker"), AnswerToken: s.token("answerer")}
	s.phone = s.token("phone")
	s.stop()
	s.start()
	return s
}

func (s *ntfyServer) ntfy(args ...string) string {
	s.t.Helper()
	c := exec.Command(s.bin, args...)
	c.Env = append(os.Environ(), "NTFY_AUTH_FILE="+filepath.Join(s.dir, "auth.db"), "NTFY_PASSWORD=not-used-here")
	out, err := c.CombinedOutput()
	if err != nil {
		s.t.Fatalf("ntfy %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *ntfyServer) token(user string) string {
	out := s.ntfy("token", "add", user)
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "tk_") {
			return f
		}
	}
	s.t.Fatalf("ntfy token add %s printed no token: %s", user, out)
	return ""
}

// start starts the server on s.addr, with its cache and accounts in s.dir,
// and waits until it answers.
func (s *ntfyServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "serve", "--listen-http", s.addr, "--base-url", "http://"+s.addr,
		"--cache-file", filepath.Join(s.dir, "cache.db"), "--auth-file", filepath.Join(s.dir, "auth.db"),
		"--auth-default-access", "deny-all", "--web-root", "disable", "--keepalive-interval", "5s",
		// The flood of bogus replies comes from this machine too.
		"--visitor-request-limit-exempt-hosts", "127.0.0.1")
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.t.Cleanup(func() {
		logf.Close()
		if s.t.Failed() {
			b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			s.t.Logf("the ntfy server's log:\n%s", b)
		}
	})
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	cmd := s.cmd
	s.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + s.addr + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the ntfy server did not answer on %s within 30 s: %v", s.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills the server.
func (s *ntfyServer) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// phoneClient is the person's phone: it reads the request topic with the
// phone's account and taps buttons.
type phoneClient struct {
	t    *testing.T
	s    *ntfyServer
	mu   sync.Mutex
	seen []message
	more chan struct{}
}

// newPhone subscribes to the request topic and keeps what arrives.
func newPhone(t *testing.T, s *ntfyServer) *phoneClient {
	p := &phoneClient{t: t, s: s, more: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	cl := client{c: Config{Server: s.config.Server, Token: s.phone}, http: &http.Client{}}
	go func() {
		defer close(done)
		once := func() { close(opened) }
		for ctx.Err() == nil {
			cl.subscribe(ctx, s.config.Topic, "", once, func(m message) bool {
				p.mu.Lock()
				p.seen = append(p.seen, m)
				p.mu.Unlock()
				select {
				case p.more <- struct{}{}:
				default:
				}
				return true
			})
			once = nil
			time.Sleep(100 * time.Millisecond)
		}
	}()
	select {
	case <-opened:
	case <-time.After(30 * time.Second):
		t.Fatal("the phone could not subscribe to the request topic")
	}
	return p
}

// await waits for the n-th message (from 1) the phone received.
func (p *phoneClient) await(n int) message {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		if len(p.seen) >= n {
			m := p.seen[n-1]
			p.mu.Unlock()
			return m
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-deadline:
			p.t.Fatalf("the phone received %d messages, waiting for %d", len(p.seen), n)
		}
	}
}

// tap performs the action labelled label of m exactly as the ntfy apps
// do: its method, URL, headers and body, nothing else.
func (p *phoneClient) tap(m message, label string) int {
	p.t.Helper()
	for _, a := range m.Actions {
		if a.Label != label {
			continue
		}
		if a.Action != "http" {
			p.t.Fatalf("button %s is a %s action, not http", label, a.Action)
		}
		req, err := http.NewRequest(a.Method, a.URL, strings.NewReader(a.Body))
		if err != nil {
			p.t.Fatal(err)
		}
		for k, v := range a.Headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			p.t.Fatalf("tapping %s: %v", label, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	p.t.Fatalf("no button %q in %+v", label, m.Actions)
	return 0
}

// post sends body to the reply topic with the answer token, as a forger
// who holds it (but no button) would.
func post(t *testing.T, s *ntfyServer, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.config.topicURL(s.config.ReplyTopic), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.config.AnswerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("posting a reply: %s", resp.Status)
	}
}

// asking runs b.Ask for r in the background.
type asking struct {
	done chan struct{}
	ans  dialog.Answer
	err  error
}

func ask(ctx context.Context, b *Backend, r dialog.Request) *asking {
	a := &asking{done: make(chan struct{})}
	go func() { a.ans, a.err = b.Ask(ctx, r); close(a.done) }()
	return a
}

func (a *asking) wait(t *testing.T) (dialog.Answer, error) {
	t.Helper()
	select {
	case <-a.done:
		return a.ans, a.err
	case <-time.After(60 * time.Second):
		t.Fatal("Ask did not return within 60 s")
		return dialog.Answer{}, nil
	}
}

func confirmRequest(message string) dialog.Request {
	r := dialog.Request{Kind: dialog.Confirm, Title: "Deploy", Message: message, OKLabel: "Approve", CancelLabel: "Cancel"}
	return r
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
			s := newNtfyServer(t)
			phone := newPhone(t, s)
			r := confirmRequest("Ship v2 to production?")
			if tc.period > 0 {
				r.ApproveFor = tc.period
			}
			a := ask(context.Background(), &Backend{Config: s.config}, r)
			m := phone.await(1)
			if m.Title != "Deploy" || !strings.HasPrefix(m.Message, "Ship v2 to production?") || m.Priority != 5 {
				t.Fatalf("the phone shows %+v", m)
			}
			if n := len(m.Actions); n != 2 && !(tc.period > 0 && n == 3) {
				t.Fatalf("%d buttons: %+v", n, m.Actions)
			}
			if m.Actions[0].Label != "Cancel" {
				t.Fatalf("the first button is %q, want Cancel", m.Actions[0].Label)
			}
			if code := phone.tap(m, tc.tap); code != http.StatusOK {
				t.Fatalf("the tap got %d", code)
			}
			ans, err := a.wait(t)
			if err != nil || ans.Approved != tc.approved || ans.For != tc.period {
				t.Fatalf("answer %+v, %v", ans, err)
			}
			if f := phone.await(2); !strings.HasPrefix(f.Message, tc.follow) || len(f.Actions) != 0 {
				t.Fatalf("follow-up %+v, want %q", f, tc.follow)
			}
		})
	}
}

// Replies that are not a tap on one of this request's buttons answer
// nothing, and are reported: no capability, a malformed one, a made-up
// one, and one from an earlier request of the same question. A thousand
// of them neither approve nor stop the genuine tap that follows.
func TestPhoneIgnoresHostileReplies(t *testing.T) {
	s := newNtfyServer(t)
	phone := newPhone(t, s)
	r := confirmRequest("Rotate the keys?")

	// An earlier request of the same question, answered: its buttons'
	// capabilities must not answer the next one.
	first := ask(context.Background(), &Backend{Config: s.config}, r)
	old := phone.await(1)
	phone.tap(old, "Cancel")
	if ans, err := first.wait(t); err != nil || ans.Approved {
		t.Fatalf("first request: %+v %v", ans, err)
	}
	phone.await(2) // its follow-up

	var ignored atomic.Int64
	reasons := sync.Map{}
	b := &Backend{Config: s.config, Ignored: func(reason string) { ignored.Add(1); reasons.Store(reason, true) }}
	a := ask(context.Background(), b, r)
	m := phone.await(3)
	phone.tap(old, "Approve") // a replay from the earlier request
	post(t, s, "approve")
	post(t, s, replyPrefix+"zz")
	post(t, s, replyPrefix+strings.Repeat("00", capabilityBytes))
	post(t, s, replyPrefix+strings.Repeat("ab", 4*capabilityBytes))
	const flood = 1000
	for i := range flood {
		post(t, s, fmt.Sprintf("%s%032x", replyPrefix, i+1))
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
	for _, want := range []string{"a reply without an ask-confirm capability", "a reply with a malformed capability", "a reply whose capability is not this request's (forged, or from an earlier request)"} {
		if _, ok := reasons.Load(want); !ok {
			t.Errorf("no reply was ignored as %q", want)
		}
	}
	phone.tap(m, "Approve")
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the genuine tap: %+v %v", ans, err)
	}
}

// The access rules the setup relies on hold on the real server: the
// answer token writes the reply topic and reads neither topic; anonymous
// can do nothing.
func TestPhoneAccessRules(t *testing.T) {
	s := newNtfyServer(t)
	do := func(method, topic, path, token string) int {
		req, _ := http.NewRequest(method, s.config.topicURL(topic)+path, strings.NewReader(replyPrefix+"00"))
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
		{"the answer token writes the reply topic", http.MethodPost, s.config.ReplyTopic, "", s.config.AnswerToken, true},
		{"the answer token reads the request topic", http.MethodGet, s.config.Topic, "/json", s.config.AnswerToken, false},
		{"the answer token reads the reply topic", http.MethodGet, s.config.ReplyTopic, "/json", s.config.AnswerToken, false},
		{"the answer token writes the request topic", http.MethodPost, s.config.Topic, "", s.config.AnswerToken, false},
		{"anonymous reads the request topic", http.MethodGet, s.config.Topic, "/json", "", false},
		{"anonymous writes the reply topic", http.MethodPost, s.config.ReplyTopic, "", "", false},
		{"the asking token reads the reply topic", http.MethodGet, s.config.ReplyTopic, "/json", s.config.Token, true},
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
	s := newNtfyServer(t)
	phone := newPhone(t, s)
	b := &Backend{Config: s.config, Retry: 200 * time.Millisecond}
	a := ask(context.Background(), b, confirmRequest("Still there after a restart?"))
	m := phone.await(1)
	s.stop()
	s.start()
	// Tapped at once, before the asking side has reconnected: the server
	// keeps it, and the resumed subscription reads it.
	if code := phone.tap(m, "Approve"); code != http.StatusOK {
		t.Fatalf("the tap after the restart got %d", code)
	}
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("after the restart: %+v %v", ans, err)
	}
}

// When the request ends first (answered elsewhere, expired, cancelled),
// Ask returns the context's error and the phone is told it closed.
func TestPhoneRequestClosed(t *testing.T) {
	s := newNtfyServer(t)
	phone := newPhone(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	a := ask(ctx, &Backend{Config: s.config}, confirmRequest("Closing soon?"))
	m := phone.await(1)
	cancel()
	if _, err := a.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask returned %v, want the context's error", err)
	}
	if f := phone.await(2); !strings.HasPrefix(f.Message, "This request closed at ") {
		t.Fatalf("follow-up %+v", f)
	}
	// A tap after the end answers nothing: nobody reads it.
	phone.tap(m, "Approve")
}

// Text is sent literally, markup and all, and text longer than ntfy
// delivers is cut with a note saying so.
func TestPhoneText(t *testing.T) {
	s := newNtfyServer(t)
	phone := newPhone(t, s)
	for i, msg := range []string{"<b>bold?</b> *not markdown* `code` — ünïcødé ✓", strings.Repeat("long text ", 1024)} {
		ctx, cancel := context.WithCancel(context.Background())
		a := ask(ctx, &Backend{Config: s.config}, confirmRequest(msg))
		m := phone.await(2*i + 1)
		switch {
		case len(msg) < MaxMessageBytes && !strings.HasPrefix(m.Message, msg):
			t.Errorf("the phone shows %q, want %q first", m.Message, msg)
		case len(msg) >= MaxMessageBytes && (len(m.Message) > MaxMessageBytes || !strings.Contains(m.Message, "… (cut: ")):
			t.Errorf("10 KB of text arrived as %d bytes ending %q", len(m.Message), m.Message[max(0, len(m.Message)-40):])
		}
		cancel()
		a.wait(t)
	}
}
