//go:build e2e && unix

package ntfy

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// limitCounting counts the subscriptions and polls the server refused for
// its limits (429).
type limitCounting struct {
	streams, polls atomic.Int64
}

func (c *limitCounting) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet && resp.StatusCode == http.StatusTooManyRequests {
		if r.URL.Query().Get("poll") == "1" {
			c.polls.Add(1)
		} else {
			c.streams.Add(1)
		}
	}
	return resp, err
}

// More requests pending on one machine than the server lets one visitor
// hold subscriptions (visitor-subscription-limit 2, one of them the
// phone's, which shares the address here): none fails for the limit, and
// each gets its own tap, read by polling where the server refused the
// stream. Without a fleet the polls read the whole reply topic; with one,
// they are filtered by the question's tag and the taps verified by their
// MACs.
func TestPhoneMoreRequestsThanTheServersLimit(t *testing.T) {
	for _, fleet := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "fleet"}[fleet], func(t *testing.T) {
			s := ntfytest.NewWith(t, []string{"--visitor-subscription-limit", "2"})
			phone := ntfytest.NewPhone(t, s)
			c := configOf(s)
			if fleet {
				c = fleetConfig(t, s)
			}
			const n = 5
			refused := &limitCounting{}
			var asks [n]*asking
			for i := range n {
				b := &Backend{Config: c, HTTP: &http.Client{Transport: refused, CheckRedirect: noRedirect}}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				asks[i] = ask(ctx, b, confirmRequest(fmt.Sprintf("Request %d?", i)))
			}
			phone.Await(n)
			if refused.streams.Load() == 0 {
				t.Fatal("no subscription was refused: the test did not reach the server's limit")
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
			t.Logf("refused for the limit: %d subscriptions, %d polls", refused.streams.Load(), refused.polls.Load())
		})
	}
}

// requestOf is the message among the phone's first n whose text holds
// text.
func requestOf(t *testing.T, phone *ntfytest.Phone, n int, text string) ntfytest.Message {
	t.Helper()
	for i := 1; i <= n; i++ {
		if m := phone.Await(i); strings.Contains(m.Message, text) {
			return m
		}
	}
	t.Fatalf("none of the phone's %d messages says %q", n, text)
	return ntfytest.Message{}
}
