package ntfy

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ask-confirm/ask-confirm/remote"
)

// A machine's pending phone requests share one stream of the reply topic:
// its hub (ask-confirm-phone hub), one detached process per setup (server,
// reply topic and token), which holds the stream (follow: polling where the
// server refuses it for its limits) and relays every message it reads, with
// the server's time of its open, to each request program connected to its
// unix socket. ntfy lets one visitor hold 30 subscriptions by default: a
// stream per request made the 31st fail, or poll.
//
// The hub matches nothing: each request program still reads every message
// as its own stream's (capabilities, the fleet's MACs and records), so a
// hub can lose no answer and invent none. A program that cannot reach a
// hub, or whose hub dies or drops it, reads the topic itself from the last
// message the hub relayed (hubFollow's since). The hub is its own detached
// process, not a child of a request program, since the holder kills its
// program once it is done; it exits after hubIdle without a client.

// hubIdle is how long a hub without a client stays.
const hubIdle = 30 * time.Second

// hubOpenWithin is how long a request program waits for its hub's open
// before it reads the topic itself.
const hubOpenWithin = 2 * time.Second

// hubQueue bounds the lines a hub holds for one client: a client that
// falls this far behind is dropped, and reads the topic itself.
const hubQueue = 1024

// hubLine is one line from a hub to a request program: Open once, with
// the server's time, then each message of the topic (M) and each line too
// long to read (TooLong).
type hubLine struct {
	Open    int64    `json:"open,omitempty"`
	M       *message `json:"m,omitempty"`
	TooLong int      `json:"too_long,omitempty"`
}

// errHubGone ends hubFollow where the hub could not be reached, or
// dropped the program: it reads the topic itself.
var errHubGone = errors.New("the phone's hub is gone")

// Hub relays the reply topic of Config to the request programs that
// connect to it (Serve).
type Hub struct {
	Config remote.Config
	// HTTP is the client the stream is read with; nil is one over
	// http.DefaultTransport.
	HTTP *http.Client
	// Idle is how long Serve waits without a client before it returns;
	// zero is hubIdle.
	Idle time.Duration

	mu      sync.Mutex
	clients map[*hubClient]struct{}
	opened  bool
	openAt  int64     // the server's time when the stream last opened
	openMon time.Time // this machine's (monotonic) time then
}

// hubClient is a connected request program and the lines queued for it.
type hubClient struct {
	conn   net.Conn
	lines  chan []byte
	opened bool
}

// serverNow is the server's time now as the hub knows it, a second early:
// a request program resumes from it where no message came yet.
func (h *Hub) serverNow() int64 {
	return h.openAt + int64(time.Since(h.openMon)/time.Second) - 1
}

// Serve accepts request programs on ln and relays the stream to them
// until ctx ends, the server refuses the stream for good, or no client
// came for Idle, and carries their publishes and polls to the server
// from web (proxy), where it is not nil. It closes ln and web.
func (h *Hub) Serve(ctx context.Context, ln, web net.Listener) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var busy atomic.Int64
	if web != nil {
		srv := &http.Server{Handler: h.proxy(&busy), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(web) }()
		defer srv.Close()
	}
	h.mu.Lock()
	h.clients = map[*hubClient]struct{}{}
	h.mu.Unlock()
	joined := make(chan struct{}, 1)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				cancel(err)
				return
			}
			h.add(conn)
			select {
			case joined <- struct{}{}:
			default:
			}
		}
	}()
	streamErr := make(chan error, 1)
	go func() { streamErr <- h.stream(ctx) }()
	idle := cmp.Or(h.Idle, hubIdle)
	timer := time.NewTimer(idle)
	defer timer.Stop()
	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err = <-streamErr:
			break loop
		case <-joined:
			timer.Reset(idle)
		case <-timer.C:
			h.mu.Lock()
			n := len(h.clients)
			h.mu.Unlock()
			if n == 0 && busy.Load() == 0 {
				break loop
			}
			timer.Reset(idle)
		}
	}
	ln.Close()
	cancel(nil)
	h.dropAll()
	return err
}

// dropAll drops every client, and takes no other.
func (h *Hub) dropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		close(c.lines)
		c.conn.Close()
	}
	h.clients = nil
}

// add takes conn as a client: its lines are written as they are queued,
// and it is dropped when it closes or falls behind.
func (h *Hub) add(conn net.Conn) {
	c := &hubClient{conn: conn, lines: make(chan []byte, hubQueue)}
	h.mu.Lock()
	if h.clients == nil {
		h.mu.Unlock()
		conn.Close()
		return
	}
	h.clients[c] = struct{}{}
	if h.opened {
		h.queue(c, hubLine{Open: h.serverNow()})
		c.opened = true
	}
	h.mu.Unlock()
	go func() {
		// A client sends nothing: its end is its close.
		_, _ = io.Copy(io.Discard, conn)
		h.drop(c)
	}()
	go func() {
		defer conn.Close()
		for line := range c.lines {
			if _, err := conn.Write(line); err != nil {
				h.drop(c)
				return
			}
		}
	}()
}

// drop forgets c and closes its queue.
func (h *Hub) drop(c *hubClient) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c.lines)
	}
}

// queue queues l for c, with h.mu held; a client whose queue is full is
// dropped, and reads the topic itself from the last line it got.
func (h *Hub) queue(c *hubClient, l hubLine) {
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	select {
	case c.lines <- append(b, '\n'):
	default:
		delete(h.clients, c)
		close(c.lines)
	}
}

// broadcast queues l for every client that has had its open.
func (h *Hub) broadcast(l hubLine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		if c.opened {
			h.queue(c, l)
		}
	}
}

// stream reads the reply topic until ctx ends or the server refuses it
// for good, as Backend.subscribe does: dropped connections resumed from
// the last message read after a second, a 403 tried again (forbidden).
func (h *Hub) stream(ctx context.Context) error {
	cl := client{c: h.Config, http: h.HTTP}
	if cl.http == nil {
		cl.http = &http.Client{CheckRedirect: noRedirect}
	}
	since, refusals := "", 0
	for {
		connected := false
		opened := func(serverTime int64) {
			connected = true
			h.mu.Lock()
			defer h.mu.Unlock()
			h.opened, h.openAt, h.openMon = true, serverTime, time.Now()
			for c := range h.clients {
				if !c.opened {
					h.queue(c, hubLine{Open: h.serverNow()})
					c.opened = true
				}
			}
		}
		last, err := cl.follow(ctx, h.Config.ReplyTopic, since, nil, opened, func(m message) bool {
			h.broadcast(hubLine{M: &m})
			return true
		}, func(size int) { h.broadcast(hubLine{TooLong: size}) })
		// Until it opens again, a request that comes waits for its open
		// (hubOpenWithin), or reads the server itself: a server that is
		// down fails it as it would fail without a hub.
		h.mu.Lock()
		h.opened = false
		h.mu.Unlock()
		if last != "" {
			since = last
		} else if since == "" && h.openAt != 0 {
			since = strconv.FormatInt(h.openAt, 10)
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, new(forbidden)) && refusals < forbiddenAgain && !connected:
			refusals++
		case errors.Is(err, ErrRefused):
			return err
		default:
			refusals = 0
		}
		pause := time.Second
		if refusals > 0 {
			pause = forbiddenPause(refusals)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
	}
}

// hubFollow reads the reply topic through the hub that dial reaches, as
// follow does: opened with the server's time the hub gives, got with each
// message. It returns when ctx ends (ctx's error), when got returns false
// (nil), or with errHubGone where the hub could not be reached, gave no
// open within hubOpenWithin, or dropped the program: last is then the ID
// of the last message relayed, and serverTime the hub's open, for the
// program to resume from itself.
func hubFollow(ctx context.Context, dial func(context.Context) (net.Conn, error), opened func(serverTime int64), got func(message) bool, tooLong func(size int)) (last string, serverTime int64, err error) {
	conn, err := dial(ctx)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errHubGone, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	openBy := time.AfterFunc(hubOpenWithin, func() { conn.Close() })
	defer openBy.Stop()
	lines := bufio.NewReaderSize(conn, 16<<10)
	for {
		line, _, _, rerr := readLine(lines, 2*maxLine)
		var l hubLine
		if line != nil && json.Unmarshal(line, &l) == nil {
			switch {
			case l.Open != 0 && serverTime == 0:
				if !openBy.Stop() {
					return "", 0, errHubGone
				}
				serverTime = l.Open
				opened(serverTime)
			case l.M != nil && serverTime != 0:
				last = l.M.ID
				if !got(*l.M) {
					return last, serverTime, nil
				}
			case l.TooLong > 0 && tooLong != nil:
				tooLong(l.TooLong)
			}
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return last, serverTime, ctx.Err()
			}
			return last, serverTime, errHubGone
		}
	}
}

// hubName is the name of the hub's socket and lock for c, without their
// ending: a hash of the server, the reply topic and the token, so that
// each setup has its own hub and no path shows the token.
func hubName(c remote.Config) string {
	sum := sha256.Sum256([]byte("ask-confirm hub\n" + c.Server + "\n" + c.ReplyTopic + "\n" + c.Token))
	return hex.EncodeToString(sum[:10])
}

// maxSocketPath is the longest socket path every platform binds (macOS's
// sun_path is 104 bytes, with its NUL).
const maxSocketPath = 100

// hubDir is the directory of the hubs' sockets: ask-confirm under
// XDG_RUNTIME_DIR where it is set, or else ask-confirm-UID under the
// temporary directory, made 0700 and refused where another user owns it,
// or may read it (hubDirSafe).
func hubDir() (string, error) {
	dir := filepath.Join(os.TempDir(), hubTempName())
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "ask-confirm")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if err := hubDirSafe(fi); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return dir, nil
}

// hubPaths are the socket and lock of c's hub.
func hubPaths(c remote.Config) (socket, lock string, err error) {
	dir, err := hubDir()
	if err != nil {
		return "", "", err
	}
	name := hubName(c)
	socket = filepath.Join(dir, name+".sock")
	if len(socket) > maxSocketPath {
		return "", "", fmt.Errorf("the hub's socket path is too long: %s", socket)
	}
	return socket, filepath.Join(dir, name+".lock"), nil
}
