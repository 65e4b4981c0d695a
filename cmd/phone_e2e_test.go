//go:build e2e && unix

package cmd_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/platform"
)

// These tests ask real requests on the phone: the real ntfy server on
// 127.0.0.1 with deny-all and its own accounts (internal/ntfytest), the
// phone as a client that performs a button's action exactly as the ntfy
// apps do, and ask-confirm's own holder, detached, as ever.

// phoneSetUp records s as h's phone, asked as mode says by default, and
// returns the phone.
func phoneSetUp(t *testing.T, h *e2e.Harness, s *ntfytest.Server, mode string) *ntfytest.Phone {
	t.Helper()
	return h.SetUpPhone(s, mode)
}

// headless makes h's callers run where no dialog can be shown: no display,
// and (started by the test) no terminal.
func headless(h *e2e.Harness) *e2e.Harness { return e2e.Headless(h) }

// eventsOf returns the history's events of one kind.
func eventsOf(h *e2e.Harness, kind string) []map[string]any {
	var got []map[string]any
	for _, e := range h.History() {
		if e["event"] == kind {
			got = append(got, e)
		}
	}
	return got
}

// expectFollowUp waits for the phone's n-th message and checks that it
// is a follow-up without buttons that starts with prefix.
func expectFollowUp(t *testing.T, phone *ntfytest.Phone, n int, prefix string) {
	t.Helper()
	phone.ExpectFollowUp(n, prefix)
}

// Where nobody can be asked here, a phone that is set up is asked instead
// of exiting 4: Approve, Cancel and the approve-for button each decide,
// the caller says the phone answered, the phone is told what was taken,
// and the history names the phone.
func TestPhoneAnswersWhereNobodyElseCan(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "fallback")
	// doctor says so too, rather than "nobody can be asked" and exit 4.
	if o, rep := e2e.DoctorJSON(h); o.Code != 0 || rep["can_ask"] != false || !strings.Contains(fmt.Sprint(rep["message"]), "the phone is asked instead") {
		t.Fatalf("doctor, headless with the phone set up: exit %d %v\n%s", o.Code, rep["message"], o.Stderr)
	}

	for i, tc := range []struct {
		name, tap string
		args      []string
		code      int
		status    string
	}{
		{"approve", "Approve", nil, 0, "approved"},
		{"deny", "Cancel", nil, 1, "denied"},
		{"approve-for", "Approve for 1h", []string{"--approve-for", "1h"}, 0, "approved"},
	} {
		args := append([]string{"--json", "--title", "Deploy", "--message", "Ship " + tc.name + "?", "--wait", "2m"}, tc.args...)
		r := h.Start(args...)
		m := phone.Await(2*i + 1)
		if m.Title != "Deploy" || !strings.HasPrefix(m.Message, "Ship "+tc.name+"?") || !strings.Contains(m.Message, "Asked by ") || m.Priority != 5 {
			t.Fatalf("%s: the phone shows %+v", tc.name, m)
		}
		if code := phone.Tap(m, tc.tap); code != http.StatusOK {
			t.Fatalf("%s: the tap got %d", tc.name, code)
		}
		o := r.Wait(90 * time.Second)
		h.Expect(o, tc.code, tc.status)
		if o.Res.AnsweredBy != "phone" || o.Res.Remembered {
			t.Fatalf("%s: answered by %q, remembered %v: %s", tc.name, o.Res.AnsweredBy, o.Res.Remembered, o.Stdout)
		}
		if tc.name == "approve-for" && o.Res.ApprovedUntil.IsZero() {
			t.Fatalf("approve-for: no approved_until in %s", o.Stdout)
		}
		follow := "Approved on the phone at "
		if tc.code != 0 {
			follow = "Denied on the phone at "
		}
		expectFollowUp(t, phone, 2*i+2, follow)
	}
	answered := eventsOf(h, "answered")
	if len(answered) != 3 {
		t.Fatalf("%d answered events", len(answered))
	}
	for _, e := range answered {
		if e["answered_by"] != "phone" || e["phone"] != "only" {
			t.Fatalf("an answer's event does not name the phone: %v", e)
		}
	}
	// The approval for an hour answers the same request again, with
	// nothing sent to the phone.
	o := h.Run("--json", "--title", "Deploy", "--message", "Ship approve-for?", "--approve-for", "1h", "--wait", "2m")
	h.Expect(o, 0, "approved")
	if !o.Res.Remembered {
		t.Fatalf("the approval for an hour was not remembered: %s", o.Stdout)
	}
	time.Sleep(500 * time.Millisecond)
	if n := phone.Count(); n != 6 {
		t.Fatalf("the phone received %d messages, want 6", n)
	}
}

// A caller that gives up waiting (exit 3) leaves the request on the
// phone; the tap that comes later is collected by the retry, once.
func TestPhoneAnswerCollectedAfterTheCallerGaveUp(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "fallback")
	args := []string{"--json", "--message", "Migrate the database?", "--wait", "1s"}
	h.Expect(h.Run(args...), 3, "pending")
	phone.Tap(phone.Await(1), "Approve")
	h.WaitAnswered()
	o := h.Run(args...)
	h.Expect(o, 0, "approved")
	if o.Res.AnsweredBy != "phone" {
		t.Fatalf("the retry: %s", o.Stdout)
	}
	if n := h.CountEvents("collected"); n != 1 {
		t.Fatalf("%d collected events, want 1", n)
	}
	if n := h.CountEvents("requested"); n != 1 {
		t.Fatalf("%d requests, want 1: the retry asked again", n)
	}
	expectFollowUp(t, phone, 2, "Approved on the phone at ")
}

// Replies that are not a tap on one of this request's buttons answer
// nothing and are recorded in the history: a tap replayed from an earlier
// request of the same question, and a flood of a thousand bogus replies,
// of which the history keeps twenty and a count. A second tap, or a tap
// after the request ended, changes nothing.
func TestPhoneHostileReplies(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "only")
	// Nothing is remembered: each run asks again.
	args := []string{"--json", "--key", "rotate", "--message", "Rotate the keys?", "--wait", "2m", "--remember", "0s", "--collect-within", "0s"}

	r := h.Start(args...)
	first := phone.Await(1)
	phone.Tap(first, "Cancel")
	h.Expect(r.Wait(90*time.Second), 1, "denied")
	expectFollowUp(t, phone, 2, "Denied on the phone at ")

	r = h.Start(args...)
	second := phone.Await(3)
	// The earlier request's Approve, replayed, and a thousand replies
	// that are no tap at all.
	phone.Tap(first, "Approve")
	// Forgeries that name this request, as whoever read its buttons'
	// request id could write them.
	req, _, _ := strings.Cut(strings.TrimPrefix(second.Actions[0].Body, "ask-confirm/2 "), " ")
	for i := range 1000 {
		s.Post(fmt.Sprintf("ask-confirm/2 %s cap=%032x", req, i))
	}
	Eventually(t, "the ignored replies to be recorded", func() bool { return len(eventsOf(h, "ignored")) >= 20 })
	select {
	case <-r.Done:
		t.Fatalf("a bogus reply ended the request: %s%s", r.Stdout.String(), r.Stderr.String())
	default:
	}
	phone.Tap(second, "Cancel")
	phone.Tap(second, "Approve") // after the deny: too late
	o := r.Wait(90 * time.Second)
	h.Expect(o, 1, "denied")
	// The holder counts what it ignored as it ends: once it has, the
	// history is whole.
	lock := filepath.Join(h.Dir, "state", "ask-confirm", "locks", o.Res.Key+".lock")
	Eventually(t, "the holder to end", func() bool { held, err := platform.LockHeld(lock); return err == nil && !held })
	if rec := h.OnlyRecord(); rec.Status != "denied" {
		t.Fatalf("after a tap on Approve that came second, the request is %s", rec.Status)
	}
	// The replayed tap is the earlier request's: counted apart, it uses
	// none of the twenty events that show the forgeries.
	ignored := eventsOf(h, "ignored")
	if len(ignored) != 22 || !strings.Contains(fmt.Sprint(ignored[0]["reason"]), "forged") ||
		!strings.Contains(fmt.Sprint(ignored[20]["reason"]), "980 more") ||
		!strings.Contains(fmt.Sprint(ignored[21]["reason"]), "replies for other requests, which share the reply topic: 1") {
		t.Fatalf("%d ignored events, the first %v, the last %v", len(ignored), ignored[0], ignored[len(ignored)-1])
	}

	// A request that expires tells the phone; a tap after it changes
	// nothing. Its timeout leaves the request, a fleet's (its claim
	// settles for 1.25 s), time to reach the phone on a loaded machine.
	r = h.Start(append(args, "--timeout", "8s")...)
	third := phone.Await(5)
	if len(third.Actions) == 0 {
		t.Fatalf("the phone's fifth message is %q, not the request", third.Message)
	}
	h.Expect(r.Wait(90*time.Second), 5, "expired")
	expectFollowUp(t, phone, 6, "This request expired at ")
	phone.Tap(third, "Approve")
	time.Sleep(time.Second)
	if rec := h.OnlyRecord(); rec.Status != "expired" {
		t.Fatalf("a tap after the expiry left the request %s", rec.Status)
	}
}

// Cancel and supersede close the request on the phone too, and say so.
func TestPhoneRequestClosedByCancelAndSupersede(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "fallback")
	r := h.Start("--json", "--key", "release", "--message", "Tag v2?", "--wait", "2m")
	phone.Await(1)
	if o := h.Run("cancel", "release"); o.Code != 0 {
		t.Fatalf("cancel: exit %d %s", o.Code, o.Stderr)
	}
	h.Expect(r.Wait(90*time.Second), 1, "cancelled")
	expectFollowUp(t, phone, 2, "This request was cancelled at ")

	r = h.Start("--json", "--key", "release", "--message", "Tag v3?", "--wait", "2m")
	phone.Await(3)
	newer := h.Start("--json", "--key", "release", "--message", "Tag v4?", "--wait", "2m")
	h.Expect(r.Wait(90*time.Second), 7, "superseded")
	// The older holder's follow-up and the newer one's request come in
	// no set order.
	phone.AwaitFirst(5, "This request was replaced by a newer one at ")
	phone.Tap(phone.AwaitFirst(5, "Tag v4?"), "Approve")
	h.Expect(newer.Wait(90*time.Second), 0, "approved")
}

// A choice of at most three options is offered as buttons; an input, or
// a choice beyond the buttons, is not sent to the phone and says so:
// where the call named the phone, as a usage error, and otherwise as a
// warning before --if-headless decides.
func TestPhoneChoices(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "fallback")
	r := h.Start("choose", "--message", "Where to?", "--option", "staging=the test cluster", "--option", "production", "--wait", "2m")
	m := phone.Await(1)
	var labels []string
	for _, a := range m.Actions {
		labels = append(labels, a.Label)
	}
	if strings.Join(labels, ",") != "staging,production,Cancel" || !strings.Contains(m.Message, "• staging — the test cluster") {
		t.Fatalf("the phone shows %q with buttons %q", m.Message, labels)
	}
	phone.Tap(m, "production")
	o := r.Wait(90 * time.Second)
	if o.Code != 0 || o.Stdout != "production\n" {
		t.Fatalf("choose answered on the phone: exit %d, stdout %q\n%s", o.Code, o.Stdout, o.Stderr)
	}
	expectFollowUp(t, phone, 2, `Chose "production" on the phone at `)

	for _, args := range [][]string{
		{"input", "--message", "Name?"},
		{"choose", "--message", "Which?", "--option", "a", "--option", "b", "--option", "c", "--option", "d"},
		{"choose", "--message", "Which?", "--option", "a", "--option", "b", "--multiple"},
	} {
		// By the recorded mode: a warning, and --if-headless decides.
		o := h.Run(args...)
		if o.Code != 4 || !strings.Contains(o.Stderr, "warning: the phone is not asked: not sent to the phone") {
			t.Fatalf("%q where only the phone could ask: exit %d %s", args, o.Code, o.Stderr)
		}
		// Named on the command line: a usage error.
		o = h.Run(append(args, "--remote", "fallback")...)
		if o.Code != 2 || !strings.Contains(o.Stderr, "not sent to the phone") {
			t.Fatalf("%q --remote fallback where only the phone can ask: exit %d %s", args, o.Code, o.Stderr)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want 2", n)
	}
}

// With the phone as the only way to ask, a server that is down fails the
// request clearly: never exit 0 and never a silent 4. Where a dialog can
// still ask, it asks, and the caller is warned about the phone.
func TestPhoneServerDown(t *testing.T) {
	t.Parallel() // scripted dialogs only
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	phoneSetUp(t, h, s, "also")
	s.Stop()

	o := h.Run("--json", "--message", "Anyone there?", "--remote", "only", "--retries", "0", "--wait", "1m")
	h.Expect(o, 6, "failed")
	if !strings.Contains(o.Res.Message, "phone") {
		t.Fatalf("the failure does not name the phone: %s", o.Stdout)
	}

	r := h.Start("--json", "--message", "Anyone here?", "--wait", "1m")
	h.WaitShown(1)
	e2e.Eventually(t, 30*time.Second, "the phone's failure to be noted", func() bool { return len(eventsOf(h, "way-failed")) == 1 })
	h.Answer("approve")
	o = r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if !strings.Contains(o.Stderr, "warning: the phone could not ask") || o.Res.AnsweredBy != "" {
		t.Fatalf("the dialog's approval with the phone down: %s%s", o.Stdout, o.Stderr)
	}
}

// With --remote also, the dialog and the phone ask at once: a tap on the
// phone closes the dialog, and an answer in the dialog tells the phone.
func TestPhoneAlsoBesideTheScriptedDialog(t *testing.T) {
	t.Parallel() // scripted dialogs only
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	phone := phoneSetUp(t, h, s, "off")

	r := h.Start("--json", "--message", "Restart the service?", "--remote", "also", "--wait", "1m")
	h.WaitShown(1)
	phone.Tap(phone.Await(1), "Approve")
	o := r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if o.Res.AnsweredBy != "phone" {
		t.Fatalf("answered by %q", o.Res.AnsweredBy)
	}
	e2e.Eventually(t, 30*time.Second, "the dialog to close", func() bool { return len(h.LiveDialogs()) == 0 })
	expectFollowUp(t, phone, 2, "Approved on the phone at ")

	r = h.Start("--json", "--message", "Restart the database?", "--remote", "also", "--wait", "1m")
	h.WaitShown(1)
	phone.Await(3)
	h.Answer("cancel")
	o = r.Wait(90 * time.Second)
	h.Expect(o, 1, "denied")
	if o.Res.AnsweredBy != "" {
		t.Fatalf("the dialog's answer is said to come from %q", o.Res.AnsweredBy)
	}
	expectFollowUp(t, phone, 4, "Already denied in the dialog at ")

	// Off by default: the phone is not asked.
	r = h.Start("--json", "--message", "Restart the cache?", "--wait", "1m")
	h.WaitShown(1)
	h.Answer("approve")
	h.Expect(r.Wait(90*time.Second), 0, "approved")
	if n := phone.Count(); n != 4 {
		t.Fatalf("the phone received %d messages, want 4", n)
	}
}

// Eventually is e2e.Eventually with the limit these tests wait for.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	e2e.Eventually(t, 60*time.Second, what, cond)
}

// With --remote also under a real X server, the real zenity dialog and the
// phone ask at once: a tap on the phone takes the window away, and a
// click in the window tells the phone.
func TestPhoneAlsoBesideTheRealDialog(t *testing.T) {
	h := e2e.NewRealHarness(t)
	s := ntfytest.New(t)
	phone := phoneSetUp(t, h, s, "also")

	title := h.Title("RD-phone")
	r := h.Start("--json", "--title", title, "--message", "Ship v2 to production?", "--wait", "2m")
	h.WaitWindow(title)
	m := phone.Await(1)
	if m.Title != title {
		t.Fatalf("the phone shows %+v", m)
	}
	phone.Tap(m, "Approve")
	o := r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if o.Res.AnsweredBy != "phone" {
		t.Fatalf("answered by %q", o.Res.AnsweredBy)
	}
	h.WaitNoWindow(title, 30*time.Second)
	expectFollowUp(t, phone, 2, "Approved on the phone at ")

	title = h.Title("RD-phone-click")
	r = h.Start("--json", "--title", title, "--message", "Ship v3 to production?", "--wait", "2m")
	phone.Await(3)
	h.Click(title, "approve")
	o = r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if o.Res.AnsweredBy != "" {
		t.Fatalf("the click is said to come from %q", o.Res.AnsweredBy)
	}
	expectFollowUp(t, phone, 4, "Already approved in the dialog at ")
}

// The phone's faults, with the phone as the only way, each end in exit 6
// within the caller's --wait (retries included), with the reason in the
// result and a failed event in the history: a publish the server refuses
// (the asking account lost its access: the reason and the access line
// that mends it), and a server that takes the publish and never answers.
func TestPhoneFaultsEndWithinTheWait(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phoneSetUp(t, h, s, "only")

	s.Access("asker", s.Topic, "deny")
	o := h.Run("--json", "--message", "Refused?", "--wait", "30s")
	h.Expect(o, 6, "failed")
	if !strings.Contains(o.Res.Message, "403 Forbidden") || !strings.Contains(o.Res.Message, "ntfy access ASKING-USER "+s.Topic+" wo") {
		t.Fatalf("the refused publish reads %q", o.Res.Message)
	}
	if o.Elapsed > 20*time.Second {
		t.Fatalf("the refused publish took %s", o.Elapsed)
	}
	if n := len(eventsOf(h, "failed")); n == 0 {
		t.Fatal("no failed event in the history")
	}
	// Nothing reached the phone: the request was never shown.
	if n := len(eventsOf(h, "shown")); n != 0 {
		t.Fatalf("a refused publish was recorded as shown %d times", n)
	}

	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, `{"id":"open1","time":%d,"event":"open","topic":"replies"}`+"\n", time.Now().Unix())
			w.(http.Flusher).Flush()
		}
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	defer func() { close(stall); srv.Close() }()
	settings := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	e2e.Must(t, os.WriteFile(settings, []byte(strings.ReplaceAll(string(b), s.URL, srv.URL)), 0o600))
	o = h.Run("--json", "--message", "Stalled?")
	h.Expect(o, 6, "failed")
	if !strings.Contains(o.Res.Message, "did not answer a publish within") {
		t.Fatalf("the stalled publish reads %q", o.Res.Message)
	}
}

// cancel --all with the ntfy server down closes the request at once: its
// holder records the end, then tries to tell the phone for a while, and
// that is no failure of the cancel (it took 5 s and exited 8, speaking of
// a --key nobody passed).
func TestPhoneCancelWithTheServerDown(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := headless(e2e.NewFakeHarness(t))
	phone := phoneSetUp(t, h, s, "only")
	r := h.Start("--json", "--message", "Cancel me?", "--wait", "2m")
	phone.Await(1)
	s.Stop()
	o := h.Run("cancel", "--all")
	if o.Code != 0 || !strings.Contains(o.Stdout, "cancelled") {
		t.Fatalf("cancel --all with the server down: exit %d after %s\n%s%s", o.Code, o.Elapsed, o.Stdout, o.Stderr)
	}
	h.Expect(r.Wait(90*time.Second), 1, "cancelled")
	// The follow-up that could not reach the phone is not lost unseen.
	Eventually(t, "the lost follow-up to be recorded", func() bool {
		for _, e := range eventsOf(h, "way-failed") {
			if strings.Contains(fmt.Sprint(e["reason"]), "This request was cancelled") {
				return true
			}
		}
		return false
	})
}
