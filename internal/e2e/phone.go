//go:build e2e && unix

package e2e

import (
	"os"
	"path/filepath"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// RemoteSetup runs ask-confirm remote setup against s with the asking
// token and answerToken, both in files, and extra flags.
func (h *Harness) RemoteSetup(s *ntfytest.Server, answerToken string, extra ...string) Outcome {
	h.T.Helper()
	token, answer := filepath.Join(h.Dir, "asker.token"), filepath.Join(h.Dir, "answer.token")
	Must(h.T, os.WriteFile(token, []byte(s.AskerToken+"\n"), 0o600))
	Must(h.T, os.WriteFile(answer, []byte(answerToken+"\n"), 0o600))
	return h.Run(append([]string{"remote", "setup", "--server", s.URL, "--topic", s.Topic, "--reply-topic", s.ReplyTopic,
		"--token-file", token, "--answer-token-file", answer}, extra...)...)
}

// SetUpPhone records s as h's phone, asked as mode says by default, and
// returns the phone, subscribed after the setup's own checks.
func (h *Harness) SetUpPhone(s *ntfytest.Server, mode string) *ntfytest.Phone {
	h.T.Helper()
	if o := h.RemoteSetup(s, s.AnswerToken, "--mode", mode); o.Code != 0 {
		h.T.Fatalf("remote setup: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	return ntfytest.NewPhone(h.T, s)
}
