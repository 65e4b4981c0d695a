//go:build unix

package cmd

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/mdtable"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// stateRow is one row of docs/scripting.md's table of request states:
// the statuses, exit codes and sentences a surface may report a request
// in that state with.
type stateRow struct {
	statuses  []string
	codes     []int
	sentences []*regexp.Regexp
}

var (
	codeSpan = regexp.MustCompile("`([^`]*)`")
	number   = regexp.MustCompile(`\d+`)
)

// statesTable reads docs/scripting.md's table of request states: each
// sentence a pattern in which "…" stands for any text.
func statesTable(t *testing.T) map[string]stateRow {
	t.Helper()
	rows, err := mdtable.Rows("../docs/scripting.md", "### Request states")
	if err != nil || len(rows) == 0 {
		t.Fatalf("docs/scripting.md has no table of request states: %v", err)
	}
	table := map[string]stateRow{}
	for _, row := range rows {
		if len(row) != 5 {
			t.Fatalf("the states table's row %q has %d cells, want 5", row, len(row))
		}
		var r stateRow
		for _, m := range codeSpan.FindAllStringSubmatch(row[1], -1) {
			r.statuses = append(r.statuses, m[1])
		}
		for _, n := range number.FindAllString(row[2], -1) {
			code, _ := strconv.Atoi(n)
			r.codes = append(r.codes, code)
		}
		for _, m := range codeSpan.FindAllStringSubmatch(row[4], -1) {
			pattern := strings.ReplaceAll(regexp.QuoteMeta(m[1]), "…", ".*")
			r.sentences = append(r.sentences, regexp.MustCompile("^"+pattern+"$"))
		}
		table[mdtable.Code(row[0])] = r
	}
	return table
}

// statusCodes reads docs/scripting.md's table of --json statuses: the exit
// code of each.
func statusCodes(t *testing.T) map[string]int {
	t.Helper()
	rows, err := mdtable.Rows("../docs/scripting.md", "### JSON status values")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, row := range rows {
		if n, err := strconv.Atoi(row[1]); err == nil {
			codes[mdtable.Code(row[0])] = n
		}
	}
	return codes
}

// surface is what one output said of a request: its state, status, exit
// code and sentence.
type surface struct {
	name, state, status string
	code                int
	message             string
}

// stateCheck holds surfaces to the table, and notes which states it saw.
type stateCheck struct {
	table map[string]stateRow
	codes map[string]int
	mu    sync.Mutex
	seen  map[string]bool
}

func (c *stateCheck) expect(t *testing.T, s surface, state string) {
	t.Helper()
	c.mu.Lock()
	c.seen[state] = true
	c.mu.Unlock()
	row, ok := c.table[s.state]
	switch {
	case s.state != state:
		t.Errorf("%s says state %q (%s, exit %d: %q), want %q", s.name, s.state, s.status, s.code, s.message, state)
		return
	case !ok:
		t.Errorf("%s says state %q, which docs/scripting.md's table of states does not list", s.name, s.state)
		return
	}
	if !slices.Contains(row.statuses, s.status) {
		t.Errorf("%s: state %s with status %q; the table says %q", s.name, state, s.status, row.statuses)
	}
	if !slices.Contains(row.codes, s.code) {
		t.Errorf("%s: state %s exits %d; the table says %v", s.name, state, s.code, row.codes)
	}
	if len(row.codes) > 1 && c.codes[s.status] != s.code {
		t.Errorf("%s: status %s exits %d; the table of statuses says %d", s.name, s.status, s.code, c.codes[s.status])
	}
	if !slices.ContainsFunc(row.sentences, func(p *regexp.Regexp) bool { return p.MatchString(s.message) }) {
		t.Errorf("%s: state %s says %q, which is none of the table's sentences %v", s.name, state, s.message, row.sentences)
	}
}

// looks checks what status (--json and text), list --json and list's table
// say of the request id: the state.
func (c *stateCheck) looks(t *testing.T, f *cliFixture, id, state string) {
	t.Helper()
	r := f.runRaw("status", "--json", id)
	var st lifecycle.Result
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	c.expect(t, surface{"status --json", st.State, st.Status, r.code, st.Message}, state)
	if int(st.ExitCode) != r.code {
		t.Errorf("status --json says exit_code %d and exits %d", st.ExitCode, r.code)
	}
	text := f.runRaw("status", id)
	if text.code != r.code || !strings.Contains(text.stdout, st.Message) {
		t.Errorf("status: exit %d %q; status --json: exit %d %q", text.code, text.stdout, r.code, st.Message)
	}

	r = f.runRaw("list", "--json")
	var entries []lifecycle.Entry
	if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	i := slices.IndexFunc(entries, func(e lifecycle.Entry) bool { return e.Identity == id })
	if i < 0 {
		t.Fatalf("list --json has no %s: %s", id, r.stdout)
	}
	en := entries[i]
	c.expect(t, surface{"list --json", en.State, en.Outcome, int(en.ExitCode), en.Message}, state)
	if en.Message != st.Message || en.Until != st.Until || en.Window != st.Window {
		t.Errorf("list --json says %q (until %s by %q), status %q (until %s by %q)", en.Message, en.Until, en.Window, st.Message, st.Until, st.Window)
	}

	r = f.runRaw("list")
	for _, line := range strings.Split(r.stdout, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != dialog.ShortIdentity(id) {
			continue
		}
		if fields[1] != en.Channel || fields[2] != st.Status || (en.Note != "" && !strings.Contains(line, "("+en.Note+")")) {
			t.Errorf("list's row %q, want WAY %s and STATUS %s (%s)", line, en.Channel, st.Status, en.Note)
		}
		return
	}
	t.Errorf("list has no row for %s:\n%s", id, r.stdout)
}

// asks checks what a caller that runs args reports of its own request,
// with --json and on stderr (the same run in another fixture, made by
// setup), against the state.
func (c *stateCheck) asks(t *testing.T, setup func(t *testing.T) *cliFixture, args []string, state string) lifecycle.Result {
	t.Helper()
	f := setup(t)
	r := f.run(append([]string{"--json"}, args...)...)
	c.expect(t, surface{"the caller's --json", r.res.State, r.res.Status, r.code, r.res.Message}, state)
	plain := setup(t).run(args...)
	if plain.code != r.code || !strings.Contains(plain.stderr, r.res.Message) {
		t.Errorf("the caller's stderr: exit %d %q; with --json exit %d %q", plain.code, plain.stderr, r.code, r.res.Message)
	}
	return r.res
}

// seedOpen stores req as open (shown, or requested when phone is
// "only"), asked ago before the fixture's clock.
func (f *cliFixture) seedOpen(req dialog.Request, status store.Status, phone string, ago time.Duration) {
	f.t.Helper()
	f.seed(req, status, 0)
	now := f.clock()
	_, err := f.store.Update(req.Identity(), func(rec *store.Record, _ bool) (bool, error) {
		rec.EndedAt, rec.RequestedAt, rec.Deadline, rec.Phone = time.Time{}, now.Add(-ago), now.Add(-ago+5*time.Minute), phone
		if status == store.Requested {
			rec.ShownAt = time.Time{}
		}
		return true, nil
	})
	must(f.t, err)
}

// holdLock takes identity id's lock as a holder does, until the test ends.
func holdLock(t *testing.T, paths store.Paths, id string) {
	t.Helper()
	must(t, store.EnsureDir(paths.Locks))
	l := flock.New(paths.LockFile(id))
	if ok, err := l.TryLock(); err != nil || !ok {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	t.Cleanup(func() { l.Unlock() })
}

// holderEnds makes every holder f starts end its request at once as
// status says, with reason: a holder that answered, failed or (with
// status Shown) showed it and died.
func (f *cliFixture) holderEnds(status store.Status, reason string) {
	f.startHolder = func(argv []string, _ platform.Lock) error {
		f.mu.Lock()
		f.spawns = append(f.spawns, argv)
		f.mu.Unlock()
		_, err := f.store.Update(argv[2], func(rec *store.Record, found bool) (bool, error) {
			if !found || rec.ContentHash != argv[3] {
				return false, nil
			}
			now := f.clock()
			rec.Status, rec.Reason = status, reason
			if status != store.Failed {
				rec.ShownAt = now
			}
			if status.Final() {
				rec.EndedAt, rec.Uncollected = now, status.Answer()
			}
			return true, nil
		})
		return err
	}
}

// phoneOnly records a phone set up to be the only way of asking, on a
// server nobody reaches.
func (f *cliFixture) phoneOnly() {
	f.t.Helper()
	c := remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}
	path := filepath.Join(filepath.Dir(filepath.Dir(f.paths.DB)), "config", "remote.json")
	must(f.t, remote.Save(path, remote.Settings{Config: c, Mode: remote.ModeOnly}))
}

// Every surface that reports on a request says what docs/scripting.md's
// table of request states says of its state: the caller's --json and
// stderr line, status (--json and text), list --json and list's table, and
// a re-run. Each state of the table is reached, and no surface says a
// state the table does not list.
func TestEveryOutputSaysTheStateTable(t *testing.T) {
	c := &stateCheck{table: statesTable(t), codes: statusCodes(t), seen: map[string]bool{}}
	wd := cliWorkDir(t)
	req := cliRequest("Ship v2?", wd, "")
	id := req.Identity()
	ask := []string{"--message", "Ship v2?", "--wait", "0"}
	fixture := func(prepare func(f *cliFixture)) func(t *testing.T) *cliFixture {
		return func(t *testing.T) *cliFixture {
			f := newCLIFixture(t)
			f.fixClock(cliNow)
			if prepare != nil {
				prepare(f)
			}
			return f
		}
	}

	t.Run("open", func(t *testing.T) {
		open := fixture(func(f *cliFixture) {
			f.seedOpen(req, store.Shown, "", 10*time.Second)
			holdLock(f.t, f.paths, id)
		})
		c.looks(t, open(t), id, lifecycle.StateOpen)
		// A re-run joins it, and says it is still open.
		if r := c.asks(t, open, ask, lifecycle.StateOpen); r.Window != lifecycle.WindowTimeout || r.Until.IsZero() {
			t.Errorf("a pending result does not say when the dialog closes: %+v", r)
		}
	})

	t.Run("reaching", func(t *testing.T) {
		reaching := fixture(func(f *cliFixture) {
			f.seedOpen(req, store.Requested, "only", time.Minute)
			holdLock(f.t, f.paths, id)
		})
		c.looks(t, reaching(t), id, lifecycle.StateReaching)
		c.asks(t, reaching, ask, lifecycle.StateReaching)
	})

	t.Run("holder gone", func(t *testing.T) {
		gone := fixture(func(f *cliFixture) { f.seedOpen(req, store.Shown, "", 10*time.Second) })
		f := gone(t)
		c.looks(t, f, id, lifecycle.StateHolderGone)
		// What status said: running it again asks anew, at once.
		r := f.run(append([]string{"--json"}, ask...)...)
		c.expect(t, surface{"the re-run", r.res.State, r.res.Status, r.code, r.res.Message}, lifecycle.StateOpen)
		if f.spawnCount() != 1 || r.res.Attempt != 2 {
			t.Errorf("the re-run started %d holders, attempt %d; want its second attempt", f.spawnCount(), r.res.Attempt)
		}
		// A caller whose holder showed the request and died as its wait
		// ran out.
		c.asks(t, fixture(func(f *cliFixture) { f.holderEnds(store.Shown, "") }), ask, lifecycle.StateHolderGone)
	})

	t.Run("never reached", func(t *testing.T) {
		unreached := fixture(func(f *cliFixture) {
			f.phoneOnly()
			f.holderEnds(store.Failed, "the phone could not ask: the ntfy server could not be reached within 5s: connection refused")
		})
		r := c.asks(t, unreached, ask, lifecycle.StateNeverReached)
		if !strings.Contains(r.Message, "connection refused") {
			t.Errorf("never reached, but not why: %q", r.Message)
		}
		f := unreached(t)
		f.run(ask...)
		c.looks(t, f, id, lifecycle.StateNotReused)
		if r := f.runRaw("status", id); !strings.Contains(r.stdout, "never reached") {
			t.Errorf("status of a request never reached: %s", r.stdout)
		}
	})

	t.Run("failed", func(t *testing.T) {
		failed := fixture(func(f *cliFixture) {
			f.holderEnds(store.Failed, "the dialog program exited before its window could appear")
		})
		c.asks(t, failed, append(ask, "--retries", "0"), lifecycle.StateFailed)
		f := failed(t)
		f.run(append(ask, "--retries", "0")...)
		c.looks(t, f, id, lifecycle.StateNotReused)
	})

	t.Run("ended and kept", func(t *testing.T) {
		answered := fixture(func(f *cliFixture) { f.holderEnds(store.Approved, "") })
		c.asks(t, answered, ask, lifecycle.StateEnded)
		f := answered(t)
		f.run(ask...)
		c.looks(t, f, id, lifecycle.StateKept)
		r := f.run(append([]string{"--json"}, ask...)...)
		c.expect(t, surface{"the re-run", r.res.State, r.res.Status, r.code, r.res.Message}, lifecycle.StateKept)
		if r.res.Window != lifecycle.WindowRemember || !r.res.Until.Equal(cliNow.Add(time.Minute)) {
			t.Errorf("the re-run's answer is kept until %s by %q, want %s by --remember", r.res.Until, r.res.Window, cliNow.Add(time.Minute))
		}
	})

	t.Run("kept uncollected", func(t *testing.T) {
		kept := fixture(func(f *cliFixture) { f.seedUncollected(req, store.Approved, 5*time.Minute) })
		f := kept(t)
		c.looks(t, f, id, lifecycle.StateKept)
		if r := f.runRaw("status", "--json", id); !strings.Contains(r.stdout, `"window":"--collect-within"`) || !strings.Contains(r.stdout, "kept for the --collect-within it was asked with: 15m") {
			t.Errorf("status of an uncollected answer does not name --collect-within: %s", r.stdout)
		}
		c.asks(t, kept, ask, lifecycle.StateKept)
	})

	t.Run("lapsed", func(t *testing.T) {
		lapsed := fixture(func(f *cliFixture) {
			f.seedUncollected(req, store.Approved, 12*time.Second)
			_, err := f.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
				rec.Remember, rec.CollectWithin = 2*time.Second, 3*time.Second
				return true, nil
			})
			must(f.t, err)
		})
		f := lapsed(t)
		c.looks(t, f, id, lifecycle.StateLapsed)
		r := f.run(append([]string{"--json", "--remember", "2s", "--collect-within", "3s"}, ask...)...)
		c.expect(t, surface{"the re-run", r.res.State, r.res.Status, r.code, r.res.Message}, lifecycle.StateOpen)
		if f.spawnCount() != 1 {
			t.Errorf("the re-run of a lapsed answer started %d holders, want 1", f.spawnCount())
		}
	})

	t.Run("withdrawn", func(t *testing.T) {
		f := fixture(func(f *cliFixture) { f.seed(req, store.Withdrawn, time.Second) })(t)
		c.looks(t, f, id, lifecycle.StateNotReused)
	})

	for state := range c.table {
		if !c.seen[state] {
			t.Errorf("docs/scripting.md's table lists the state %q, which no surface was seen to say", state)
		}
	}
}

// An approval that no caller collected within the --collect-within it was
// asked with (--remember 2s --collect-within 3s, 12 s after the click):
// status, list and a re-run agree that it is no longer given, and name the
// window that lapsed, --collect-within, not --remember (issue 44, item 4:
// list said "approved (uncollected)", status named --remember).
func TestAnApprovalPastCollectWithinNamesIt(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	req := cliRequest("Ship v2?", cliWorkDir(t), "")
	id := req.Identity()
	f.seedUncollected(req, store.Approved, 12*time.Second)
	_, err := f.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
		rec.Remember, rec.CollectWithin = 2*time.Second, 3*time.Second
		return true, nil
	})
	must(t, err)

	r := f.runRaw("status", "--json", id)
	f.expectCode(r, lifecycle.ExitPending)
	var st lifecycle.Result
	must(t, json.Unmarshal([]byte(r.stdout), &st))
	if st.Status != lifecycle.StatusStale || st.Window != lifecycle.WindowCollectWithin || !st.Until.Equal(cliNow.Add(-9*time.Second)) ||
		!strings.Contains(st.Message, "older than the --collect-within it was asked with (3s)") || strings.Contains(st.Message, "--remember") {
		t.Errorf("status: %s", r.stdout)
	}
	r = f.runRaw("list")
	row := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, dialog.ShortIdentity(id)) {
			row = strings.Join(strings.Fields(l), " ")
		}
	}
	if !strings.Contains(row, " stale (--collect-within lapsed) ") || strings.Contains(row, "approved") || !strings.Contains(row, " 0s ") {
		t.Errorf("list's row: %q, want it stale, --collect-within lapsed, 0s left", row)
	}
	// As status said: a re-run asks anew.
	rr := f.run("--message", "Ship v2?", "--scope", cliWorkDir(t), "--wait", "0", "--remember", "2s", "--collect-within", "3s")
	f.expectCode(rr, lifecycle.ExitPending)
	if f.spawnCount() != 1 {
		t.Errorf("the re-run started %d holders, want a new dialog", f.spawnCount())
	}
}

// list names the way a request is asked, in its table and in --json
// alike: "dialog" for a dialog (JSON's channel was absent), "phone" for
// one asked on the phone alone (the table said "dialog"), "dialog+phone"
// for one asked on both (issue 44, item 5).
func TestListNamesThePhoneAsTheWay(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	f.setPeople("off", "alice")
	for _, way := range []string{"", "only", "also"} {
		args := []string{"--message", "Deploy " + way + "?", "--wait", "0"}
		if way != "" {
			args = append(args, "--remote", way)
		}
		f.expectCode(f.run(args...), lifecycle.ExitPending)
	}
	want := map[string]string{"Deploy ?": "dialog", "Deploy only?": "phone", "Deploy also?": "dialog+phone"}
	r := f.runRaw("list", "--json")
	var entries []lifecycle.Entry
	must(t, json.Unmarshal([]byte(r.stdout), &entries))
	table := f.runRaw("list").stdout
	if len(entries) != 3 {
		t.Fatalf("list --json: %s", r.stdout)
	}
	for _, en := range entries {
		rec := f.record(en.Identity)
		var q dialog.Request
		must(t, json.Unmarshal(rec.Request, &q))
		if en.Channel != want[q.Message] || !strings.Contains(r.stdout, `"channel":"`+want[q.Message]+`"`) {
			t.Errorf("list --json says %q is asked by %q, want %q", q.Message, en.Channel, want[q.Message])
		}
		if !strings.Contains(table, dialog.ShortIdentity(en.Identity)+"  "+want[q.Message]+" ") {
			t.Errorf("list's table does not show %q asked by %s:\n%s", q.Message, want[q.Message], table)
		}
	}
}
