//go:build unix

package cmd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	"golang.org/x/sys/unix"

	"github.com/ask-confirm/ask-confirm/dialog"
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
	if _, err := f.store.Update(req.Identity(), func(rec *store.Record, _ bool) (bool, error) {
		rec.Uncollected, rec.CollectWithin = true, lifecycle.DefaultCall().CollectWithin
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
		f.expectCode(r, lifecycle.ExitApproved)
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
		if len(collected) != 1 || collected[0].Outcome != "approved" || collected[0].Reason != "after its caller stopped waiting" {
			t.Fatalf("history of the collection: %+v", f.events())
		}

		// Received once: past --remember, the same request asks again.
		r = f.run("--json", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(lifecycle.ExitApproved) {
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
		f.expectCode(f.run("--remember", "0", "--message", "Ship v2?"), lifecycle.ExitApproved)
		if f.spawnCount() != 0 {
			t.Fatalf("a holder was started although the answer was waiting to be collected")
		}
		r := f.run("--remember", "0", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(lifecycle.ExitApproved) || f.spawnCount() != 1 {
			t.Fatalf("second call: exit %d with %d holders started; want a new dialog", r.code, f.spawnCount())
		}
	})

	t.Run("past the bound, a new dialog", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, lifecycle.DefaultCall().CollectWithin+time.Second)
		r := f.run("--json", "--wait", "0", "--message", "Ship v2?")
		if r.code == int(lifecycle.ExitApproved) {
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
		if r.code == int(lifecycle.ExitApproved) || f.spawnCount() != 1 {
			t.Fatalf("exit %d with %d holders started; want a new dialog", r.code, f.spawnCount())
		}
		f = newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 3*time.Minute)
		f.expectCode(f.run("--collect-within", "4m", "--message", "Ship v2?"), lifecycle.ExitApproved)
	})

	for _, c := range []struct {
		status store.Status
		code   lifecycle.ExitCode
		word   string
	}{
		{store.Denied, lifecycle.ExitDenied, lifecycle.StatusDenied},
		{store.Expired, lifecycle.ExitExpired, lifecycle.StatusExpired},
		{store.Cancelled, lifecycle.ExitDenied, lifecycle.StatusCancelled},
		{store.Superseded, lifecycle.ExitSuperseded, lifecycle.StatusSuperseded},
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
		if r.res.Status == lifecycle.StatusFailed || f.spawnCount() != 1 {
			t.Fatalf("result %+v with %d holders started; want a new dialog", r.res, f.spawnCount())
		}
	})

	t.Run("only the identical request collects", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		keyed := cliRequest("Tag v1?", wd, "release")
		f.seedUncollected(keyed, store.Approved, 2*time.Minute)
		r := f.run("--json", "--wait", "0", "--key", "release", "--message", "Tag v2?")
		if r.code == int(lifecycle.ExitApproved) {
			t.Fatalf("another message under the same key collected the approval: %+v", r.res)
		}
		f = newCLIFixture(t)
		f.fixClock(cliNow)
		f.seedUncollected(req, store.Approved, 2*time.Minute)
		if r := f.run("--json", "--wait", "0", "--title", "Other", "--message", "Ship v2?"); r.code == int(lifecycle.ExitApproved) {
			t.Fatalf("another title collected the approval: %+v", r.res)
		}
		if !f.record(req.Identity()).Uncollected {
			t.Fatalf("a different request marked the answer collected")
		}
	})
}

// A late collection that cannot be recorded is an internal error, never
// an approval: it could otherwise be handed out twice.
func TestCLILateCollectionStoreFaultIsNotApproval(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	f.seedUncollected(req, store.Approved, 2*time.Minute)
	f.storeLockTimeout = 100 * time.Millisecond
	f.rebuild()
	// A shared lock on the file, as a reader holds it: reads go on, the
	// write that records the collection cannot get its exclusive lock.
	db, err := os.Open(f.paths.DB)
	must(t, err)
	defer db.Close()
	must(t, unix.Flock(int(db.Fd()), unix.LOCK_SH))
	r := f.run("--json", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitInternal)
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
	if r.code != int(lifecycle.ExitApproved) {
		t.Fatalf("status exit %d, want 0:\n%s%s", r.code, r.stdout, r.stderr)
	}
	var st struct {
		lifecycle.Result
		Uncollected bool `json:"uncollected"`
	}
	must(t, json.Unmarshal([]byte(r.stdout), &st))
	if st.Status != lifecycle.StatusApproved || !st.Uncollected || !st.Remembered {
		t.Fatalf("status %s", r.stdout)
	}
	if r := f.runRaw("status", id); !strings.Contains(r.stdout, lifecycle.MsgUncollected) {
		t.Fatalf("status text does not say the answer is uncollected: %q", r.stdout)
	}
	if !f.record(id).Uncollected {
		t.Fatal("status collected the answer")
	}

	r = f.runRaw("list", "--json")
	var entries []lifecycle.Entry
	must(t, json.Unmarshal([]byte(r.stdout), &entries))
	if len(entries) != 1 || !entries[0].Uncollected || !entries[0].CollectUntil.Equal(cliNow.Add(-5*time.Minute+lifecycle.DefaultCall().CollectWithin)) {
		t.Fatalf("list: %s", r.stdout)
	}
	if r := f.runRaw("list"); !strings.Contains(r.stdout, "approved (uncollected)") {
		t.Fatalf("list table does not show the answer uncollected:\n%s", r.stdout)
	}

	if r := f.runRaw("gc"); !strings.Contains(r.stdout, "removed 0 record(s)") {
		t.Fatalf("gc within the bound: %q", r.stdout)
	}
	f.fixClock(cliNow.Add(lifecycle.DefaultCall().CollectWithin))
	if r := f.runRaw("status", id); r.code != int(lifecycle.ExitPending) {
		t.Fatalf("status past the bound: exit %d %s", r.code, r.stdout)
	}
	if r := f.runRaw("gc"); !strings.Contains(r.stdout, "removed 1 record(s)") {
		t.Fatalf("gc past the bound: %q", r.stdout)
	}
}
