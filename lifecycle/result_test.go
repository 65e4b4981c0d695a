package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/store"
)

// TestExitCodeValues pins the exit codes: they are a public API that
// scripts branch on, and must never be renumbered.
func TestExitCodeValues(t *testing.T) {
	documented := []struct {
		name string
		got  ExitCode
		want int
	}{
		{"approved", ExitApproved, 0},
		{"denied", ExitDenied, 1},
		{"usage", ExitUsage, 2},
		{"pending", ExitPending, 3},
		{"headless", ExitHeadless, 4},
		{"expired", ExitExpired, 5},
		{"failed", ExitFailed, 6},
		{"superseded", ExitSuperseded, 7},
		{"internal", ExitInternal, 8},
	}
	for _, d := range documented {
		if int(d.got) != d.want {
			t.Errorf("the %s exit code is %d, documented as %d", d.name, d.got, d.want)
		}
	}
}

func TestFromRecord(t *testing.T) {
	requested := time.Date(2025, 11, 22, 13, 0, 0, 0, time.UTC)
	ended := requested.Add(42 * time.Second)
	cases := []struct {
		status   store.Status
		word     string
		code     ExitCode
		message  string
		final    bool
		canRetry bool
	}{
		{store.Approved, StatusApproved, ExitApproved, "approved", true, false},
		{store.Denied, StatusDenied, ExitDenied, "denied", true, false},
		{store.Cancelled, StatusCancelled, ExitDenied, "cancelled", true, false},
		{store.Expired, StatusExpired, ExitExpired, "--timeout", true, false},
		{store.Superseded, StatusSuperseded, ExitSuperseded, "--key", true, false},
		{store.Failed, StatusFailed, ExitFailed, "zenity crashed", true, false},
		{store.Requested, StatusPending, ExitPending, "run the same command again", false, true},
		{store.Shown, StatusPending, ExitPending, "run the same command again", false, true},
		{"bogus", StatusError, ExitInternal, `"bogus"`, false, false},
		{"", StatusError, ExitInternal, "unknown status", false, false},
	}
	for _, c := range cases {
		for _, remembered := range []bool{false, true} {
			t.Run(fmt.Sprintf("%q remembered=%v", c.status, remembered), func(t *testing.T) {
				rec := store.Record{
					Identity:    "id-1",
					ContentHash: "content",
					Status:      c.status,
					Reason:      "zenity crashed",
					Attempt:     2,
					RequestedAt: requested,
					ShownAt:     requested.Add(time.Second),
					EndedAt:     ended,
				}
				r := fromRecord(rec, remembered, requested)
				if r.Status != c.word || r.ExitCode != c.code {
					t.Fatalf("status %q gives %q exit %d, want %q exit %d", c.status, r.Status, r.ExitCode, c.word, c.code)
				}
				if r.ExitCode == ExitApproved && c.status != store.Approved {
					t.Fatalf("status %q exits 0", c.status)
				}
				if !strings.Contains(r.Message, c.message) {
					t.Errorf("message %q lacks %q", r.Message, c.message)
				}
				if r.Key != "id-1" || r.Attempt != 2 || !r.Rendered || !r.RequestedAt.Equal(requested) {
					t.Errorf("result %+v does not carry the record's key, attempt, render and request time", r)
				}
				if r.ShouldRetry != c.canRetry {
					t.Errorf("should_retry = %v, want %v", r.ShouldRetry, c.canRetry)
				}
				if c.canRetry && r.RetryReason == "" {
					t.Errorf("a pending result gives no retry_reason")
				}
				raw, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				if c.final && !r.AnsweredAt.Equal(ended) {
					t.Errorf("answered_at = %v, want %v", r.AnsweredAt, ended)
				}
				if c.canRetry && strings.Contains(string(raw), "answered_at") {
					t.Errorf("a pending result reports answered_at: %s", raw)
				}
				suffix := "(remembered answer from " + ended.Local().Format(time.TimeOnly) + ")"
				switch {
				case remembered && c.code != ExitInternal:
					if !r.Remembered || !strings.HasSuffix(r.Message, suffix) {
						t.Errorf("remembered result: remembered=%v message %q, want the suffix %q", r.Remembered, r.Message, suffix)
					}
				case strings.Contains(r.Message, "remembered"):
					t.Errorf("message %q claims a remembered answer", r.Message)
				}
				if !remembered && r.Remembered {
					t.Errorf("a new answer is reported as remembered")
				}
			})
		}
	}
}

// A record that never rendered says so, so a caller can tell "nobody saw
// it" from "somebody saw it and did not answer".
func TestFromRecordNotRendered(t *testing.T) {
	r := fromRecord(store.Record{Status: store.Failed, Reason: "no window"}, false, time.Unix(1, 0))
	if r.Rendered {
		t.Errorf("a record with no shown time is reported as rendered")
	}
	if r.ExitCode != ExitFailed || !strings.Contains(r.Message, "no window") {
		t.Errorf("failed record gives exit %d and message %q", r.ExitCode, r.Message)
	}
}

// A remembered answer and an approval for a period say their times with
// the day when it is not the day the result is read: an approval for a
// week, given at 14:05, does not read as ending today at 14:05.
func TestFromRecordNamesTheDay(t *testing.T) {
	ended := time.Date(2026, 11, 22, 14, 5, 0, 0, time.Local)
	rec := store.Record{Identity: "id-1", Kind: dialog.Confirm, Status: store.Approved, RequestedAt: ended.Add(-time.Minute), EndedAt: ended, ApprovedFor: 7 * 24 * time.Hour}
	cases := []struct {
		name       string
		remembered bool
		now        time.Time
		want       string
	}{
		{"given now", false, ended.Add(time.Second), "approved for 168h, until 14:05:00 on Sun 29 Nov"},
		{"remembered the next morning", true, time.Date(2026, 11, 23, 9, 0, 0, 0, time.Local),
			"approved for 168h, until 14:05:00 on Sun 29 Nov (remembered answer from 14:05:00 on Sun 22 Nov)"},
		{"remembered the same day", true, ended.Add(time.Hour), "(remembered answer from 14:05:00)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := fromRecord(rec, c.remembered, c.now); !strings.HasSuffix(r.Message, c.want) || r.ExitCode != ExitApproved {
				t.Fatalf("message %q (exit %d), want it to end %q", r.Message, r.ExitCode, c.want)
			}
		})
	}
}

// A request asked on the phone alone speaks of the phone, never of a
// dialog that was never to be shown: pending, and failed.
func TestFromRecordPhoneOnly(t *testing.T) {
	for _, status := range []store.Status{store.Requested, store.Shown, store.Failed} {
		rec := store.Record{Identity: "id", Status: status, Phone: phoneOnly, Reason: fmt.Sprintf(msgPhoneCouldNot, "the ntfy server refused")}
		r := fromRecord(rec, false, time.Unix(1, 0))
		if strings.Contains(r.Message, "dialog") || strings.Contains(r.RetryReason, "dialog") || !strings.Contains(r.Message+r.RetryReason, "phone") {
			t.Errorf("%s on the phone alone: %q (%q)", status, r.Message, r.RetryReason)
		}
	}
}
