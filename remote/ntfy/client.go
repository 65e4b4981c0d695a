package ntfy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/ask-confirm/ask-confirm/remote"
)

// The ntfy wire format, as server/types.go of ntfy v2.13 has it: the part
// of it this package writes and reads.

// message is one event of a subscription stream, or a message to publish.
type message struct {
	ID       string   `json:"id,omitempty"`
	Time     int64    `json:"time,omitempty"`
	Event    string   `json:"event,omitempty"` // open, keepalive, message, poll_request
	Topic    string   `json:"topic"`
	Title    string   `json:"title,omitempty"`
	Message  string   `json:"message,omitempty"`
	Priority int      `json:"priority,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Actions  []action `json:"actions,omitempty"`
	Markdown bool     `json:"markdown,omitempty"`
}

// action is a button. With Action "http", a tap makes the phone send
// Method to URL with Headers and Body, nothing else.
type action struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url,omitempty"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Clear   bool              `json:"clear"`
}

// MaxMessageBytes is the longest message body ntfy v2 delivers as text by
// default (message-size-limit); a longer one becomes an attachment.
const MaxMessageBytes = 4096

// noRedirect refuses to follow a redirect: ntfy's API never sends one, and
// following it would send the token elsewhere, perhaps over plain http.
func noRedirect(*http.Request, []*http.Request) error {
	return errors.New("the ntfy server answered with a redirect, which is not followed")
}

// client talks to one ntfy server as the asking side, with remote.Config.Token.
type client struct {
	c    remote.Config
	http *http.Client
}

// publish sends m and returns the ID the server gave it. A publish the
// server refused for a moment is tried again for up to ten seconds: ntfy
// now and then answers one of a burst with 403, and a server that has just
// restarted refuses every request for a moment. A publish whose answer
// was lost may have arrived: the phone may show it twice, with the same
// buttons.
func (cl client) publish(ctx context.Context, m message) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(10 * time.Second)
	wait := 100 * time.Millisecond
	for {
		id, retry, err := cl.publishOnce(ctx, b)
		if err == nil || !retry || time.Now().After(deadline) || ctx.Err() != nil {
			return id, err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

func (cl client) publishOnce(ctx context.Context, body []byte) (id string, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.c.TopicURL(""), bytes.NewReader(body))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.http.Do(req)
	if err != nil {
		return "", true, fmt.Errorf("publishing to the ntfy server: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", resp.StatusCode >= 500 || resp.StatusCode == http.StatusForbidden,
			fmt.Errorf("the ntfy server refused the message: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	var m message
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&m); err != nil {
		return "", false, fmt.Errorf("reading the ntfy server's answer: %w", err)
	}
	return m.ID, false, nil
}

// ErrRefused is returned when the server refuses a subscription: a wrong
// token, or one without read access to the topic.
var ErrRefused = errors.New("the ntfy server refused the subscription")

// idleLimit is how long a subscription may stay silent before it counts
// as dropped: ntfy sends a keepalive every 45 s by default, so a
// connection that a NAT or a sleeping laptop killed without a word is
// noticed, and resumed, within this.
const idleLimit = 2 * time.Minute

// errIdle is returned by subscribe for a connection that fell silent.
var errIdle = errors.New("the ntfy server fell silent; reconnecting")

// subscribe reads the messages of topic as they come, from since on (a
// message ID, a Unix time, or "" for only new ones), and calls got for
// each. It calls opened, once per connection, with the server's time when
// the subscription is open. It returns when ctx ends, when got returns
// false, or when the connection drops or falls silent for idleLimit (with
// the ID of the last message read, for since). A line longer than ntfy
// sends ends it with an error rather than growing.
func (cl client) subscribe(ctx context.Context, topic, since string, opened func(serverTime int64), got func(message) bool) (last string, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(idleLimit, func() { cancel(errIdle) })
	defer idle.Stop()
	resp, err := cl.open(actx, topic, since)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	// A message body is at most 4096 bytes; its JSON, escaped, with the
	// other fields, stays well under this.
	sc.Buffer(make([]byte, 0, 16<<10), 64<<10)
	for sc.Scan() {
		idle.Reset(idleLimit)
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		switch m.Event {
		case "open":
			if opened != nil {
				opened(m.Time)
				opened = nil
			}
		case "message":
			last = m.ID
			if !got(m) {
				return last, nil
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		return last, ctx.Err()
	case context.Cause(actx) == errIdle:
		return last, errIdle
	case sc.Err() != nil:
		return last, fmt.Errorf("reading from the ntfy server: %w", sc.Err())
	}
	return last, io.ErrUnexpectedEOF
}

// open opens the subscription to topic's messages from since on, in ctx,
// whose cause errIdle says the server fell silent.
func (cl client) open(ctx context.Context, topic, since string) (*http.Response, error) {
	u := cl.c.TopicURL(topic) + "/json"
	if since != "" {
		u += "?" + url.Values{"since": {since}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.c.Token)
	resp, err := cl.http.Do(req)
	if err != nil {
		if context.Cause(ctx) == errIdle {
			return nil, errIdle
		}
		return nil, fmt.Errorf("subscribing to the ntfy server: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, resp.Status)
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return nil, fmt.Errorf("subscribing to the ntfy server: %s", resp.Status)
	}
	return resp, nil
}
