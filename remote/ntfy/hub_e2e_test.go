//go:build e2e && unix

package ntfy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// streamCounting counts the streams of the reply topic opened through it
// (GETs that are not polls), and those the server refused for its limits.
type streamCounting struct {
	opened, refused atomic.Int64
	all             atomic.Int64 // every request
}

func (c *streamCounting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.all.Add(1)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && r.URL.Query().Get("poll") != "1" {
		c.opened.Add(1)
		if resp.StatusCode == http.StatusTooManyRequests {
			c.refused.Add(1)
		}
	}
	return resp, err
}

// runHub serves c's hub in this process, reading the server through rt,
// on sockets of its own; it returns the request programs' dial, their
// HTTP client (through the hub, else through direct), and a kill, which
// drops every client at once, as a hub killed does.
func runHub(t *testing.T, c remote.Config, rt, direct http.RoundTripper) (dial func(context.Context) (net.Conn, error), web *http.Client, kill func(), h *Hub) {
	t.Helper()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := net.Listen("unix", proxySocket(socket))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h = &Hub{Config: c, HTTP: &http.Client{Transport: rt, CheckRedirect: noRedirect}}
	served := make(chan struct{})
	go func() { defer close(served); _ = h.Serve(ctx, ln, wl) }()
	kill = func() { cancel(); <-served }
	t.Cleanup(kill)
	route := newHubRoute(proxySocket(socket))
	route.direct = direct
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}, &http.Client{Transport: route, CheckRedirect: noRedirect}, kill, h
}

// Many requests pending on one machine share its hub's one stream of the
// reply topic, with a server that lets a visitor hold two subscriptions
// (one of them the phone's): none is refused a stream, none opens one of
// its own, and each gets its own tap. With a fleet too, whose taps each
// request verifies by their MACs.
func TestHubManyRequestsOneStream(t *testing.T) {
	for _, fleet := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "fleet"}[fleet], func(t *testing.T) {
			s := ntfytest.NewWith(t, []string{"--visitor-subscription-limit", "2"})
			phone := ntfytest.NewPhone(t, s)
			c := configOf(s)
			if fleet {
				c = fleetConfig(t, s)
			}
			hubStreams, ownStreams := &streamCounting{}, &streamCounting{}
			dial, web, _, _ := runHub(t, c, hubStreams, ownStreams)
			const n = 8
			var asks [n]*asking
			for i := range n {
				// Eight requests start at once beside the rest of the
				// suite: each may take longer than the 5 s a request
				// gives its subscription to open, which is no part of
				// what this test is about.
				b := &Backend{Config: c, HTTP: web, Hub: dial, OpenWithin: 30 * time.Second}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				asks[i] = ask(ctx, b, confirmRequest(fmt.Sprintf("Request %d?", i)))
			}
			// A request that ends before its message reaches the phone
			// says why at once.
			for deadline := time.Now().Add(30 * time.Second); phone.Count() < n; time.Sleep(20 * time.Millisecond) {
				for i, a := range asks {
					select {
					case <-a.done:
						t.Fatalf("request %d ended before the phone had every request: %+v %v", i, a.ans, a.err)
					default:
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("the phone has %d of the %d requests after 30 s", phone.Count(), n)
				}
			}
			for i := range n {
				m := requestOf(t, phone, n, fmt.Sprintf("Request %d?", i))
				phone.Tap(m, map[bool]string{true: "Approve", false: "Cancel"}[i%2 == 0])
			}
			for i, a := range asks {
				ans, err := a.wait(t)
				if err != nil || ans.Approved != (i%2 == 0) {
					t.Fatalf("request %d: %+v %v, want approved=%v", i, ans, err, i%2 == 0)
				}
			}
			if got := hubStreams.opened.Load(); got != 1 {
				t.Errorf("the hub opened %d streams, want 1", got)
			}
			if got := ownStreams.all.Load(); got != 0 {
				t.Errorf("the requests sent %d requests to the server themselves, want none: all through the hub", got)
			}
			if got := hubStreams.refused.Load() + ownStreams.refused.Load(); got != 0 {
				t.Errorf("%d streams refused for the server's limit", got)
			}
		})
	}
}

// A hub killed while requests wait on it: each request reads the topic
// itself from where the hub left off, and gets the tap given after.
func TestHubKilledEachRequestGoesOn(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := fleetConfig(t, s)
	ownStreams := &streamCounting{}
	dial, web, kill, _ := runHub(t, c, http.DefaultTransport, ownStreams)
	const n = 3
	var asks [n]*asking
	for i := range n {
		b := &Backend{Config: c, HTTP: web, Hub: dial}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		asks[i] = ask(ctx, b, confirmRequest(fmt.Sprintf("Request %d?", i)))
	}
	phone.Await(n)
	if got := ownStreams.all.Load(); got != 0 {
		t.Fatalf("the requests sent %d requests themselves before the hub was killed", got)
	}
	kill()
	answerWithoutTheHub(t, phone, ownStreams, asks[:])
}

// A tap the hub read but did not relay before it died is not lost: the
// request reads the topic itself from the last message the hub relayed,
// and finds it there.
func TestHubGoneTapNotRelayedIsRead(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := configOf(s)
	dial, _, _, _ := runHub(t, c, http.DefaultTransport, http.DefaultTransport)
	// The request reads the hub through relay, which the test freezes.
	frozen := make(chan struct{})
	var toRequest net.Conn
	relayed := make(chan struct{})
	b := &Backend{Config: c, Hub: func(ctx context.Context) (net.Conn, error) {
		conn, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		mine, theirs := net.Pipe()
		toRequest = mine
		go func() {
			defer close(relayed)
			buf := make([]byte, 1)
			for {
				if _, err := conn.Read(buf); err != nil {
					return
				}
				select {
				case <-frozen:
					return
				default:
				}
				if _, err := mine.Write(buf); err != nil {
					return
				}
			}
		}()
		return theirs, nil
	}}
	a := ask(context.Background(), b, confirmRequest("Deploy?"))
	m := phone.Await(1)
	close(frozen)
	phone.Tap(m, "Approve")
	// The hub gone: the request's connection to it ends.
	toRequest.Close()
	if ans, err := a.wait(t); err != nil || !ans.Approved {
		t.Fatalf("%+v %v, want approved", ans, err)
	}
}

// hubPID is the process ID the hub of c wrote in its lock, or 0.
func hubPID(c remote.Config) int {
	_, lock, err := hubPaths(c)
	if err != nil {
		return 0
	}
	b, err := os.ReadFile(lock)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// The hub as ask-confirm-phone runs it: the first request starts it,
// detached, and the others join it; killed with SIGKILL mid-request, each
// request goes on with its own stream and gets its tap. A second setup
// (another server) gets a hub of its own.
func TestHubProgramKilled(t *testing.T) {
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(rt)
	t.Setenv("XDG_RUNTIME_DIR", rt)
	s, other := ntfytest.New(t), ntfytest.New(t)
	phone, otherPhone := ntfytest.NewPhone(t, s), ntfytest.NewPhone(t, other)
	c, oc := fleetConfig(t, s), configOf(other)
	ownStreams := &streamCounting{}
	socket, _, err := hubPaths(c)
	if err != nil {
		t.Fatal(err)
	}
	route := newHubRoute(proxySocket(socket))
	route.direct = ownStreams
	const n = 3
	var asks [n]*asking
	for i := range n {
		b := &Backend{Config: c, HTTP: &http.Client{Transport: route, CheckRedirect: noRedirect}, Hub: hubDialer(c)}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		asks[i] = ask(ctx, b, confirmRequest(fmt.Sprintf("Request %d?", i)))
	}
	ob := &Backend{Config: oc, Hub: hubDialer(oc)}
	oa := ask(context.Background(), ob, confirmRequest("Elsewhere?"))
	phone.Await(n)
	om := otherPhone.Await(1)
	pid, opid := hubPID(c), hubPID(oc)
	if pid == 0 || opid == 0 || pid == opid {
		t.Fatalf("hubs %d and %d, want one for each setup", pid, opid)
	}
	if got := ownStreams.all.Load(); got != 0 {
		t.Fatalf("the requests sent %d requests themselves beside the hub", got)
	}
	if fi, err := os.Stat(filepath.Join(rt, "ask-confirm")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the hubs' directory: %v %v, want 0700", fi.Mode(), err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	answerWithoutTheHub(t, phone, ownStreams, asks[:])
	otherPhone.Tap(om, "Approve")
	if ans, err := oa.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the other setup's request: %+v %v, want approved", ans, err)
	}
	_ = syscall.Kill(opid, syscall.SIGKILL)
}

// A request that comes while its hub's stream is down (the server
// stopped) is not told the stream is open: it fails as it would without
// a hub, the server not reached.
func TestHubServerDownNewRequestFails(t *testing.T) {
	s := ntfytest.New(t)
	phone := ntfytest.NewPhone(t, s)
	c := configOf(s)
	dial, web, _, h := runHub(t, c, http.DefaultTransport, http.DefaultTransport)
	first := ask(context.Background(), &Backend{Config: c, HTTP: web, Hub: dial}, confirmRequest("First?"))
	phone.Tap(phone.Await(1), "Approve")
	if ans, err := first.wait(t); err != nil || !ans.Approved {
		t.Fatalf("the first request: %+v %v", ans, err)
	}
	s.Stop()
	// Once the hub has seen its stream drop.
	for open := true; open; {
		time.Sleep(time.Millisecond)
		h.mu.Lock()
		open = h.opened
		h.mu.Unlock()
	}
	b := &Backend{Config: c, HTTP: web, Hub: dial, OpenWithin: 4 * time.Second}
	_, err := b.Ask(context.Background(), confirmRequest("Second?"))
	if err == nil || !strings.Contains(err.Error(), "could not be reached") {
		t.Fatalf("a request with the server down: %v, want it not reached", err)
	}
}

// answerWithoutTheHub waits, once the hub was killed, for each of asks'
// requests to open a stream of its own, taps Approve on the even ones'
// messages and Cancel on the odd ones', and checks that each request got
// its own answer through its own stream.
func answerWithoutTheHub(t *testing.T, phone *ntfytest.Phone, ownStreams *streamCounting, asks []*asking) {
	t.Helper()
	n := len(asks)
	deadline := time.Now().Add(10 * time.Second)
	for ownStreams.opened.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for i := range n {
		m := requestOf(t, phone, n, fmt.Sprintf("Request %d?", i))
		phone.Tap(m, map[bool]string{true: "Approve", false: "Cancel"}[i%2 == 0])
	}
	for i, a := range asks {
		ans, err := a.wait(t)
		if err != nil || ans.Approved != (i%2 == 0) {
			t.Fatalf("request %d: %+v %v, want approved=%v", i, ans, err, i%2 == 0)
		}
	}
	// At least one stream each: ntfy answers a burst of them with a 403
	// now and then, which is tried again (forbidden).
	if got := ownStreams.opened.Load(); got < int64(n) {
		t.Errorf("%d streams of the requests' own after the hub was killed, want one each (%d)", got, n)
	}
}
