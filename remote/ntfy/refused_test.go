package ntfy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/remote"
)

// refusingServer answers the first refuse subscriptions with code, then
// opens them, and takes every publish; sent is closed at the first.
func refusingServer(t *testing.T, code int, refuse int64) (srv *httptest.Server, tries *atomic.Int64, sent chan struct{}) {
	tries = new(atomic.Int64)
	sent = make(chan struct{})
	var once atomic.Bool
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if tries.Add(1) <= refuse {
				w.WriteHeader(code)
				fmt.Fprintf(w, `{"code":%d,"http":%d,"error":"refused"}`, code*100+1, code)
				return
			}
			fmt.Fprintf(w, `{"id":"open1","time":%d,"event":"open","topic":"replies"}`+"\n", time.Now().Unix())
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if once.CompareAndSwap(false, true) {
			close(sent)
		}
		fmt.Fprintf(w, `{"id":"msg1","time":%d,"event":"message","topic":"requests"}`+"\n", time.Now().Unix())
	}))
	t.Cleanup(srv.Close)
	return srv, tries, sent
}

// ntfy answers 403 for a token without access, and also for a moment when
// its accounts' database is busy (its access check turns any database
// error into 403; three machines subscribing at once under load met it).
// One 403 on the subscription is tried once more and the request goes on;
// two in a row are the refusal, with no request put on the phone; a 401
// is final at once.
func TestSubscriptionRefusedOnceIsTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      int
		refuse    int64
		wantTries int64
		wantSent  bool
	}{
		{"one 403", http.StatusForbidden, 1, 2, true},
		{"403 every time", http.StatusForbidden, 1 << 30, 2, false},
		{"401", http.StatusUnauthorized, 1 << 30, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, tries, sent := refusingServer(t, tc.code, tc.refuse)
			c := remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := &Backend{Config: c, Retry: 10 * time.Millisecond}
			done := make(chan error, 1)
			go func() {
				ans, err := b.Ask(ctx, confirmRequest("Anyone?"))
				done <- errors.Join(err, approvedErr(ans.Approved))
			}()
			if tc.wantSent {
				select {
				case <-sent:
				case err := <-done:
					t.Fatalf("Ask returned before the request was sent: %v (%d subscriptions tried)", err, tries.Load())
				}
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Fatalf("Ask ended with %v, want the caller's end", err)
				}
			} else if err := <-done; !errors.Is(err, ErrRefused) {
				t.Fatalf("Ask ended with %v, want the refusal", err)
			}
			select {
			case <-sent:
				if !tc.wantSent {
					t.Fatal("a request was put on the phone though the replies cannot be read")
				}
			default:
			}
			if n := tries.Load(); n != tc.wantTries {
				t.Fatalf("%d subscriptions tried, want %d", n, tc.wantTries)
			}
		})
	}
}

// approvedErr is an error when an answer approves: no refused server may
// approve.
func approvedErr(approved bool) error {
	if approved {
		return errors.New("approved")
	}
	return nil
}

// A poll of the fleet's record met by one 403 is tried once more; two
// are an error, which the caller reads as a record it cannot read.
func TestPollRefusedOnceIsTriedAgain(t *testing.T) {
	for _, refuse := range []int64{1, 2} {
		var tries atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tries.Add(1) <= refuse {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			fmt.Fprintln(w, `{"id":"m1","time":1,"event":"message","topic":"replies","message":"x"}`)
		}))
		cl := client{c: remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker"}, http: srv.Client()}
		ms, err := cl.poll(context.Background(), "replies", "all", keepAll)
		srv.Close()
		switch {
		case refuse == 1 && (err != nil || len(ms) != 1):
			t.Fatalf("one 403: %v %v", ms, err)
		case refuse == 2 && err == nil:
			t.Fatalf("two 403s: %v, want an error", ms)
		case tries.Load() != 2:
			t.Fatalf("%d refused before: %d tries, want 2", refuse, tries.Load())
		}
	}
}
