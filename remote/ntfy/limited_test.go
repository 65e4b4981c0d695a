package ntfy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/remote"
)

// A server that refuses every stream for its limits (429) still has its
// replies read: by polling, from the server's time when it refused, with
// the tap matched as a streamed one is, a message polled twice read once,
// and the request approved by its tap alone.
func TestStreamRefusedForTheLimitIsPolled(t *testing.T) {
	const refusedAt = 1_700_000_000
	var mu sync.Mutex
	var published message
	var sinces []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost:
			json.NewDecoder(r.Body).Decode(&published)
			fmt.Fprintf(w, `{"id":"req1","time":%d,"event":"message"}`+"\n", refusedAt)
		case r.URL.Query().Get("poll") != "1":
			w.Header().Set("Date", time.Unix(refusedAt, 0).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintln(w, `{"code":42903,"http":429,"error":"limit reached: too many active subscriptions"}`)
		default:
			sinces = append(sinces, r.URL.Query().Get("since"))
			// Another request's reply, every time; from the second poll
			// on, once the request is on the phone, a forged tap, then
			// its Cancel's and its Approve's.
			fmt.Fprintf(w, `{"id":"other","time":%d,"event":"message","message":"ask-confirm/2 req=0123456789abcdef cap=00"}`+"\n", refusedAt)
			if len(sinces) > 1 && len(published.Actions) == 2 {
				deny, approve := published.Actions[0].Body, published.Actions[1].Body
				forged := deny[:strings.Index(deny, "cap=")] + "cap=" + strings.Repeat("ab", capabilityBytes)
				for i, body := range []string{forged, deny, approve} {
					m, _ := json.Marshal(message{ID: fmt.Sprintf("tap%d", i), Time: refusedAt + 1, Event: "message", Message: body})
					fmt.Fprintf(w, "%s\n", m)
				}
			}
		}
	}))
	defer srv.Close()
	c := remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
	var ignored []string
	b := &Backend{Config: c, Ignored: func(reason string) { mu.Lock(); ignored = append(ignored, reason); mu.Unlock() }}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ans, err := b.Ask(ctx, confirmRequest("Anyone?"))
	if err != nil || ans.Approved {
		t.Fatalf("Ask: %+v %v, want the first tap's deny", ans, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sinces) < 2 || sinces[0] != fmt.Sprint(refusedAt) || sinces[1] != "other" {
		t.Fatalf("polled since %q, want the server's time when it refused first (%d), then the last message read", sinces, refusedAt)
	}
	want := []string{remote.ReplyForAnother, ignoredForged}
	if fmt.Sprint(ignored) != fmt.Sprint(want) {
		t.Fatalf("ignored %q, want %q: each message read once", ignored, want)
	}
}

// A spell of polling ends after its time, and the stream opened again
// resumes from the last message polled: every message is read once, in
// order, and none is lost between the two.
func TestFollowStreamsAgain(t *testing.T) {
	var mu sync.Mutex
	var streams []string
	polls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Query().Get("poll") == "1" {
			polls++
			first := polls == 1
			mu.Unlock()
			if first {
				fmt.Fprintln(w, `{"id":"p1","time":10,"event":"message","message":"polled"}`)
			}
			return
		}
		streams = append(streams, r.URL.Query().Get("since"))
		n := len(streams)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprintln(w, `{"id":"o","time":11,"event":"open"}`)
		fmt.Fprintln(w, `{"id":"s1","time":11,"event":"message","message":"streamed"}`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cl := client{c: remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker"}, http: srv.Client(), streamAgain: 10 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var read []string
	since, opened := "", 0
	for {
		last, err := cl.follow(ctx, "replies", since, nil, func(int64) { opened++ }, func(m message) bool {
			read = append(read, m.Message)
			return m.Message != "streamed"
		}, nil)
		if err == nil {
			break
		}
		if err != errStreamAgain {
			t.Fatalf("follow: %v", err)
		}
		since = last
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(read) != "[polled streamed]" || fmt.Sprint(streams) != "[ p1]" || opened != 2 {
		t.Fatalf("read %q; streams opened since %q; opened %d times: want [polled streamed], [ p1], 2", read, streams, opened)
	}
}

// A poll refused with 403 while the stream is refused for the limit is
// the subscription's refusal, as a stream's 403 is: tried again by the
// caller (forbiddenAgain), then the request fails rather than waits
// unread.
func TestFollowPollForbidden(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("poll") == "1" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	cl := client{c: remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker"}, http: srv.Client()}
	_, err := cl.follow(context.Background(), "replies", "", nil, nil, func(message) bool { return true }, nil)
	if !errors.Is(err, ErrRefused) || !errors.As(err, new(forbidden)) {
		t.Fatalf("follow: %v, want the refusal", err)
	}
}

// A read of the fleet's record refused for the server's limits is tried
// again after a pause, rather than read as a record that cannot be read
// (which asks anew, and settles a tap without its second's other taps).
func TestPollRefusedForTheLimitIsTriedAgain(t *testing.T) {
	var mu sync.Mutex
	tries := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tries++
		n := tries
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprintln(w, `{"id":"m1","time":1,"event":"message","topic":"replies","message":"x"}`)
	}))
	defer srv.Close()
	cl := client{c: remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker"}, http: srv.Client()}
	ms, err := cl.poll(context.Background(), "replies", "all", keepAll)
	if err != nil || len(ms) != 1 || tries != 2 {
		t.Fatalf("poll: %v %v after %d tries, want the message on the second", ms, err, tries)
	}
}
