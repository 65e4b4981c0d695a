// Package ntfytest runs the real ntfy server (v2.13) for tests, on
// 127.0.0.1 with auth-default-access deny-all and real accounts, access
// rules and tokens made with ntfy's own CLI, and a phone that reads the
// request topic as the ntfy apps do and taps a button by performing its
// action exactly as written in the message. It shares no code with the
// product's ntfy client, so the tests of one do not lean on the other.
package ntfytest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TB is what this package needs of a test: *testing.T, or the benchmark
// tool's stand-in.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
	Failed() bool
}

// Server is one ntfy server of a test, with three accounts: the asking
// side's (publishes to Topic, reads ReplyTopic), the phone's (reads Topic)
// and the answerer's, whose token the buttons carry (writes ReplyTopic).
type Server struct {
	t    TB
	bin  string
	dir  string
	cmd  *exec.Cmd
	Addr string // host:port on 127.0.0.1
	URL  string // http://Addr

	Topic, ReplyTopic                   string
	AskerToken, AnswerToken, PhoneToken string

	// Flags are more flags of ntfy serve, which Start passes: a test of
	// a server set up otherwise (--cache-duration 10m) sets them, then
	// stops and starts the server.
	Flags []string

	// onTakenPort, where set, is what Start does where another test's
	// server took the port first: NewWith, which has handed the address
	// to nobody yet, chooses another and starts again. A restart by a
	// test fails instead: its machines know the address.
	onTakenPort func()
}

// Program finds the ntfy program: ASK_CONFIRM_NTFY, which scripts/test
// sets, then PATH, then the shared tools beside the repository (from a
// package directory, ../../shared/tools/ntfy). Without one, the test fails
// when ASK_CONFIRM_E2E=require and skips otherwise.
func Program(t TB) string {
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

// New starts a server with its accounts. Each of grants is one more
// `ntfy access` command's arguments (USER TOPIC PERMISSION), for a test of
// a setup that gives an account too much. It stops with the test.
func New(t TB, grants ...[]string) *Server {
	t.Helper()
	return NewWith(t, nil, grants...)
}

// NewWith is New for a server started with more of ntfy serve's flags
// (as ["--visitor-subscription-limit", "2"]), for a test of the server's
// limits.
func NewWith(t TB, flags []string, grants ...[]string) *Server {
	t.Helper()
	return newWith(t, flags, grants...).handedOver()
}

// newWith is NewWith, the address still its own to change.
func newWith(t TB, flags []string, grants ...[]string) *Server {
	t.Helper()
	s := newServer(t, flags)
	s.Topic, s.ReplyTopic = "requests", "replies"
	// The server makes its auth file when it first starts; the accounts
	// are made then, and the server started again: a token added while it
	// runs is refused for a while.
	s.Start()
	s.ntfy("user", "add", "asker")
	s.ntfy("user", "add", "phone")
	s.ntfy("user", "add", "answerer")
	s.ntfy("access", "asker", s.Topic, "wo")
	s.ntfy("access", "asker", s.ReplyTopic, "rw")
	s.ntfy("access", "phone", s.Topic, "ro")
	s.ntfy("access", "answerer", s.ReplyTopic, "wo")
	for _, g := range grants {
		s.ntfy(append([]string{"access"}, g...)...)
	}
	s.AskerToken, s.AnswerToken, s.PhoneToken = s.token("asker"), s.token("answerer"), s.token("phone")
	s.Stop()
	s.Start()
	return s
}

// newServer is a server of the test's, not started yet: ntfy, a directory
// of its own, a free port on 127.0.0.1, and flags for ntfy serve.
func newServer(t TB, flags []string) *Server {
	t.Helper()
	s := &Server{t: t, bin: Program(t), dir: t.TempDir(), Flags: flags}
	s.choosePort()
	s.onTakenPort = func() {
		s.choosePort()
		s.Start()
	}
	return s
}

// handedOver is s once its constructor returns it: its address is the
// test's from now on (onTakenPort).
func (s *Server) handedOver() *Server {
	s.onTakenPort = nil
	return s
}

// choosePort gives s a port that is free now on 127.0.0.1.
func (s *Server) choosePort() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	s.URL = "http://" + s.Addr
	ln.Close()
}

func (s *Server) ntfy(args ...string) string {
	s.t.Helper()
	c := exec.Command(s.bin, args...)
	c.Env = s.CLIEnv()
	out, err := c.CombinedOutput()
	if err != nil {
		s.t.Fatalf("ntfy %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *Server) token(user string) string {
	out := s.ntfy("token", "add", user)
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "tk_") {
			return f
		}
	}
	s.t.Fatalf("ntfy token add %s printed no token: %s", user, out)
	return ""
}

// Start starts the server on s.Addr, with its cache and accounts in its
// directory, and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "serve", "--listen-http", s.Addr, "--base-url", s.URL,
		"--cache-file", filepath.Join(s.dir, "cache.db"), "--auth-file", filepath.Join(s.dir, "auth.db"),
		"--auth-default-access", "deny-all", "--web-root", "disable", "--keepalive-interval", "5s",
		// The floods of bogus replies come from this machine too.
		"--visitor-request-limit-exempt-hosts", "127.0.0.1")
	s.cmd.Args = append(s.cmd.Args, s.Flags...)
	var from int64
	if fi, err := os.Stat(filepath.Join(s.dir, "server.log")); err == nil {
		from = fi.Size()
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	cmd := s.cmd
	s.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if s.t.Failed() {
			b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			s.t.Logf("the ntfy server's log:\n%s", b)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The port was free when newServer chose it, but another test's
		// server may have taken it since (between a Stop and a Start): its
		// answer is no answer of this one's, whose own start then fails.
		if log, _ := os.ReadFile(filepath.Join(s.dir, "server.log")); int64(len(log)) > from && strings.Contains(string(log[from:]), "address already in use") {
			if s.onTakenPort == nil {
				s.t.Fatalf("the ntfy server could not listen on %s: another test's server took the port", s.Addr)
			}
			s.onTakenPort()
			return
		}
		resp, err := http.Get(s.URL + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && listensOn(cmd.Process.Pid, s.Addr) {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the ntfy server did not answer on %s within 30 s: %v", s.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// listensOn reports whether process pid holds the listening socket of
// addr (127.0.0.1:PORT), as Linux's /proc says; true where /proc has no
// such table to tell.
func listensOn(pid int, addr string) bool {
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return true
	}
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	local := fmt.Sprintf("0100007F:%04X", n)
	var inode string
	for _, line := range strings.Split(string(table), "\n") {
		// sl local_address rem_address st ... inode
		f := strings.Fields(line)
		if len(f) > 9 && f[1] == local && f[3] == "0A" {
			inode = f[9]
		}
	}
	if inode == "" {
		return false
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && target == "socket:["+inode+"]" {
			return true
		}
	}
	return false
}

// Access runs ntfy access USER TOPIC PERMISSION on the running server's
// accounts: a test takes away, or gives, access as an operator would.
func (s *Server) Access(user, topic, permission string) {
	s.t.Helper()
	s.ntfy("access", user, topic, permission)
}

// Stop kills the server.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// Post sends body to the reply topic with the answer token, as someone who
// holds that token but no button would, and who sends it again where ntfy
// refuses it with 403 (againWhenRefused).
func (s *Server) Post(body string) {
	s.t.Helper()
	code, err := againWhenRefused(func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, s.URL+"/"+s.ReplyTopic, strings.NewReader(body))
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+s.AnswerToken)
		}
		return req, err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	if code != http.StatusOK {
		s.t.Fatalf("posting a reply: %d %s", code, http.StatusText(code))
	}
}

// againWhenRefused sends the request newReq makes, and again, up to three
// times, a quarter of a second apart, where ntfy refuses it with 403, as
// it refuses one of a burst now and then while its accounts' database is
// busy. It returns the last status.
func againWhenRefused(newReq func() (*http.Request, error)) (int, error) {
	code := 0
	for try := 0; try < 4 && (try == 0 || code == http.StatusForbidden); try++ {
		if try > 0 {
			time.Sleep(250 * time.Millisecond)
		}
		req, err := newReq()
		if err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		code = resp.StatusCode
	}
	return code, nil
}

// Message is a message as the phone receives it.
type Message struct {
	ID       string   `json:"id"`
	Event    string   `json:"event"`
	Title    string   `json:"title"`
	Message  string   `json:"message"`
	Priority int      `json:"priority"`
	Tags     []string `json:"tags"`
	Actions  []Action `json:"actions"`
	// Received is when the phone received it.
	Received time.Time `json:"-"`
}

// Action is a button of a Message.
type Action struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// Phone is the person's phone: it reads the request topic with the
// phone's account and taps buttons.
type Phone struct {
	t            TB
	topic, token string
	mu           sync.Mutex
	seen         []Message
	more         chan struct{}
}

// NewPhone subscribes to s's request topic and keeps what arrives, until
// the test ends; it resubscribes after a dropped connection.
func NewPhone(t TB, s *Server) *Phone {
	t.Helper()
	return newPhone(t, s, s.Topic, s.PhoneToken, "")
}

// NewPhoneFromStart is NewPhone for a phone that also receives what the
// request topic got before it subscribed, as the ntfy apps do for a
// notification sent while they were offline.
func NewPhoneFromStart(t TB, s *Server) *Phone {
	t.Helper()
	return newPhone(t, s, s.Topic, s.PhoneToken, "all")
}

func newPhone(t TB, s *Server, topic, token, since string) *Phone {
	t.Helper()
	p := &Phone{t: t, more: make(chan struct{}, 1), topic: topic, token: token}
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		var once sync.Once
		for ctx.Err() == nil {
			since = p.read(ctx, s, since, func() { once.Do(func() { close(opened) }) })
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	select {
	case <-opened:
	case <-time.After(30 * time.Second):
		t.Fatal("the phone could not subscribe to the request topic")
	}
	return p
}

// read reads one subscription of the request topic until it drops, from
// since, and returns the ID of the last message it read.
func (p *Phone) read(ctx context.Context, s *Server, since string, opened func()) string {
	u := s.URL + "/" + p.topic + "/json"
	if since != "" {
		u += "?since=" + since
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return since
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return since
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m Message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Event {
		case "open":
			opened()
		case "message":
			since = m.ID
			m.Received = time.Now()
			p.mu.Lock()
			p.seen = append(p.seen, m)
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
	}
	return since
}

// Await waits for the n-th message (from 1) the phone received.
func (p *Phone) Await(n int) Message {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		if len(p.seen) >= n {
			m := p.seen[n-1]
			p.mu.Unlock()
			return m
		}
		got := len(p.seen)
		var texts []string
		for _, m := range p.seen {
			texts = append(texts, fmt.Sprintf("%s %q", m.Received.Format("15:04:05.000"), m.Message))
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-deadline:
			p.t.Fatalf("the phone of %s received %d messages, waiting for %d: %s", p.topic, got, n, strings.Join(texts, "; "))
		}
	}
}

// ExpectFollowUp waits for the n-th message (from 1) the phone received,
// and fails the test unless it is a follow-up, without buttons, whose
// text starts with prefix.
func (p *Phone) ExpectFollowUp(n int, prefix string) {
	p.t.Helper()
	if f := p.Await(n); !strings.HasPrefix(f.Message, prefix) || len(f.Actions) != 0 {
		p.t.Fatalf("the phone's message %d is %q with %d buttons, want a follow-up starting %q", n, f.Message, len(f.Actions), prefix)
	}
}

// Count is how many messages the phone has received.
func (p *Phone) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.seen)
}

// AwaitFirst waits for n messages and returns the first whose text starts
// with prefix: for messages that two processes send in no set order.
func (p *Phone) AwaitFirst(n int, prefix string) Message {
	p.t.Helper()
	p.Await(n)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.seen {
		if strings.HasPrefix(m.Message, prefix) {
			return m
		}
	}
	p.t.Fatalf("none of the phone's %d messages starts with %q", len(p.seen), prefix)
	return Message{}
}

// ReadingTime is how long after its message arrived a tap comes at the
// earliest: a person reads before tapping, and ask-confirm takes no
// answer sooner than a person can give one (lifecycle.DefaultHumanAnswer).
const ReadingTime = 600 * time.Millisecond

// Tap performs the action labelled label of m exactly as the ntfy apps
// do: its method, URL, headers and body, nothing else, no sooner than
// ReadingTime after m arrived. It returns the HTTP status the server
// answered. A tap ntfy refuses with 403 is tapped again (againWhenRefused):
// the app says the action failed, and the person taps once more.
func (p *Phone) Tap(m Message, label string) int {
	p.t.Helper()
	time.Sleep(time.Until(m.Received.Add(ReadingTime)))
	for _, a := range m.Actions {
		if a.Label != label {
			continue
		}
		if a.Action != "http" {
			p.t.Fatalf("button %s is a %s action, not http", label, a.Action)
		}
		code, err := againWhenRefused(func() (*http.Request, error) {
			req, err := http.NewRequest(a.Method, a.URL, strings.NewReader(a.Body))
			if err == nil {
				for k, v := range a.Headers {
					req.Header.Set(k, v)
				}
			}
			return req, err
		})
		if err != nil {
			p.t.Fatalf("tapping %s: %v", label, err)
		}
		return code
	}
	p.t.Fatalf("no button %q in %+v", label, m.Actions)
	return 0
}
