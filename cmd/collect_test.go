//go:build unix

package cmd

import (
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// In-process tests of issue 12: an answer no caller has received is
// collected by the next identical request, once, even past --remember, and
// never past --collect-within.

// seedUncollected stores req as answered with status endedAgo before the
// fixture's clock, by a holder whose caller had stopped waiting.
func (f *cliFixture) seedUncollected(req dialog.Request, status store.Status, endedAgo time.Duration) {
	f.t.Helper()
	f.seed(req, status, endedAgo)
	if _, err := f.a.store.Update(req.Identity(), func(rec *store.Record, _ bool) (bool, error) {
		rec.Uncollected, rec.CollectWithin = true, defaultCollectWithin
		return true, nil
	}); err != nil {
		f.t.Fatal(err)
	}
}

// eventsOf returns the names of the history events of identity id.
func (f *cliFixture) eventsOf(id string) []string {
	var names []string
	for _, e := range f.events() {
		if e.Identity == id {
			names = append(names, e.Event)
		}
	}
	return names
}

func TestCLICollectsAnswerPastRemember(t *testing.T) {
	wd := cliWorkDir(t)
	req := cliRequest("Ship v2?", wd, "")

	t.Run("with the defaults, 62 s after the click", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 62*time.Second)
		r := f.run("--json", "--message", "Ship v2?")
		f.expectCode(r, ExitApproved)
		if !r.res.Remembered || r.res.Key != req.Identity() {
			t.Fatalf("result %+v, want the remembered approval of %s", r.res, req.Identity())
		}
		if f.spawnCount() != 0 {
			t.Fatalf("a holder was started although the answer was waiting to be collected")
		}
		if f.record(req.Identity()).Uncollected {
			t.Fatalf("the answer is still uncollected after a caller received it")
		}
		var collected []store.Event
		for _, e := range f.events() {
			if e.Event == "collected" {
				collected = append(collected, e)
			}
		}
		if len(collected) != 1 || collected[0].Outcome != "approved" || collected[0].Reason != msgCollectedLate {
			t.Fatalf("history of the collection: %+v", f.events())
		}

		// Received once: past --remember, the same request asks again.
		r = f.run("--json", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(ExitApproved) {
			t.Fatalf("a collected approval older than --remember exited 0 again: %+v", r.res)
		}
		if f.spawnCount() != 1 {
			t.Fatalf("%d holders started after the collection, want 1", f.spawnCount())
		}
	})

	t.Run("with --remember 0", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, time.Second)
		f.expectCode(f.run("--remember", "0", "--message", "Ship v2?"), ExitApproved)
		if f.spawnCount() != 0 {
			t.Fatalf("a holder was started although the answer was waiting to be collected")
		}
		r := f.run("--remember", "0", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(ExitApproved) || f.spawnCount() != 1 {
			t.Fatalf("second call: exit %d with %d holders started; want a new dialog", r.code, f.spawnCount())
		}
	})

	t.Run("past the bound, a new dialog", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, defaultCollectWithin+time.Second)
		r := f.run("--json", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(ExitApproved) {
			t.Fatalf("an approval older than --collect-within exited 0: %+v", r.res)
		}
		if f.spawnCount() != 1 {
			t.Fatalf("%d holders started, want 1", f.spawnCount())
		}
	})

	t.Run("--collect-within sets the bound", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 3*time.Minute)
		r := f.run("--wait", "0", "--collect-within", "2m", "--message", "Ship v2?")
		if r.code == int(ExitApproved) || f.spawnCount() != 1 {
			t.Fatalf("exit %d with %d holders started; want a new dialog", r.code, f.spawnCount())
		}
		f = newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 3*time.Minute)
		f.expectCode(f.run("--collect-within", "4m", "--message", "Ship v2?"), ExitApproved)
	})

	for _, c := range []struct {
		status store.Status
		code   ExitCode
		word   string
	}{
		{store.Denied, ExitDenied, StatusDenied},
		{store.Expired, ExitExpired, StatusExpired},
		{store.Cancelled, ExitDenied, StatusCancelled},
		{store.Superseded, ExitSuperseded, StatusSuperseded},
	} {
		t.Run("an uncollected "+string(c.status), func(t *testing.T) {
			f := newCLIFixture(t)
			f.fixClock(cliNow)
			f.seedUncollected(req, c.status, 5*time.Minute)
			r := f.run("--json", "--message", "Ship v2?")
			f.expectCode(r, c.code)
			if r.res.Status != c.word || !r.res.Remembered || f.spawnCount() != 0 {
				t.Fatalf("result %+v with %d holders started, want the remembered %s", r.res, f.spawnCount(), c.word)
			}
		})
	}

	t.Run("a failure to render is not collected", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Failed, 5*time.Minute)
		r := f.run("--json", "--wait", "0", "--message", "Ship v2?")
		if r.res.Status == StatusFailed || f.spawnCount() != 1 {
			t.Fatalf("result %+v with %d holders started; want a new dialog", r.res, f.spawnCount())
		}
	})

	t.Run("only the identical request collects", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		keyed := cliRequest("Tag v1?", wd, "release")
		f.seedUncollected(keyed, store.Approved, 2*time.Minute)
		r := f.run("--json", "--wait", "0", "--key", "release", "--message", "Tag v2?")
		if r.code == int(ExitApproved) {
			t.Fatalf("another message under the same key collected the approval: %+v", r.res)
		}
		f = newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 2*time.Minute)
		if r := f.run("--json", "--wait", "0", "--title", "Other", "--message", "Ship v2?"); r.code == int(ExitApproved) {
			t.Fatalf("another title collected the approval: %+v", r.res)
		}
		if !f.record(req.Identity()).Uncollected {
			t.Fatalf("a different request marked the answer collected")
		}
	})
}

// A caller that was waiting when the person answered collects the answer:
// a retry after --remember shows a new dialog.
func TestCLIWaitingCallerCollects(t *testing.T) {
	f := newCLIFixture(t)
	var now atomic.Int64
	now.Store(cliNow.UnixNano())
	f.a.now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	answered := false
	f.a.startHolder = func(argv []string, _ platform.Lock) error {
		if !answered {
			// The holder shows the dialog and the person approves at once.
			answered = true
			_, wrote, err := f.a.finish(req.Identity(), req.ContentHash(), 0, store.Approved, "")
			if !wrote || err != nil {
				t.Errorf("recording the answer: wrote=%v %v", wrote, err)
			}
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.spawns = append(f.spawns, argv)
		return nil
	}
	r := f.run("--json", "--message", "Ship v2?")
	f.expectCode(r, ExitApproved)
	if r.res.Remembered {
		t.Fatalf("the waiting caller's answer reads as remembered: %+v", r.res)
	}
	if f.record(req.Identity()).Uncollected {
		t.Fatalf("the waiting caller received the answer but it is still uncollected")
	}
	if got := strings.Join(f.eventsOf(req.Identity()), " "); got != "requested answered collected" {
		t.Fatalf("history %q, want requested answered collected", got)
	}
	now.Add(int64(61 * time.Second))
	r = f.run("--json", "--wait", "0", "--message", "Ship v2?")
	if r.code == int(ExitApproved) || f.spawnCount() != 2 {
		t.Fatalf("retry after --remember: exit %d with %d holders started; want a new dialog", r.code, f.spawnCount())
	}
}

// The answer is handed out once: of two late callers that read it
// uncollected, only the first to record the collection gets it.
func TestDeliverLateAnswerOnce(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	f.seedUncollected(req, store.Approved, 2*time.Minute)
	seen := f.record(req.Identity())
	keep := reuse{remember: time.Minute, collectWithin: defaultCollectWithin}
	r, ok := f.a.deliver(seen, true, keep, true)
	if !ok || r.ExitCode != ExitApproved {
		t.Fatalf("first late caller: %+v ok=%v", r, ok)
	}
	if r, ok := f.a.deliver(seen, true, keep, true); ok {
		t.Fatalf("second late caller with the same sighting got %+v", r)
	}
	// A caller that was waiting on the request gets the answer however
	// the race for the collection went.
	if r, ok := f.a.deliver(seen, false, keep, true); !ok || r.ExitCode != ExitApproved {
		t.Fatalf("waiting caller: %+v ok=%v", r, ok)
	}
}

// A caller that went away (its context ended) does not collect: the next
// call still receives the answer.
func TestDeliverWithoutCallerLeavesAnswerUncollected(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	f.seedUncollected(req, store.Approved, time.Second)
	if _, ok := f.a.deliver(f.record(req.Identity()), false, reuse{}, false); !ok {
		t.Fatal("deliver refused a waiting caller's answer")
	}
	if !f.record(req.Identity()).Uncollected {
		t.Fatal("an answer nobody could receive was marked collected")
	}
}

// A late collection that cannot be recorded is an internal error, never
// an approval: it could otherwise be handed out twice.
func TestCLILateCollectionStoreFaultIsNotApproval(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	f.seedUncollected(req, store.Approved, 2*time.Minute)
	f.a.store = f.a.store.WithLockTimeout(100 * time.Millisecond)
	// A shared lock on the file, as a reader holds it: reads go on, the
	// write that records the collection cannot get its exclusive lock.
	db, err := os.Open(f.a.paths.DB)
	must(t, err)
	defer db.Close()
	must(t, unix.Flock(int(db.Fd()), unix.LOCK_SH))
	r := f.run("--json", "--message", "Ship v2?")
	f.expectCode(r, ExitInternal)
	must(t, unix.Flock(int(db.Fd()), unix.LOCK_UN))
	if !f.record(req.Identity()).Uncollected {
		t.Fatal("the answer reads as collected although the caller got an error")
	}
}

// status reports an uncollected answer as what the next call would get,
// without collecting it; list shows it uncollected; gc keeps it until its
// bound.
func TestOperatorsSeeUncollectedAnswers(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	f.seedUncollected(req, store.Approved, 5*time.Minute)
	id := req.Identity()

	r := f.runRaw("status", "--json", id)
	if r.code != int(ExitApproved) {
		t.Fatalf("status exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}
	var st struct {
		Result
		Uncollected bool `json:"uncollected"`
	}
	must(t, json.Unmarshal([]byte(r.stdout), &st))
	if st.Status != StatusApproved || !st.Uncollected || !st.Remembered {
		t.Fatalf("status %s", r.stdout)
	}
	if r := f.runRaw("status", id); !strings.Contains(r.stdout, msgUncollected) {
		t.Fatalf("status text does not say the answer is uncollected: %q", r.stdout)
	}
	if !f.record(id).Uncollected {
		t.Fatal("status collected the answer")
	}

	r = f.runRaw("list", "--json")
	var entries []entry
	must(t, json.Unmarshal([]byte(r.stdout), &entries))
	if len(entries) != 1 || !entries[0].Uncollected || !entries[0].CollectUntil.Equal(cliNow.Add(-5*time.Minute+defaultCollectWithin)) {
		t.Fatalf("list: %s", r.stdout)
	}
	if r := f.runRaw("list"); !strings.Contains(r.stdout, "approved (uncollected)") {
		t.Fatalf("list table does not show the answer uncollected:\n%s", r.stdout)
	}

	if r := f.runRaw("gc"); !strings.Contains(r.stdout, "removed 0 record(s)") {
		t.Fatalf("gc within the bound: %q", r.stdout)
	}
	f.fixClock(cliNow.Add(defaultCollectWithin))
	if r := f.runRaw("status", id); r.code != int(ExitPending) {
		t.Fatalf("status past the bound: exit %d %s", r.code, r.stdout)
	}
	if r := f.runRaw("gc"); !strings.Contains(r.stdout, "removed 1 record(s)") {
		t.Fatalf("gc past the bound: %q", r.stdout)
	}
}
