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
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
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
// default (message-size-limit, 4,096): ntfy 2.13 takes a body of exactly
// the limit for a longer one, which becomes an attachment, refused where
// attachments are off. dialog.Phone keeps a request's text below it.
const MaxMessageBytes = 4095

// noRedirect refuses to follow a redirect: ntfy's API never sends one, and
// following it would send the token elsewhere, perhaps over plain http.
func noRedirect(*http.Request, []*http.Request) error {
	return errors.New("the ntfy server answered with a redirect, which is not followed")
}

// client talks to one ntfy server as the asking side, with remote.Config.Token.
type client struct {
	c    remote.Config
	http *http.Client
	// streamAgain is how long follow polls before it tries a stream
	// again; zero is streamAgainAfter.
	streamAgain time.Duration
}

// How long a publish may take: publishWithin in all, its tries included,
// and tryWithin for one try. ntfy answers a publish within milliseconds;
// a server that holds one longer is stalling, and the request must fail
// while its caller still waits rather than expire (exit 5) unannounced.
const (
	publishWithin = 10 * time.Second
	tryWithin     = 5 * time.Second
)

// ErrPublishRefused is returned when the server refuses to publish: a
// wrong token (401), or one without write access to the topic (403).
var ErrPublishRefused = errors.New("the ntfy server refused to publish the message")

// publish sends m and returns the ID the server gave it. A try the
// server could not take (a connection refused, a 5xx, a 429) is tried
// again after a pause, within publishWithin: a server that has just
// restarted refuses every request for a moment. A 403 is tried
// forbiddenAgain more times, within a second (ntfy now and then answers
// one of a burst with 403), a 401 never, and a try the server held past
// tryWithin is not tried again. A publish whose
// answer was lost may have arrived: the phone may show it twice, with the
// same buttons.
func (cl client) publish(ctx context.Context, m message) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(publishWithin)
	pause := 250 * time.Millisecond
	refused := 0
	for {
		id, again, err := cl.publishOnce(ctx, m.Topic, b)
		if err == nil || !again || ctx.Err() != nil {
			return id, err
		}
		wait := pause
		if errors.Is(err, ErrPublishRefused) {
			if refused++; refused > forbiddenAgain {
				return "", err
			}
			wait = forbiddenPause(refused)
		} else {
			pause = min(2*pause, 2*time.Second)
		}
		if time.Now().Add(wait).After(deadline) {
			return "", err
		}
		select {
		case <-ctx.Done():
			// What went wrong says more than that the time ran out.
			return "", err
		case <-time.After(wait):
		}
	}
}

// publishOnce makes one try of publish; again says whether another try
// may go better.
func (cl client) publishOnce(ctx context.Context, topic string, body []byte) (id string, again bool, err error) {
	tctx, cancel := context.WithTimeout(ctx, tryWithin)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, cl.c.TopicURL(""), bytes.NewReader(body))
	if err != nil {
		return "", false, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.c.Token)
	req.Header.Set("Content-Type", "application/json")
	// Closed once answered: a request program publishes a few times in a
	// wait of minutes, and an idle kept-alive connection per pending
	// request would count against the server's limits for nothing.
	req.Close = true
	resp, err := cl.http.Do(req)
	switch {
	case err != nil && ctx.Err() != nil:
		return "", false, ctx.Err()
	case err != nil && tctx.Err() != nil:
		return "", false, fmt.Errorf("the ntfy server did not answer a publish within %s", tryWithin)
	case err != nil:
		return "", true, fmt.Errorf("publishing to the ntfy server: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", resp.StatusCode == http.StatusForbidden, fmt.Errorf("%w to %s: %s; %s", ErrPublishRefused, topic, serverSaid(resp), mendPublish(resp.StatusCode, topic))
	case resp.StatusCode != http.StatusOK:
		return "", resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests,
			fmt.Errorf("the ntfy server refused the message: %s", serverSaid(resp))
	}
	var m message
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&m); err != nil {
		if tctx.Err() != nil && ctx.Err() == nil {
			return "", false, fmt.Errorf("the ntfy server did not answer a publish within %s", tryWithin)
		}
		return "", false, fmt.Errorf("reading the ntfy server's answer: %w", err)
	}
	return m.ID, false, nil
}

// mendPublish says what would let the asking token publish to topic,
// refused with status.
func mendPublish(status int, topic string) string {
	if status == http.StatusUnauthorized {
		return "the asking token is not one the server knows: make one with ntfy token add ASKING-USER, and run ask-confirm remote setup again"
	}
	return "the asking token may not publish there: on the server, ntfy access ASKING-USER " + topic + " wo"
}

// serverSaid is what a refusing server said: its status and the reason in
// its body (ntfy's JSON error, or the first 512 bytes of any other), shown
// inert, as the caller's text is (dialog.Literal): it comes from the
// server, and reaches stderr and the history.
func serverSaid(resp *http.Response) string {
	said := resp.Status
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	var e struct {
		Code  int    `json:"code"`
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		said += ": " + e.Error
		if e.Code != 0 {
			said += fmt.Sprintf(" (ntfy's code %d)", e.Code)
		}
	} else if t := bytes.TrimSpace(body); len(t) > 0 {
		said += ": " + string(t)
	}
	return dialog.Literal(said, false)
}

// ErrRefused is returned when the server refuses a subscription: a wrong
// token, or one without read access to the topic.
var ErrRefused = errors.New("the ntfy server refused the subscription")

// forbidden is a subscription or a poll refused with 403. ntfy answers
// 403 both for a token without access and when its accounts' database is
// busy for a moment (its access check fails on any database error, and a
// burst of requests meets the write of the tokens' last use): a request
// refused so is tried forbiddenAgain more times before the refusal
// stands.
type forbidden struct{ error }

// forbiddenAgain is how many more times a request ntfy refused with 403
// is tried, with pauses, before the refusal stands. In bursts of four
// publishes with one token (a vote's follow-up to three phones and its
// record), ntfy 2.13 refused about 1 in 100 with 403, each of which
// passed when tried again a quarter of a second later; one more try alone
// now and then met a second refusal on a busy machine, and a follow-up
// was lost. A token truly without access is reported about half a second
// later than it would be after one try.
const forbiddenAgain = 3

// forbiddenPause is the pause before the n-th new try (from 1) of a
// request refused with 403: 100 ms, doubled each time, 0.7 s in all.
func forbiddenPause(n int) time.Duration { return 100 * time.Millisecond << (n - 1) }

// whileForbidden calls try, and again after each forbiddenPause, up to
// forbiddenAgain more times, while try reports a 403 and ctx lasts.
func whileForbidden(ctx context.Context, try func() (forbidden bool)) {
	for again := 1; try() && again <= forbiddenAgain; again++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(forbiddenPause(again)):
		}
	}
}

func (f forbidden) Unwrap() error { return f.error }

// idleLimit is how long a subscription may stay silent before it counts
// as dropped: ntfy sends a keepalive every 45 s by default, so a
// connection that a NAT or a sleeping laptop killed without a word is
// noticed, and resumed, within this.
const idleLimit = 2 * time.Minute

// errIdle is returned by subscribe for a connection that fell silent.
var errIdle = errors.New("the ntfy server fell silent; reconnecting")

// maxLine is the longest line of a subscription this client reads: a
// message body is at most 4096 bytes, and its JSON, escaped, with the
// other fields, stays well under this.
const maxLine = 64 << 10

// subscribe reads the messages of topic as they come, from since on (a
// message ID, a Unix time, or "" for only new ones), and calls got for
// each. It calls opened, once per connection, with the server's time when
// the subscription is open. It returns when ctx ends, when got returns
// false, or when the connection drops or falls silent for idleLimit (with
// the ID of the last message read, for since). A line longer than maxLine
// (a message with a huge title, which ntfy accepts from whoever may write
// the topic) is skipped, unread, and reported to tooLong: it must not end
// the connection, or the reconnection from the last message read would
// meet it again, and no reply after it would ever be read.
func (cl client) subscribe(ctx context.Context, topic, since string, opened func(serverTime int64), got func(message) bool, tooLong func(size int)) (last string, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(idleLimit, func() { cancel(errIdle) })
	defer idle.Stop()
	resp, err := cl.open(actx, topic, since)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	lines := bufio.NewReaderSize(resp.Body, 16<<10)
	for {
		line, head, size, rerr := readLine(lines, maxLine)
		if size > 0 {
			idle.Reset(idleLimit)
		}
		if head != nil {
			// Its ID, which ntfy writes first, is in its head: a
			// reconnection resumes after it.
			if id := idOf(head); id != "" {
				last = id
			}
			if tooLong != nil {
				tooLong(size)
			}
		}
		var m message
		if line != nil && json.Unmarshal(line, &m) == nil {
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
		if rerr == nil {
			continue
		}
		switch {
		case ctx.Err() != nil:
			return last, ctx.Err()
		case context.Cause(actx) == errIdle:
			return last, errIdle
		case rerr != io.EOF:
			return last, fmt.Errorf("reading from the ntfy server: %w", rerr)
		}
		return last, io.ErrUnexpectedEOF
	}
}

// readLine reads one line of r, without its line end. A line longer than
// max is read to its end and dropped: line is nil, head is its first 256
// bytes, and size says how long it was. size is 0 only when nothing was
// read.
func readLine(r *bufio.Reader, max int) (line, head []byte, size int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		switch {
		case size <= max:
			line = append(line, chunk...)
		case head == nil && line != nil:
			head, line = line[:min(len(line), 256)], nil
		case head == nil:
			head = append([]byte(nil), chunk[:min(len(chunk), 256)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if size > max {
			return nil, head, size, err
		}
		if line == nil && size > 0 {
			line = []byte{}
		}
		return bytes.TrimRight(line, "\r\n"), nil, size, err
	}
}

// idOf is the ID at the head of a message's JSON line, as ntfy writes it
// first ({"id":"…",…}), or "".
func idOf(head []byte) string {
	rest, ok := bytes.CutPrefix(head, []byte(`{"id":"`))
	if !ok {
		return ""
	}
	id, _, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || len(id) == 0 || len(id) > 64 {
		return ""
	}
	for _, c := range id {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return ""
		}
	}
	return string(id)
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
	case resp.StatusCode == http.StatusUnauthorized:
		defer resp.Body.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, serverSaid(resp))
	case resp.StatusCode == http.StatusForbidden:
		defer resp.Body.Close()
		return nil, forbidden{fmt.Errorf("%w: %s", ErrRefused, serverSaid(resp))}
	case resp.StatusCode == http.StatusTooManyRequests:
		defer resp.Body.Close()
		return nil, limitedBy(resp, "subscribing to the ntfy server")
	case resp.StatusCode != http.StatusOK:
		defer resp.Body.Close()
		return nil, fmt.Errorf("subscribing to the ntfy server: %s", serverSaid(resp))
	}
	return resp, nil
}

// pollIdle bounds a poll's silences: ntfy starts to answer one within
// milliseconds, even over 10,000 cached messages, and then streams it; a
// server silent longer is stalling, and must not use up the time the
// phone's message has to be sent within the caller's wait. A poll that
// goes on streaming is read to its end, however long the topic is.
const pollIdle = 2 * time.Second

// poll reads topic's cached messages from since on (all, a message ID or
// a Unix time) that carry every tag of tags, filtered by the server, in
// its order (time in whole seconds, then the order it stored them), and
// returns those keep keeps: one request, read to its end whatever else the
// topic holds. Whoever may write the topic (the answer token, which every
// notification carries) may write any number of messages under any tag,
// so no count bounds a poll, and keep, not the server's filter, says what
// is the fleet's (question.keep). A poll refused for the server's limits
// (limited) is tried again at the delays of follow's polls, within
// limitedWithin.
func (cl client) poll(ctx context.Context, topic, since string, keep func(message) bool, tags ...string) ([]message, error) {
	var ms []message
	var err error
	// Tried again, as a subscription is (forbidden).
	whileForbidden(ctx, func() bool {
		ms, err = cl.pollOnce(ctx, topic, since, keep, tags)
		return errors.As(err, new(forbidden))
	})
	for delay, waited := pollFirst, time.Duration(0); errors.As(err, new(limited)) && waited+delay <= limitedWithin; delay = nextDelay(delay) {
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(delay):
		}
		waited += delay
		ms, err = cl.pollOnce(ctx, topic, since, keep, tags)
	}
	return ms, err
}

// pollOnce makes one try of poll.
func (cl client) pollOnce(ctx context.Context, topic, since string, keep func(message) bool, tags []string) ([]message, error) {
	q := url.Values{"poll": {"1"}, "since": {since}}
	if len(tags) > 0 {
		q.Set("tags", strings.Join(tags, ","))
	}
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(pollIdle, func() { cancel(errIdle) })
	defer idle.Stop()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, cl.c.TopicURL(topic)+"/json?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.c.Token)
	req.Close = true // as a publish's (publishOnce)
	stalled := func(err error) error {
		if context.Cause(tctx) == errIdle && ctx.Err() == nil {
			return fmt.Errorf("reading the fleet's record on the ntfy server: it fell silent for %s", pollIdle)
		}
		return fmt.Errorf("reading the fleet's record on the ntfy server: %w", err)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, stalled(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return nil, limitedBy(resp, "reading the fleet's record on the ntfy server")
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("reading the fleet's record on the ntfy server: %s", serverSaid(resp))
		if resp.StatusCode == http.StatusForbidden {
			return nil, forbidden{err}
		}
		return nil, err
	}
	var out []message
	lines := bufio.NewReaderSize(resp.Body, 16<<10)
	for {
		line, _, size, rerr := readLine(lines, maxLine)
		if size > 0 {
			idle.Reset(pollIdle)
		}
		var m message
		if line != nil && json.Unmarshal(line, &m) == nil && m.Event == "message" && keep(m) {
			out = append(out, m)
		}
		if rerr == io.EOF {
			return out, nil
		}
		if rerr != nil {
			return nil, stalled(rerr)
		}
	}
}
