package ntfy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
// 403s on the subscription are tried forbiddenAgain more times and the
// request goes on; one more in a row is the refusal, with no request put
// on the phone; a 401 is final at once.
func TestSubscriptionRefusedOnceIsTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      int
		refuse    int64
		wantTries int64
		wantSent  bool
	}{
		{"one 403", http.StatusForbidden, 1, 2, true},
		{"403 on all but the last try", http.StatusForbidden, forbiddenAgain, forbiddenAgain + 1, true},
		{"403 every time", http.StatusForbidden, 1 << 30, forbiddenAgain + 1, false},
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

// A poll of the fleet's record met by 403s is tried forbiddenAgain more
// times; one more is an error, which the caller reads as a record it
// cannot read.
func TestPollRefusedIsTriedAgain(t *testing.T) {
	for _, refuse := range []int64{1, forbiddenAgain, forbiddenAgain + 1} {
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
		passes := refuse <= forbiddenAgain
		switch {
		case passes && (err != nil || len(ms) != 1):
			t.Fatalf("%d 403s: %v %v", refuse, ms, err)
		case !passes && err == nil:
			t.Fatalf("%d 403s: %v, want an error", refuse, ms)
		case tries.Load() != min(refuse+1, forbiddenAgain+1):
			t.Fatalf("%d refused before: %d tries, want %d", refuse, tries.Load(), min(refuse+1, forbiddenAgain+1))
		}
	}
}

// A publish refused with 403 is tried forbiddenAgain more times, as ntfy
// refuses one of a burst now and then; one more is the refusal, with the
// mend; a 401 is final at once.
func TestPublishRefusedIsTriedAgain(t *testing.T) {
	for _, tc := range []struct {
		code        int
		refuse      int64
		wantTries   int64
		wantRefused bool
	}{
		{http.StatusForbidden, forbiddenAgain, forbiddenAgain + 1, false},
		{http.StatusForbidden, forbiddenAgain + 1, forbiddenAgain + 1, true},
		{http.StatusUnauthorized, 1, 1, true},
	} {
		var tries atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tries.Add(1) <= tc.refuse {
				w.WriteHeader(tc.code)
				return
			}
			fmt.Fprintln(w, `{"id":"m1","time":1,"event":"message","topic":"requests"}`)
		}))
		cl := client{c: remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker"}, http: srv.Client()}
		id, err := cl.publish(context.Background(), message{Topic: "requests", Message: "Ship it?"})
		srv.Close()
		switch {
		case tc.wantRefused && !errors.Is(err, ErrPublishRefused):
			t.Fatalf("%d %d times: %q, %v; want the refusal", tc.code, tc.refuse, id, err)
		case !tc.wantRefused && (err != nil || id != "m1"):
			t.Fatalf("%d %d times: %q, %v; want it published", tc.code, tc.refuse, id, err)
		case tries.Load() != tc.wantTries:
			t.Fatalf("%d %d times: %d tries, want %d", tc.code, tc.refuse, tries.Load(), tc.wantTries)
		}
	}
}

// A check of remote test that must succeed, met by a 403 now and then as
// ntfy refuses one of a burst, holds once a new try passes; refused every
// time, it fails with the access line; a check that must be refused takes
// the first 403 as its answer, tried once.
func TestVerifierTriesA403Again(t *testing.T) {
	for _, refuse := range []int64{forbiddenAgain, forbiddenAgain + 1} {
		var publishes, refusals atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Header.Get("Authorization") != "Bearer tk_asker":
				refusals.Add(1)
				w.WriteHeader(http.StatusForbidden)
			case publishes.Add(1) <= refuse:
				w.WriteHeader(http.StatusForbidden)
			default:
				fmt.Fprintln(w, `{"id":"m1","time":1,"event":"message","topic":"requests"}`)
			}
		}))
		c := remote.Config{Server: srv.URL, Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
		v := &verifier{ctx: context.Background(), hc: srv.Client(), c: c}
		v.checkPublish(c.People()[0])
		v.checkNoPublish(c.People()[0])
		srv.Close()
		holds := refuse <= forbiddenAgain
		switch {
		case len(v.out) != 3:
			t.Fatalf("%d 403s: findings %+v", refuse, v.out)
		case v.out[0].OK != holds:
			t.Fatalf("%d 403s: %+v, want OK %v", refuse, v.out[0], holds)
		case !holds && !strings.Contains(v.out[0].Mend, "ntfy access ASKER requests wo"):
			t.Fatalf("%d 403s: the mend is %q", refuse, v.out[0].Mend)
		case publishes.Load() != min(refuse+1, forbiddenAgain+1):
			t.Fatalf("%d 403s: %d publishes tried, want %d", refuse, publishes.Load(), min(refuse+1, forbiddenAgain+1))
		case !v.out[1].OK || !v.out[2].OK || refusals.Load() != 2:
			t.Fatalf("the checks that must be refused: %+v, %+v after %d tries, want both holding after 2", v.out[1], v.out[2], refusals.Load())
		}
	}
}
