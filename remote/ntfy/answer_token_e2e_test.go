//go:build e2e && unix

package ntfy

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// polled is what token reads on topic of s now: every message kept.
func polled(t *testing.T, s *ntfytest.Server, topic, token string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+topic+"/json?poll=1&since=all", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An answer token that cannot write the reply topic (unknown to the
// server, or an account without the access) is found by doctor's checks,
// which publish nothing, where the reads alone held: each tap would get
// 401 or 403. A request asked with it fails at once, with nothing on the
// phone, rather than waiting out its timeout while every tap is refused.
func TestAnswerTokenThatCannotWriteTheReplyTopic(t *testing.T) {
	s := ntfytest.New(t)
	for _, tc := range []struct {
		name, token, says string
	}{
		{"a token the server does not know", "tk_" + strings.Repeat("x", 29), "Unauthorized (401)"},
		{"an account without access to the reply topic", s.PhoneToken, "Forbidden (403)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := configOf(s)
			c.AnswerToken = tc.token
			found := verify(context.Background(), remote.VerifyArgs{Config: c}, nil)
			var probe *remote.Finding
			for i, f := range found {
				if strings.HasPrefix(f.What, "the answer token writes "+s.ReplyTopic) {
					probe = &found[i]
				}
			}
			if probe == nil || probe.OK || !strings.Contains(probe.Detail, tc.says) || !strings.Contains(probe.Detail, "every tap on the phone would be refused") {
				t.Fatalf("the answer token's check: %+v, want it failed with %s", probe, tc.says)
			}

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			ans, err := (&Backend{Config: c}).Ask(ctx, confirmRequest("Anyone?"))
			if err == nil || ans.Approved || !strings.Contains(err.Error(), "every tap on the phone would be refused") {
				t.Fatalf("Ask with the answer token refused: %+v, %v", ans, err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the refusal took %s", d)
			}
			if got := polled(t, s, s.Topic, s.PhoneToken); strings.Contains(got, `"event":"message"`) {
				t.Errorf("the phone got a message: %s", got)
			}
		})
	}

	// The right token holds, and the check published nothing.
	found := verify(context.Background(), remote.VerifyArgs{Config: configOf(s)}, nil)
	for _, f := range found {
		if !f.OK {
			t.Errorf("with the right answer token: %+v", f)
		}
	}
	if got := polled(t, s, s.ReplyTopic, s.AskerToken); strings.Contains(got, `"event":"message"`) {
		t.Errorf("doctor's checks published on %s: %s", s.ReplyTopic, got)
	}
}
