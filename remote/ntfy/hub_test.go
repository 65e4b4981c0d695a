//go:build unix

package ntfy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/remote"
)

// Each setup (server, reply topic, token) has its own hub, and no path
// of a hub shows its token.
func TestHubNamePerSetup(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c := remote.Config{Server: "https://ntfy.example", ReplyTopic: "replies", Token: "tk_secretsecretsecret"}
	names := map[string]bool{}
	for _, v := range []remote.Config{c,
		{Server: "https://other.example", ReplyTopic: c.ReplyTopic, Token: c.Token},
		{Server: c.Server, ReplyTopic: "other", Token: c.Token},
		{Server: c.Server, ReplyTopic: c.ReplyTopic, Token: "tk_another"},
	} {
		socket, lock, err := hubPaths(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(socket+lock, v.Token) || strings.Contains(socket+lock, "secret") {
			t.Fatalf("a hub's path shows the token: %s %s", socket, lock)
		}
		names[hubName(v)] = true
	}
	if len(names) != 4 {
		t.Fatalf("%d hubs for 4 setups", len(names))
	}
	// The topic that asks is not part of it: one machine's requests
	// share a hub whatever they ask.
	if hubName(c) != hubName(remote.Config{Server: c.Server, ReplyTopic: c.ReplyTopic, Token: c.Token, Topic: "asks"}) {
		t.Fatal("the request topic changed the hub")
	}
}

// The hubs' directory is made 0700, and one others may enter, or that is
// a symbolic link, is refused: no hub then, each request reads the topic
// itself.
func TestHubDirPermissions(t *testing.T) {
	c := remote.Config{Server: "https://ntfy.example", ReplyTopic: "replies", Token: "tk_x"}
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	if _, _, err := hubPaths(c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(rt, "ask-confirm"))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the hubs' directory: %v %v, want a directory 0700", fi.Mode(), err)
	}
	if err := os.Chmod(filepath.Join(rt, "ask-confirm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := hubPaths(c); err == nil {
		t.Fatal("a directory open to others was used")
	}
	rt2 := t.TempDir()
	if err := os.Symlink(filepath.Join(rt, "ask-confirm"), filepath.Join(rt2, "ask-confirm")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(rt, "ask-confirm"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt2)
	if _, _, err := hubPaths(c); err == nil {
		t.Fatal("a symbolic link was used")
	}
}

// A hub stays while a request program is connected, and goes once none
// has been for its idle time.
func TestHubGoesWhenIdle(t *testing.T) {
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	// A server that is not there: the hub's stream only tries again.
	h := &Hub{Config: remote.Config{Server: "http://127.0.0.1:1", ReplyTopic: "r", Token: "t"}, Idle: time.Second}
	served := make(chan error, 1)
	go func() { served <- h.Serve(context.Background(), ln, nil) }()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	for clients := 0; clients == 0; {
		h.mu.Lock()
		clients = len(h.clients)
		h.mu.Unlock()
		select {
		case err := <-served:
			t.Fatalf("the hub went before its client came: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case err := <-served:
		t.Fatalf("the hub went with a client connected: %v", err)
	case <-time.After(3 * time.Second):
	}
	conn.Close()
	select {
	case <-served:
	case <-time.After(30 * time.Second):
		t.Fatal("the hub stayed without a client")
	}
	if _, err := net.Dial("unix", socket); err == nil {
		t.Fatal("the hub's socket still answers")
	}
}

// A request program's publish goes through its hub's proxy while the hub
// serves, and straight to the server, whole, once it cannot be reached;
// a stream always goes straight to the server.
func TestHubRoute(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprintln(w, `{"id":"x"}`)
	}))
	defer srv.Close()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "s.http")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var busy atomic.Int64
	h := &Hub{Config: remote.Config{Server: srv.URL}}
	proxied := 0
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied++
		h.proxy(&busy).ServeHTTP(w, r)
	})}
	go func() { _ = hs.Serve(ln) }()
	cl := &http.Client{Transport: newHubRoute(socket)}
	post := func() {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader("body"))
		req.Header.Set("Authorization", "Bearer tk")
		req.Close = true
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	post()
	if proxied != 1 {
		t.Fatalf("the publish went through the hub %d times, want 1", proxied)
	}
	resp, err := cl.Get(srv.URL + "/replies/json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if proxied != 1 {
		t.Fatal("a stream went through the hub")
	}
	hs.Close()
	post()
	post()
	mu.Lock()
	defer mu.Unlock()
	want := []string{"POST / body Bearer tk", "GET /replies/json  ", "POST / body Bearer tk", "POST / body Bearer tk"}
	if !slices.Equal(got, want) {
		t.Fatalf("the server got %q, want %q", got, want)
	}
}

// A server the hub cannot reach fails a request program's publish as it
// would fail without the hub: with the transport's error, not a 502 of
// the hub's.
func TestHubRouteServerDown(t *testing.T) {
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "s.http")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	var busy atomic.Int64
	h := &Hub{Config: remote.Config{Server: "http://127.0.0.1:1"}}
	hs := &http.Server{Handler: h.proxy(&busy)}
	defer hs.Close()
	go func() { _ = hs.Serve(ln) }()
	cl := client{c: remote.Config{Server: "http://127.0.0.1:1", Topic: "t"}, http: &http.Client{Transport: newHubRoute(socket)}}
	_, again, err := cl.publishOnce(context.Background(), "t", []byte(`{}`))
	if err == nil || !again || strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("publish with the server down: again=%v %v, want the connection's refusal, tried again", again, err)
	}
}
