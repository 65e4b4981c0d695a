//go:build unix

// Unix only: there the caller hands its lock to the holder, so once a fake
// start returns, the next look sees a dead holder at once.

package lifecycle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// testEngine is an Engine with a private store, a clock the test moves, a
// session that can ask, and a holder start the test scripts.
type testEngine struct {
	*Engine
	t     *testing.T
	clock atomic.Int64 // UnixNano
	// start runs in place of a holder; nil only counts the starts.
	start  func(argv []string) error
	mu     sync.Mutex
	starts int
}

var testNow = time.Date(2025, 11, 22, 13, 0, 0, 0, time.UTC)

func newTestEngine(t *testing.T) *testEngine {
	t.Helper()
	dir := t.TempDir()
	te := &testEngine{t: t}
	te.clock.Store(testNow.UnixNano())
	te.Engine = New(Config{
		Paths: store.Paths{
			DB:      filepath.Join(dir, "cache", "answers.db"),
			Locks:   filepath.Join(dir, "state", "locks"),
			History: filepath.Join(dir, "state", "history.jsonl"),
		},
		Now:     func() time.Time { return time.Unix(0, te.clock.Load()).UTC() },
		Backend: noBackend{t},
		Detect:  func() platform.Session { return platform.Session{CanAsk: true} },
		StartHolder: func(argv []string, lock platform.Lock) error {
			te.mu.Lock()
			te.starts++
			te.mu.Unlock()
			if te.start != nil {
				return te.start(argv)
			}
			return nil
		},
		Warn:       func(err error) { t.Logf("warning: %v", err) },
		RemoteFile: filepath.Join(dir, "config", "remote.json"),
	})
	return te
}

// noBackend fails the test if a dialog is shown in process: only a holder
// shows dialogs, and these tests start none.
type noBackend struct{ t *testing.T }

func (b noBackend) Ask(context.Context, dialog.Request) (dialog.Answer, error) {
	b.t.Errorf("a dialog was shown by the calling process")
	return dialog.Answer{}, errors.New("no backend in this test")
}

func (te *testEngine) advance(d time.Duration) { te.clock.Add(int64(d)) }

func (te *testEngine) startCount() int {
	te.mu.Lock()
	defer te.mu.Unlock()
	return te.starts
}

func (te *testEngine) ask(c Call) Result {
	te.t.Helper()
	r, err := te.Ask(context.Background(), c)
	if err != nil {
		te.t.Fatalf("Ask: %v", err)
	}
	return r
}

func (te *testEngine) record(id string) store.Record {
	te.t.Helper()
	rec, found, err := te.store.Get(id)
	if err != nil || !found {
		te.t.Fatalf("no record of %s (found=%v): %v", id, found, err)
	}
	return rec
}

func (te *testEngine) events(id string) []string {
	te.t.Helper()
	events, _, err := te.Events(0, id)
	if err != nil {
		te.t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Event)
	}
	return kinds
}

func testCall(message string) Call {
	c := DefaultCall()
	c.Request.Message, c.Request.Scope = message, "/repo"
	return c
}

// A caller that was waiting when the person answered collects the answer:
// a retry after Remember shows a new dialog.
func TestWaitingCallerCollects(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Ship v2?")
	id, content := c.Request.Identity(), c.Request.ContentHash()
	te.start = func([]string) error {
		if te.startCount() == 1 {
			// The holder shows the dialog and the person approves at once.
			if _, wrote, err := te.finish(id, content, 0, store.Approved, ""); !wrote || err != nil {
				t.Errorf("recording the answer: wrote=%v %v", wrote, err)
			}
		}
		return nil
	}
	r := te.ask(c)
	if r.ExitCode != ExitApproved || r.Remembered {
		t.Fatalf("waiting caller: %+v", r)
	}
	if te.record(id).Uncollected {
		t.Fatal("the waiting caller received the answer but it is still uncollected")
	}
	if got := strings.Join(te.events(id), " "); got != "requested answered collected" {
		t.Fatalf("history %q, want requested answered collected", got)
	}
	te.advance(c.Remember + time.Second)
	c.Wait = 0
	if r := te.ask(c); r.ExitCode == ExitApproved || te.startCount() != 2 {
		t.Fatalf("retry after Remember: %+v with %d starts; want a new dialog", r, te.startCount())
	}
}

// The answer is handed out once: of two late callers that read it
// uncollected, only the first to record the collection gets it.
func TestDeliverLateAnswerOnce(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Ship v2?")
	seen := te.seedAnswer(c, store.Approved, 2*time.Minute)
	keep := c.reuse()
	if r, ok := te.deliver(seen, true, keep, true); !ok || r.ExitCode != ExitApproved || !r.Remembered {
		t.Fatalf("first late caller: %+v ok=%v", r, ok)
	}
	if r, ok := te.deliver(seen, true, keep, true); ok {
		t.Fatalf("second late caller with the same sighting got %+v", r)
	}
	// A caller that was waiting on the request gets the answer however
	// the race for the collection went.
	if r, ok := te.deliver(seen, false, keep, true); !ok || r.ExitCode != ExitApproved {
		t.Fatalf("waiting caller: %+v ok=%v", r, ok)
	}
	if got := strings.Join(te.events(seen.Identity), " "); got != "collected" {
		t.Fatalf("history %q, want one collected", got)
	}
}

// A caller that went away (its context ended) does not collect: the next
// call still receives the answer.
func TestCallerGoneLeavesAnswerUncollected(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Ship v2?")
	seen := te.seedAnswer(c, store.Approved, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := te.Ask(ctx, c)
	if err != nil || r.ExitCode != ExitApproved {
		t.Fatalf("Ask with its caller gone: %+v %v", r, err)
	}
	if !te.record(seen.Identity).Uncollected {
		t.Fatal("an answer nobody could receive was marked collected")
	}
}

// seedAnswer stores c's request as ended with status endedAgo before the
// clock, uncollected, and returns the record.
func (te *testEngine) seedAnswer(c Call, status store.Status, endedAgo time.Duration) store.Record {
	te.t.Helper()
	now := te.now()
	rec, err := te.store.Update(c.Request.Identity(), func(rec *store.Record, _ bool) (bool, error) {
		*rec = store.Record{
			ContentHash: c.Request.ContentHash(), Title: c.Request.Title, Status: status, Attempt: 1,
			RequestedAt: now.Add(-endedAgo - time.Minute), EndedAt: now.Add(-endedAgo),
			Remember: c.Remember, CollectWithin: c.CollectWithin, Uncollected: true, Version: rec.Version,
		}
		return true, nil
	})
	if err != nil {
		te.t.Fatal(err)
	}
	return rec
}

// A request that never starts a holder leaves no lock file: nobody can be
// asked here, and asking 50 times creates nothing in the locks directory.
func TestHeadlessLeavesNoLockFile(t *testing.T) {
	te := newTestEngine(t)
	te.detect = func() platform.Session { return platform.Session{Reason: "no display"} }
	for range 50 {
		if r := te.ask(testCall("Anyone?")); r.ExitCode != ExitHeadless {
			t.Fatalf("headless ask: %+v", r)
		}
	}
	entries, err := os.ReadDir(te.paths.Locks)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%d lock files after 50 headless asks", len(entries))
	}
	if te.startCount() != 0 {
		t.Fatalf("%d holders started with nobody to ask", te.startCount())
	}
}

// The session is detected once per request, however many times the
// waiter has to start a holder, and never for a remembered answer.
func TestDetectOncePerRequest(t *testing.T) {
	te := newTestEngine(t)
	var detects atomic.Int32
	te.detect = func() platform.Session { detects.Add(1); return platform.Session{CanAsk: true} }
	c := testCall("Ship v2?")
	c.Wait = 10 * time.Second
	if r := te.ask(c); r.ExitCode != ExitFailed || te.startCount() != c.Retries+1 {
		t.Fatalf("holders that never run: %+v after %d starts", r, te.startCount())
	}
	if n := detects.Load(); n != 1 {
		t.Fatalf("the session was detected %d times for one request", n)
	}
	te.seedAnswer(c, store.Approved, time.Second)
	te.ask(c)
	if n := detects.Load(); n != 1 {
		t.Fatalf("a remembered answer detected the session")
	}
}

// fakeHolder stands in for a live holder of c's request: it holds the
// identity's lock, with an open record, until stop is called with the
// status the request ends with.
func (te *testEngine) fakeHolder(c Call) (stop func(store.Status)) {
	te.t.Helper()
	id, content := c.Request.Identity(), c.Request.ContentHash()
	if err := store.EnsureDir(te.paths.Locks); err != nil {
		te.t.Fatal(err)
	}
	lock, ok, err := platform.TryLock(te.paths.LockFile(id))
	if err != nil || !ok {
		te.t.Fatalf("taking the lock: %v %v", ok, err)
	}
	now := te.now()
	if _, err := te.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
		*rec = store.Record{ContentHash: content, Title: c.Request.Title, Status: store.Shown, Attempt: 1,
			RequestedAt: now, ShownAt: now, Deadline: now.Add(c.Timeout), Remember: c.Remember, Version: rec.Version}
		return true, nil
	}); err != nil {
		te.t.Fatal(err)
	}
	var once sync.Once
	stop = func(status store.Status) {
		once.Do(func() {
			if _, wrote, err := te.finish(id, content, 0, status, ""); !wrote || err != nil {
				te.t.Errorf("ending the request %s: wrote=%v %v", status, wrote, err)
			}
			lock.Release()
		})
	}
	te.t.Cleanup(func() { stop(store.Cancelled) })
	return stop
}

// A caller that joined an open dialog receives the person's answer as
// given now, not as a remembered one, and collects it.
func TestJoinedCallerGetsTheAnswer(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Ship v2?")
	c.Wait = 20 * time.Second
	stop := te.fakeHolder(c)
	// The engine's clock stands still: the caller waits until the answer.
	joined := make(chan struct{})
	c.Joined = func() { close(joined) }
	done := make(chan Result, 1)
	go func() {
		r, err := te.Ask(context.Background(), c)
		if err != nil {
			t.Errorf("Ask: %v", err)
		}
		done <- r
	}()
	select {
	case <-joined:
		// The caller follows the open request now: the answer is its own.
	case r := <-done:
		t.Fatalf("the caller returned %+v without joining the open dialog", r)
	}
	stop(store.Approved)
	r := <-done
	if r.ExitCode != ExitApproved || r.Remembered {
		t.Fatalf("joined caller: %+v, want a fresh approval", r)
	}
	if te.startCount() != 0 {
		t.Fatalf("%d holders started beside the open dialog", te.startCount())
	}
	if te.record(c.Request.Identity()).Uncollected {
		t.Fatal("the joined caller did not collect the answer")
	}
}

// A newer question under the same key closes the open dialog of the older
// one and is then asked itself: its own outcome, never "superseded".
func TestSupersedeThenAsk(t *testing.T) {
	te := newTestEngine(t)
	older := testCall("Tag v1?")
	older.Request.Key = "release"
	stop := te.fakeHolder(older)
	go closeOnRequest(te, older, stop)
	newer := testCall("Tag v2 instead?")
	newer.Request.Key, newer.Wait = "release", 0
	r := te.ask(newer)
	if r.ExitCode != ExitPending || te.startCount() != 1 {
		t.Fatalf("the newer request: %+v after %d starts, want pending after one", r, te.startCount())
	}
	if rec := te.record(newer.Request.Identity()); rec.ContentHash != newer.Request.ContentHash() || rec.Status != store.Requested {
		t.Fatalf("record after the supersede: %s of %s", rec.Status, rec.ContentHash)
	}
	if got := strings.Join(te.events(newer.Request.Identity()), " "); got != "superseded requested" {
		t.Fatalf("history %q", got)
	}
}

// The watch of a request's callers finds them gone at the second look
// that misses them, whether the first was the look at "shown" or a tick,
// and ticks no more once stopped: the holder stops it as it says they are
// gone, so that a later tick, while the dialog program ends on a busy
// machine, does not say it again.
func TestCallerWatchFindsThemGoneAndStops(t *testing.T) {
	w := watchCallers(true)
	defer w.stop()
	w.since = time.Now().Add(-2 * callerGrace) // past the wait for a first caller
	nobody := filepath.Join(t.TempDir(), "watch")
	w.look(nobody)
	if w.tick == nil {
		t.Fatal("the look at shown ended the watch")
	}
	if !w.gone(nobody) {
		t.Fatal("not gone after two looks that found no caller")
	}
	w.stop()
	if w.tick != nil {
		t.Fatal("the watch still ticks after it stopped")
	}
}

// A display with no dialog program is a dialog that cannot be shown (exit
// 6, with the session's hint to install one), not a machine where nobody
// can be asked (exit 4, run where a display is): and --if-headless, which
// decides for a machine without a display, does not answer it.
func TestDisplayWithoutDialogProgramFails(t *testing.T) {
	for _, ifHeadless := range []string{IfHeadlessFail, IfHeadlessDeny, IfHeadlessApprove} {
		te := newTestEngine(t)
		te.detect = func() platform.Session {
			return platform.Session{Kind: platform.KindX11, Display: "DISPLAY=:0",
				Reason: "no dialog program found on PATH", Hint: "install zenity and run again"}
		}
		c := testCall("Ship v2?")
		c.IfHeadless = ifHeadless
		r := te.ask(c)
		if r.ExitCode != ExitFailed || r.Status != StatusFailed || r.Headless {
			t.Errorf("--if-headless %s: %+v, want failed with exit 6", ifHeadless, r)
		}
		if r.Hint != "install zenity and run again" || !strings.Contains(r.Message, "no dialog program") {
			t.Errorf("--if-headless %s: message %q, hint %q, want the session's reason and hint", ifHeadless, r.Message, r.Hint)
		}
		if te.startCount() != 0 {
			t.Errorf("--if-headless %s: %d holders started", ifHeadless, te.startCount())
		}
		if got := strings.Join(te.events(c.Request.Identity()), " "); got != "failed" {
			t.Errorf("--if-headless %s: history %q, want failed", ifHeadless, got)
		}
	}
	if r := Headless(platform.Session{Kind: platform.KindX11, Reason: "no dialog program found on PATH"}); r.ExitCode != ExitFailed {
		t.Errorf("doctor's outcome for a display without a dialog program: %+v, want exit 6", r)
	}
}

// A caller whose request a newer one under the same key replaced reports
// its own request, superseded: its own requested_at, that it was shown,
// and when it ended, even when the store holds only the newer request by
// the time the caller looks. Before, it reported the newer request's
// requested_at, "rendered": false and no answered_at (3 runs in 5).
func TestSupersededCallerReportsItsOwnRequest(t *testing.T) {
	te := newTestEngine(t)
	older := testCall("one")
	older.Request.Key, older.Wait = "sup3", 20*time.Second
	newer := testCall("two")
	newer.Request.Key = "sup3"
	id := older.Request.Identity()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A live holder shows the older request.
	must(store.EnsureDir(te.paths.Locks))
	lock, ok, err := platform.TryLock(te.paths.LockFile(id))
	if err != nil || !ok {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	shownAt := te.now()
	_, err = te.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
		*rec = store.Record{ContentHash: older.Request.ContentHash(), Title: older.Request.Title, Status: store.Shown, Attempt: 1,
			RequestedAt: shownAt, ShownAt: shownAt, Deadline: shownAt.Add(older.Timeout), Remember: older.Remember, Version: rec.Version}
		return true, nil
	})
	must(err)
	joined := make(chan struct{})
	older.Joined = func() { close(joined) }
	done := make(chan Result, 1)
	go func() {
		r, err := te.Ask(context.Background(), older)
		if err != nil {
			t.Errorf("Ask: %v", err)
		}
		done <- r
	}()
	<-joined
	// 2.5 s later the newer request closes the older one, and is written
	// over it before the older caller looks again.
	te.advance(2500 * time.Millisecond)
	endedAt := te.now()
	_, wrote, err := te.finish(id, older.Request.ContentHash(), 0, store.Superseded, "")
	must(err)
	if !wrote {
		t.Fatal("the older request was not ended")
	}
	te.advance(10 * time.Millisecond)
	newerAt := te.now()
	_, err = te.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
		*rec = store.Record{ContentHash: newer.Request.ContentHash(), Title: newer.Request.Title, Status: store.Requested, Attempt: 1,
			RequestedAt: newerAt, Deadline: newerAt.Add(newer.Timeout), Remember: newer.Remember, Version: rec.Version}
		return true, nil
	})
	must(err)
	lock.Release()
	r := <-done
	if r.ExitCode != ExitSuperseded || r.Status != StatusSuperseded {
		t.Fatalf("older caller: %+v, want superseded", r)
	}
	if !r.RequestedAt.Equal(shownAt) || !r.Rendered || r.AnsweredAt.IsZero() || r.AnsweredAt.Before(endedAt) || r.AnsweredAt.After(newerAt) {
		t.Errorf("older caller: requested_at %v, rendered %v, answered_at %v; want its own request: asked at %v, shown, ended between %v and %v",
			r.RequestedAt, r.Rendered, r.AnsweredAt, shownAt, endedAt, newerAt)
	}
}

// A dialog program's error carries its stderr, newline and all: the
// reason it fails with is one line in the record, the result's message
// (and so the JSON and stderr), status's message, list's entry and the
// history. Before, the newline split the history's row and put status's
// "(remembered answer …)" on a line of its own.
func TestFailureReasonIsOneLine(t *testing.T) {
	te := newTestEngine(t)
	c := testCall("Ship v2?")
	id, content := c.Request.Identity(), c.Request.ContentHash()
	stderr := "exit status 1: \n(zenity:42): Gtk-WARNING **: cannot open display: :9\n\x1b[0m\n"
	te.start = func([]string) error {
		_, _, err := te.finish(id, content, 0, store.Failed, stderr)
		return err
	}
	c.Retries = 0
	r := te.ask(c)
	want := "exit status 1: (zenity:42): Gtk-WARNING **: cannot open display: :9"
	rec := te.record(id)
	status := te.statusOf(rec)
	entry := te.entryOf(rec)
	events, _, err := te.Events(0, id)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"result": r.Message, "record": rec.Reason, "status": status.Message, "list": entry.Reason}
	for _, ev := range events {
		if ev.Reason != "" {
			texts["history "+ev.Event] = ev.Reason
		}
	}
	history, err := os.ReadFile(te.paths.History)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(history), "\n"); n != len(events) {
		t.Errorf("the history has %d lines for %d events", n, len(events))
	}
	for where, text := range texts {
		if strings.ContainsAny(text, "\n\r\x1b") || !strings.Contains(text, want) {
			t.Errorf("%s: %q, want one line holding %q", where, text, want)
		}
	}
	if r.ExitCode != ExitFailed {
		t.Errorf("result %+v, want failed", r)
	}
}
