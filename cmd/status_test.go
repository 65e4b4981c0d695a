//go:build unix

package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// status says what running the request again gives, as a re-run does: a
// failed render, which is never reused, is not "remembered"; an answer
// past its --remember is not "pending" (whose dialog is open) but stale;
// and it names the --remember it judged by, since a re-run with another
// one may return what it says it would not.
func TestStatusAgreesWithARerun(t *testing.T) {
	for _, c := range []struct {
		name      string
		status    store.Status
		endedAgo  time.Duration
		remember  time.Duration
		code      lifecycle.ExitCode
		want      string // the JSON status
		says      []string
		never     string
		rerunCode lifecycle.ExitCode // a re-run with the default flags
	}{
		{"failed render", store.Failed, time.Second, time.Minute, lifecycle.ExitPending, lifecycle.StatusStale,
			[]string{"could not be shown", "never reused"}, "remembered answer", lifecycle.ExitPending},
		{"approval past --remember", store.Approved, 2 * time.Minute, time.Minute, lifecycle.ExitPending, lifecycle.StatusStale,
			[]string{"approved at", "--remember it was asked with (1m)"}, "", lifecycle.ExitPending},
		{"approval with --remember 0", store.Approved, time.Second, 0, lifecycle.ExitPending, lifecycle.StatusStale,
			[]string{"--remember it was asked with (0s)"}, "", lifecycle.ExitApproved},
		{"approval within --remember", store.Approved, time.Second, time.Minute, lifecycle.ExitApproved, lifecycle.StatusApproved,
			[]string{"remembered answer from", "kept for the --remember it was asked with: 1m"}, "", lifecycle.ExitApproved},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			f.fixClock(cliNow)
			req := cliRequest("Ship v2?", cliWorkDir(t), "")
			f.seed(req, c.status, c.endedAgo)
			_, err := f.store.Update(req.Identity(), func(rec *store.Record, _ bool) (bool, error) {
				rec.Remember, rec.Reason = c.remember, "the window never appeared"
				return true, nil
			})
			must(t, err)

			r := f.runRaw("status", "--json", req.Identity())
			f.expectCode(r, c.code)
			for _, s := range c.says {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("status --json says %s, want %q in it", r.stdout, s)
				}
			}
			if !strings.Contains(r.stdout, `"status":"`+c.want+`"`) || (c.code != lifecycle.ExitApproved && strings.Contains(r.stdout, `"remembered":true`)) {
				t.Errorf("status --json: %s, want status %s, not remembered unless returned", r.stdout, c.want)
			}
			if c.never != "" && strings.Contains(r.stdout, c.never) {
				t.Errorf("status --json says %q: %s", c.never, r.stdout)
			}
			if c.name == "approval with --remember 0" {
				// What status said depends on the --remember: a re-run
				// with the default one (1m) takes the approval.
				rr := f.run("--message", "Ship v2?", "--scope", cliWorkDir(t), "--wait", "0")
				f.expectCode(rr, c.rerunCode)
				return
			}
			rr := f.run("--message", "Ship v2?", "--scope", cliWorkDir(t), "--wait", "0", "--remember", "1m")
			f.expectCode(rr, c.rerunCode)
		})
	}
}
