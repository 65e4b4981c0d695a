package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Only an approval reads as a yes to the model; every other status tells it
// not to go on, or to ask again.
func TestConfirmTextOnlyApprovalReadsAsYes(t *testing.T) {
	at := time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC)
	for _, status := range []string{
		lifecycle.StatusApproved, lifecycle.StatusDenied, lifecycle.StatusCancelled, lifecycle.StatusPending, lifecycle.StatusExpired,
		lifecycle.StatusSuperseded, lifecycle.StatusHeadless, lifecycle.StatusFailed, lifecycle.StatusError, "some future status",
	} {
		for _, remembered := range []bool{false, true} {
			text := confirmText(lifecycle.Result{Status: status, Remembered: remembered, AnsweredAt: at, Message: "the CLI's message"}, at)
			yes := strings.HasPrefix(text, "The person approved")
			switch {
			case status == lifecycle.StatusApproved && !yes:
				t.Errorf("%s (remembered %v): %q does not read as approval", status, remembered, text)
			case status != lifecycle.StatusApproved && yes:
				t.Errorf("%s (remembered %v): %q reads as approval", status, remembered, text)
			case status == lifecycle.StatusPending && !strings.Contains(text, "Call confirm again with the same arguments"):
				t.Errorf("pending: %q does not say how to collect the answer", text)
			case status != lifecycle.StatusApproved && status != lifecycle.StatusPending && !strings.Contains(strings.ToLower(text), "do not proceed"):
				t.Errorf("%s (remembered %v): %q does not say not to proceed", status, remembered, text)
			}
		}
	}
}

// A remembered answer given the day before says which day.
func TestConfirmTextNamesTheDayOfARememberedAnswer(t *testing.T) {
	at := time.Date(2026, 11, 22, 23, 59, 0, 0, time.Local)
	r := lifecycle.Result{Status: lifecycle.StatusApproved, Remembered: true, AnsweredAt: at}
	if got, want := confirmText(r, at.Add(time.Minute)), "The person approved (a remembered answer, given at 23:59:00 on Sun 22 Nov)."; got != want {
		t.Errorf("read after midnight: %q, want %q", got, want)
	}
	r.Answer = "staging"
	if got, want := askText(r, "choose", at.Add(time.Second)), "(A remembered answer, given at 23:59:00.)"; !strings.Contains(got, want) {
		t.Errorf("read the same day: %q, want it to hold %q", got, want)
	}
}
