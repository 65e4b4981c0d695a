//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// xconn is a minimal X11 client, just enough for exact timing:
//
//   - it sees every top-level window the X server maps, the moment it is
//     mapped, by listening for MapNotify on the root window. That is the
//     instant `xdotool search --onlyvisible` would first find the window if
//     it polled with no interval, without the polling load (a tight xdotool
//     loop costs a core on a 2-core machine and would slow the very zenity
//     start it measures). The window's title (WM_NAME, which GTK sets
//     before mapping) is fetched right after the event;
//   - it presses keys and clicks through the XTEST extension, so the moment
//     of the press is known to well under a millisecond. `xdotool key` and
//     `xdotool click` return only after built-in delays, often after zenity
//     has already exited, so their return cannot mark the press.
type xconn struct {
	conn                   net.Conn
	root                   uint32
	minKeycode, maxKeycode byte
	xtest                  byte // XTEST's major opcode

	mu      sync.Mutex
	seq     uint16
	replies map[uint16]func(reply []byte, err error)
	events  []windowEvent // every map and unmap seen, in order
	changed chan struct{} // closed and replaced on each new event
	err     error
}

// windowEvent is one top-level window mapped (or unmapped) at At.
type windowEvent struct {
	Win    uint32
	Name   string
	At     time.Time
	Mapped bool
}

const (
	xMapNotify          = 19
	xUnmapNotify        = 18
	xAtomWMName         = 39
	xSubstructureNotify = 1 << 19
	xCWEventMask        = 1 << 11

	xKeyPress      = 2
	xKeyRelease    = 3
	xButtonPress   = 4
	xButtonRelease = 5
	xMotionNotify  = 6

	keysymEscape = 0xff1b
)

// dialX connects to the local display named by display (":N" or ":N.S").
// The display must accept connections without authorisation, as a private
// Xvfb started without -auth does.
func dialX(display string) (*xconn, error) {
	d, ok := strings.CutPrefix(display, ":")
	if !ok {
		return nil, fmt.Errorf("DISPLAY %q is not a local display (:N)", display)
	}
	d, _, _ = strings.Cut(d, ".")
	conn, err := net.Dial("unix", "/tmp/.X11-unix/X"+d)
	if err != nil {
		return nil, fmt.Errorf("connecting to X display %s: %w", display, err)
	}
	x := &xconn{conn: conn, replies: map[uint16]func([]byte, error){}, changed: make(chan struct{})}
	if err := x.setup(); err != nil {
		conn.Close()
		return nil, err
	}
	go x.read()
	// ChangeWindowAttributes(root, event-mask = SubstructureNotify).
	req := make([]byte, 16)
	req[0] = 2
	put16(req[2:], 4)
	put32(req[4:], x.root)
	put32(req[8:], xCWEventMask)
	put32(req[12:], xSubstructureNotify)
	if _, err := x.call(req, false); err != nil {
		conn.Close()
		return nil, err
	}
	// QueryExtension("XTEST").
	name := "XTEST"
	req = make([]byte, 8+(len(name)+3)/4*4)
	req[0] = 98
	put16(req[2:], uint16(len(req)/4))
	put16(req[4:], uint16(len(name)))
	copy(req[8:], name)
	rep, err := x.call(req, true)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if rep[8] == 0 {
		conn.Close()
		return nil, errors.New("the X server has no XTEST extension")
	}
	x.xtest = rep[9]
	return x, nil
}

// setup performs the connection handshake and keeps the first screen's
// root window and the keycode range.
func (x *xconn) setup() error {
	// Little-endian, protocol 11.0, no authorisation.
	if _, err := x.conn.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(x.conn, head); err != nil {
		return fmt.Errorf("X connection setup: %w", err)
	}
	rest := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:8])))
	if _, err := io.ReadFull(x.conn, rest); err != nil {
		return fmt.Errorf("X connection setup: %w", err)
	}
	if head[0] != 1 {
		return fmt.Errorf("X server refused the connection (it may require authorisation): %q", rest[:min(int(head[1]), len(rest))])
	}
	// The fixed part is 32 bytes; then the vendor string (padded to 4),
	// the pixmap formats (8 bytes each), and the first screen, whose first
	// field is its root window.
	vendor := int(binary.LittleEndian.Uint16(rest[16:18]))
	formats := int(rest[21])
	off := 32 + (vendor+3)/4*4 + 8*formats
	if len(rest) < off+4 {
		return errors.New("X connection setup: short reply")
	}
	x.minKeycode, x.maxKeycode = rest[26], rest[27]
	x.root = binary.LittleEndian.Uint32(rest[off : off+4])
	return nil
}

func put16(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) }
func put32(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) }

// send writes one request; onReply, if not nil, gets its reply or error in
// the reading goroutine. x.mu is held.
func (x *xconn) send(req []byte, onReply func([]byte, error)) error {
	if _, err := x.conn.Write(req); err != nil {
		return err
	}
	x.seq++
	if onReply != nil {
		x.replies[x.seq] = onReply
	}
	return nil
}

// call sends req and, if it has a reply, waits for it. A request without
// a reply is followed by GetInputFocus, whose reply proves the server has
// processed it.
func (x *xconn) call(req []byte, hasReply bool) ([]byte, error) {
	type result struct {
		rep []byte
		err error
	}
	done := make(chan result, 1)
	x.mu.Lock()
	var err error
	if hasReply {
		err = x.send(req, func(rep []byte, err error) { done <- result{rep, err} })
	} else {
		if err = x.send(req, nil); err == nil {
			err = x.send([]byte{43, 0, 1, 0}, func(rep []byte, err error) { done <- result{rep, err} })
		}
	}
	x.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(10 * time.Second):
		return nil, errors.New("the X server did not answer within 10 s")
	}
}

// read handles everything the server sends until the connection closes.
func (x *xconn) read() {
	buf := make([]byte, 32)
	fail := func(err error) {
		x.mu.Lock()
		x.err = err
		pending := x.replies
		x.replies = map[uint16]func([]byte, error){}
		close(x.changed)
		x.changed = make(chan struct{})
		x.mu.Unlock()
		for _, f := range pending {
			f(nil, err)
		}
	}
	for {
		if _, err := io.ReadFull(x.conn, buf); err != nil {
			fail(err)
			return
		}
		now := time.Now()
		switch code := buf[0] & 0x7f; code {
		case 0, 1: // an error or a reply to one of our requests
			msg := append([]byte(nil), buf...)
			if code == 1 {
				extra := make([]byte, 4*int(binary.LittleEndian.Uint32(buf[4:8])))
				if _, err := io.ReadFull(x.conn, extra); err != nil {
					fail(err)
					return
				}
				msg = append(msg, extra...)
			}
			seq := binary.LittleEndian.Uint16(buf[2:4])
			x.mu.Lock()
			f := x.replies[seq]
			delete(x.replies, seq)
			x.mu.Unlock()
			if f == nil {
				continue
			}
			if code == 0 {
				f(nil, fmt.Errorf("X error %d", buf[1]))
			} else {
				f(msg, nil)
			}
		case xMapNotify:
			win := binary.LittleEndian.Uint32(buf[8:12])
			// GetProperty(win, WM_NAME, any type, 0, 256 words). A window
			// gone before its name is read is recorded without one.
			req := make([]byte, 24)
			req[0] = 20
			put16(req[2:], 6)
			put32(req[4:], win)
			put32(req[8:], xAtomWMName)
			put32(req[20:], 256)
			x.mu.Lock()
			x.send(req, func(rep []byte, err error) {
				e := windowEvent{Win: win, At: now, Mapped: true}
				if err == nil {
					n := int(binary.LittleEndian.Uint32(rep[16:20])) * int(rep[1]) / 8
					e.Name = string(rep[32:min(32+n, len(rep))])
				}
				x.mu.Lock()
				x.add(e)
				x.mu.Unlock()
			})
			x.mu.Unlock()
		case xUnmapNotify:
			win := binary.LittleEndian.Uint32(buf[8:12])
			x.mu.Lock()
			x.add(windowEvent{Win: win, At: now})
			x.mu.Unlock()
		}
	}
}

// add records e and wakes everyone waiting. x.mu is held.
func (x *xconn) add(e windowEvent) {
	if !e.Mapped {
		// Unmaps carry the name the window was mapped with.
		for i := len(x.events) - 1; i >= 0; i-- {
			if x.events[i].Win == e.Win && x.events[i].Mapped {
				e.Name = x.events[i].Name
				break
			}
		}
	}
	x.events = append(x.events, e)
	close(x.changed)
	x.changed = make(chan struct{})
}

// waitFor returns the first map (or unmap) of a window titled name that
// happened at or after since, waiting up to timeout for it.
func (x *xconn) waitFor(name string, mapped bool, since time.Time, timeout time.Duration) (windowEvent, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		x.mu.Lock()
		for _, e := range x.events {
			if e.Name == name && e.Mapped == mapped && !e.At.Before(since) {
				x.mu.Unlock()
				return e, nil
			}
		}
		ch, err := x.changed, x.err
		x.mu.Unlock()
		if err != nil {
			return windowEvent{}, fmt.Errorf("X connection: %w", err)
		}
		select {
		case <-ch:
		case <-deadline.C:
			what := "mapped"
			if !mapped {
				what = "unmapped"
			}
			return windowEvent{}, fmt.Errorf("no window titled %q was %s within %s", name, what, timeout)
		}
	}
}

// count returns how many times a window titled name was mapped.
func (x *xconn) count(name string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := 0
	for _, e := range x.events {
		if e.Name == name && e.Mapped {
			n++
		}
	}
	return n
}

// fakeInput builds one XTestFakeInput request: type, detail and, for
// motion, an absolute position on the root window.
func (x *xconn) fakeInput(typ, detail byte, px, py int) []byte {
	req := make([]byte, 36)
	req[0], req[1] = x.xtest, 2
	put16(req[2:], 9)
	req[4], req[5] = typ, detail
	put32(req[12:], x.root)
	put16(req[24:], uint16(int16(px)))
	put16(req[26:], uint16(int16(py)))
	return req
}

// press sends the requests in one write and returns the moment just
// before the write, after the server has confirmed it processed them.
func (x *xconn) press(reqs ...[]byte) (time.Time, error) {
	var all []byte
	for _, r := range reqs {
		all = append(all, r...)
	}
	// One write, then GetInputFocus to know the server took it; the
	// sequence counts every request in the write.
	type result struct{ err error }
	done := make(chan result, 1)
	x.mu.Lock()
	at := time.Now()
	_, err := x.conn.Write(all)
	if err == nil {
		x.seq += uint16(len(reqs))
		err = x.send([]byte{43, 0, 1, 0}, func(_ []byte, err error) { done <- result{err} })
	}
	x.mu.Unlock()
	if err != nil {
		return at, err
	}
	select {
	case r := <-done:
		return at, r.err
	case <-time.After(10 * time.Second):
		return at, errors.New("the X server did not answer within 10 s")
	}
}

// click moves the pointer to (px, py) and clicks button 1 there. It
// returns the moment of the click.
func (x *xconn) click(px, py int) (time.Time, error) {
	if _, err := x.press(x.fakeInput(xMotionNotify, 0, px, py)); err != nil {
		return time.Time{}, err
	}
	// Let the toolkit see the pointer over the button before it is pressed.
	time.Sleep(50 * time.Millisecond)
	return x.press(x.fakeInput(xButtonPress, 1, 0, 0), x.fakeInput(xButtonRelease, 1, 0, 0))
}

// key presses and releases the key that carries keysym, in the focused
// window, and returns the moment of the press.
func (x *xconn) key(keysym uint32) (time.Time, error) {
	code, err := x.keycode(keysym)
	if err != nil {
		return time.Time{}, err
	}
	return x.press(x.fakeInput(xKeyPress, code, 0, 0), x.fakeInput(xKeyRelease, code, 0, 0))
}

// keycode finds the keycode whose keyboard mapping holds keysym.
func (x *xconn) keycode(keysym uint32) (byte, error) {
	count := int(x.maxKeycode) - int(x.minKeycode) + 1
	req := []byte{101, 0, 2, 0, x.minKeycode, byte(count), 0, 0}
	rep, err := x.call(req, true)
	if err != nil {
		return 0, err
	}
	per := int(rep[1])
	for i := 0; i < count; i++ {
		for j := 0; j < per; j++ {
			off := 32 + 4*(i*per+j)
			if off+4 <= len(rep) && binary.LittleEndian.Uint32(rep[off:]) == keysym {
				return x.minKeycode + byte(i), nil
			}
		}
	}
	return 0, fmt.Errorf("no key carries keysym %#x", keysym)
}
