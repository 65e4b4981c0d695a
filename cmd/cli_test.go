//go:build unix

// These tests run the command in process against a store in a temporary
// directory, with the holder start replaced by a recorder. They are built
// on Unix only: there the caller hands its lock to the holder, so once a
// fake start returns, the next look sees a dead holder at once; where locks
// cannot be handed over, a fresh request waits out a start-up grace for a
// holder these fakes never start.

package cmd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// cliFixture is one in-process ask-confirm with a private store.
type cliFixture struct {
	t      *testing.T
	a      *app
	dir    string
	paths  store.Paths
	store  *store.Store // the same store, as the test reads and seeds it
	stdout bytes.Buffer
	stderr bytes.Buffer

	// clock, session and startHolder are what the engine's Config calls,
	// so that a test can change them after the fixture is made.
	clock       func() time.Time
	session     func() platform.Session
	startHolder func(argv []string, lock platform.Lock) error

	// storeLockTimeout, if set before rebuild, bounds the engine's waits
	// for the store's lock.
	storeLockTimeout time.Duration

	mu       sync.Mutex
	spawns   [][]string
	startErr error
}

// cliRun is what one in-process invocation left behind.
type cliRun struct {
	code   int
	stdout string
	stderr string
	res    lifecycle.Result // decoded from stdout with --json
}

var cliNow = time.Date(2025, 11, 22, 13, 0, 0, 0, time.UTC)

// newCLIFixture returns an app whose session can ask a person (unless the
// test changes session) and whose holder start only records its calls.
func newCLIFixture(t *testing.T) *cliFixture {
	t.Helper()
	dir := t.TempDir()
	f := &cliFixture{t: t, dir: dir}
	f.paths = store.Paths{
		DB:      filepath.Join(dir, "cache", "ask-confirm", "answers.db"),
		Locks:   filepath.Join(dir, "state", "ask-confirm", "locks"),
		History: filepath.Join(dir, "state", "ask-confirm", "history.jsonl"),
	}
	f.clock = time.Now
	f.session = func() platform.Session { return platform.Session{CanAsk: true, Backend: "test"} }
	f.startHolder = func(argv []string, lock platform.Lock) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if lock == nil {
			t.Errorf("holder started without the identity lock")
		}
		f.spawns = append(f.spawns, append([]string(nil), argv...))
		return f.startErr
	}
	f.rebuild()
	return f
}

// rebuild makes the fixture's app again, after a test changed f.paths.
func (f *cliFixture) rebuild() {
	f.a = newApp(lifecycle.Config{
		Paths:            f.paths,
		StoreLockTimeout: f.storeLockTimeout,
		Now:              func() time.Time { return f.clock() },
		Backend:          cliNoBackend{f.t},
		Detect:           func() platform.Session { return f.session() },
		StartHolder:      func(argv []string, lock platform.Lock) error { return f.startHolder(argv, lock) },
		RemoteFile:       filepath.Join(filepath.Dir(filepath.Dir(f.paths.DB)), "config", "remote.json"),
	}, &f.stdout, &f.stderr)
	f.store = store.New(f.paths.DB)
}

// cliNoBackend fails the test if a dialog is ever shown in process: only a
// holder shows dialogs, and these tests start none.
type cliNoBackend struct{ t *testing.T }

func (b cliNoBackend) Ask(context.Context, dialog.Request) (dialog.Answer, error) {
	b.t.Errorf("a dialog was shown by the calling process")
	return dialog.Answer{}, errors.New("no backend in this test")
}

func (f *cliFixture) fixClock(now time.Time) { f.clock = func() time.Time { return now } }

func (f *cliFixture) headless(reason string) {
	f.session = func() platform.Session { return platform.Session{Reason: reason} }
}

func (f *cliFixture) spawnCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.spawns)
}

// runRaw runs ask-confirm with args in process, as Main does, and returns
// its exit code and output, failing the test if it does not end within 30 s.
func (f *cliFixture) runRaw(args ...string) cliRun {
	f.t.Helper()
	return f.runWith(args, f.a.execute)
}

func (f *cliFixture) runWith(args []string, run func([]string) int) cliRun {
	f.t.Helper()
	f.stdout.Reset()
	f.stderr.Reset()
	done := make(chan int, 1)
	go func() { done <- run(args) }()
	select {
	case code := <-done:
		return cliRun{code: code, stdout: f.stdout.String(), stderr: f.stderr.String()}
	case <-time.After(30 * time.Second):
		f.t.Fatalf("ask-confirm %q did not end within 30s", args)
		return cliRun{}
	}
}

// run is runRaw for the confirm command, checking what every outcome
// promises about stdout: with --json exactly one line holding one JSON
// object whose exit_code is the exit code, and without it nothing at all.
func (f *cliFixture) run(args ...string) cliRun {
	f.t.Helper()
	r := f.runRaw(args...)
	asJSON := false
	for _, a := range args {
		if a == "--json" || a == "--json=true" {
			asJSON = true
		}
	}
	if !asJSON {
		if r.stdout != "" {
			f.t.Errorf("ask-confirm %q printed on stdout without --json (exit %d):\n%s", args, r.code, r.stdout)
		}
		return r
	}
	if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
		f.t.Errorf("ask-confirm %q --json stdout is not exactly one line (exit %d):\n%q\nstderr: %s", args, r.code, r.stdout, r.stderr)
		return r
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r.res); err != nil {
		f.t.Errorf("ask-confirm %q --json stdout is not one result object: %v\n%s", args, err, r.stdout)
		return r
	}
	if int(r.res.ExitCode) != r.code {
		f.t.Errorf("ask-confirm %q: JSON says exit_code %d, process exits %d", args, r.res.ExitCode, r.code)
	}
	return r
}

// expectCode fails the test unless r exited with code.
func (f *cliFixture) expectCode(r cliRun, code lifecycle.ExitCode) {
	f.t.Helper()
	if r.code != int(code) {
		f.t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
}

// cliRequest is the request that runConfirm builds from --message, --scope
// and --key with every other flag at its default.
func cliRequest(message, scope, key string) dialog.Request {
	return dialog.Request{
		Title:       dialog.DefaultTitle,
		Message:     message,
		OKLabel:     "Approve",
		CancelLabel: "Cancel",
		Icon:        "question",
		Scope:       scope,
		Key:         key,
	}
}

// seed stores a record for req that ended with status endedAgo before the
// fixture's clock.
func (f *cliFixture) seed(req dialog.Request, status store.Status, endedAgo time.Duration) {
	f.t.Helper()
	payload, err := json.Marshal(req)
	if err != nil {
		f.t.Fatal(err)
	}
	now := f.clock()
	_, err = f.store.Update(req.Identity(), func(rec *store.Record, found bool) (bool, error) {
		*rec = store.Record{
			ContentHash: req.ContentHash(),
			Title:       req.Title,
			Request:     payload,
			MessageHash: fmt.Sprintf("%x", sha256.Sum256([]byte(req.Message))),
			Status:      status,
			Attempt:     1,
			RequestedAt: now.Add(-endedAgo - time.Minute),
			ShownAt:     now.Add(-endedAgo - 50*time.Second),
			EndedAt:     now.Add(-endedAgo),
			Deadline:    now.Add(-endedAgo + 4*time.Minute),
			Remember:    time.Minute,
			Version:     rec.Version,
			// HolderPID stays 0: a test must never make ask-confirm signal
			// a real process.
		}
		return true, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// events returns the audit history written so far.
func (f *cliFixture) events() []store.Event {
	f.t.Helper()
	b, err := os.ReadFile(f.paths.History)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var events []store.Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var e store.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			f.t.Fatalf("history line %q: %v", sc.Text(), err)
		}
		events = append(events, e)
	}
	return events
}

func (f *cliFixture) record(id string) store.Record {
	f.t.Helper()
	rec, found, err := f.store.Get(id)
	if err != nil || !found {
		f.t.Fatalf("no record for the request (found=%v): %v", found, err)
	}
	return rec
}

func cliWorkDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestCLIMissingMessage(t *testing.T) {
	f := newCLIFixture(t)
	r := f.run()
	f.expectCode(r, lifecycle.ExitUsage)
	if !strings.Contains(r.stderr, "ask-confirm: error: --message is required") {
		t.Errorf("stderr lacks the error:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "ask-confirm: hint: ") || !strings.Contains(r.stderr, "--help") {
		t.Errorf("stderr lacks a hint line pointing at --help:\n%s", r.stderr)
	}

	r = f.run("--json", "--title", "Deploy")
	f.expectCode(r, lifecycle.ExitUsage)
	if r.res.Status != lifecycle.StatusError || !strings.Contains(r.res.Message, "--message is required") {
		t.Errorf("--json result %+v, want status error about --message", r.res)
	}
	if n := f.spawnCount(); n != 0 {
		t.Errorf("a holder was started %d times without a message", n)
	}
}

func TestCLIRejectsBadInput(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		names string // what stderr must mention
	}{
		{"message that is not UTF-8", []string{"--message", "ship \xff?"}, "--message"},
		{"message with a NUL byte", []string{"--message", "ship\x00 it"}, "--message"},
		{"message with a terminal escape", []string{"--message", "ship \x1b[8mhidden"}, "--message"},
		{"title of 257 bytes", []string{"--message", "hi", "--title", strings.Repeat("t", dialog.MaxTitleBytes+1)}, "--title"},
		{"message of 64KiB and one byte", []string{"--message", strings.Repeat("m", dialog.MaxMessageBytes+1)}, "--message"},
		{"empty message", []string{"--message", " "}, "--message"},
		{"negative --wait", []string{"--message", "hi", "--wait", "-1s"}, "--wait"},
		{"zero --timeout", []string{"--message", "hi", "--timeout", "0"}, "--timeout"},
		{"--timeout over a day", []string{"--message", "hi", "--timeout", "25h"}, "--timeout"},
		{"negative --remember", []string{"--message", "hi", "--remember", "-1s"}, "--remember"},
		{"six --retries", []string{"--message", "hi", "--retries", "6"}, "--retries"},
		{"--if-headless maybe", []string{"--message", "hi", "--if-headless", "maybe"}, "--if-headless"},
		{"unknown --icon", []string{"--message", "hi", "--icon", "bogus"}, "--icon"},
		{"same label on both buttons", []string{"--message", "hi", "--ok-label", "OK", "--cancel-label", "OK"}, "--ok-label"},
		{"unparsable --wait", []string{"--message", "hi", "--wait", "soon"}, "--wait"},
		{"unknown flag", []string{"--message", "hi", "--bogus"}, "--bogus"},
		{"positional argument", []string{"--message", "hi", "extra"}, "extra"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			r := f.run(c.args...)
			f.expectCode(r, lifecycle.ExitUsage)
			if !strings.Contains(r.stderr, "ask-confirm: error: ") || !strings.Contains(r.stderr, c.names) {
				t.Errorf("stderr does not report an error naming %s:\n%s", c.names, r.stderr)
			}
			if !strings.Contains(r.stderr, "ask-confirm: hint: ") {
				t.Errorf("stderr has no hint line:\n%s", r.stderr)
			}

			r = f.run(append([]string{"--json"}, c.args...)...)
			f.expectCode(r, lifecycle.ExitUsage)
			if r.res.Status != lifecycle.StatusError {
				t.Errorf("--json status %q, want %q", r.res.Status, lifecycle.StatusError)
			}
			if n := f.spawnCount(); n != 0 {
				t.Errorf("a holder was started %d times for bad input", n)
			}
			if ev := f.events(); len(ev) != 0 {
				t.Errorf("bad input was recorded in the history: %+v", ev)
			}
		})
	}
}

func TestCLIAcceptsMessageStartingWithDash(t *testing.T) {
	for _, args := range [][]string{
		{"--message=-rf /"},
		{"--message", "-x"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			f := newCLIFixture(t)
			f.headless("no display in this test")
			r := f.run(args...)
			f.expectCode(r, lifecycle.ExitHeadless)
			if !strings.Contains(r.stderr, "nobody can be asked") {
				t.Errorf("stderr does not report the headless outcome:\n%s", r.stderr)
			}

			f = newCLIFixture(t)
			r = f.run(append(args, "--wait", "0")...)
			if r.code == int(lifecycle.ExitUsage) || r.code == int(lifecycle.ExitApproved) || f.spawnCount() != 1 {
				t.Errorf("exit %d after %d holder starts, want the dialog started once\nstderr: %s", r.code, f.spawnCount(), r.stderr)
			}
		})
	}
}

func TestCLIHeadless(t *testing.T) {
	const why = "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"

	t.Run("fails by default", func(t *testing.T) {
		f := newCLIFixture(t)
		f.headless(why)
		r := f.run("--message", "Ship v2?")
		f.expectCode(r, lifecycle.ExitHeadless)
		if !strings.Contains(r.stderr, "nobody can be asked: "+why) {
			t.Errorf("stderr lacks the reason:\n%s", r.stderr)
		}
		if !strings.Contains(r.stderr, "hint:") || !strings.Contains(r.stderr, "--if-headless") {
			t.Errorf("stderr lacks a hint naming --if-headless:\n%s", r.stderr)
		}
		r = f.run("--json", "--message", "Ship v2?")
		f.expectCode(r, lifecycle.ExitHeadless)
		if r.res.Status != lifecycle.StatusHeadless {
			t.Errorf("--json status %q, want %q", r.res.Status, lifecycle.StatusHeadless)
		}
		if f.spawnCount() != 0 {
			t.Errorf("a holder was started with nobody to ask")
		}
	})

	t.Run("deny", func(t *testing.T) {
		f := newCLIFixture(t)
		f.headless(why)
		r := f.run("--message", "Ship v2?", "--if-headless", "deny")
		f.expectCode(r, lifecycle.ExitDenied)
		if !strings.Contains(r.stderr, "denied without asking") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		r = f.run("--json", "--message", "Ship v2?", "--if-headless", "deny")
		f.expectCode(r, lifecycle.ExitDenied)
		if r.res.Status != lifecycle.StatusDenied {
			t.Errorf("--json status %q, want %q", r.res.Status, lifecycle.StatusDenied)
		}
	})

	t.Run("approve is logged", func(t *testing.T) {
		f := newCLIFixture(t)
		f.headless(why)
		r := f.run("--json", "--message", "Ship v2?", "--if-headless", "approve")
		f.expectCode(r, lifecycle.ExitApproved)
		if r.res.Status != lifecycle.StatusApproved || r.res.Remembered {
			t.Errorf("--json result %+v", r.res)
		}
		if !strings.Contains(r.stderr, "approved without asking") {
			t.Errorf("an approval without a person is not announced on stderr:\n%s", r.stderr)
		}
		var logged bool
		for _, e := range f.events() {
			if e.Event == "headless" && e.Outcome == "approved" && e.Identity == r.res.Key && e.Reason == why {
				logged = true
			}
		}
		if !logged {
			t.Errorf("history holds no headless approval for %s: %+v", r.res.Key, f.events())
		}
		if f.spawnCount() != 0 {
			t.Errorf("a holder was started with nobody to ask")
		}
	})

	t.Run("a phone named but not set up, with --if-headless deny", func(t *testing.T) {
		// --remote fallback (or also) where nobody is here and no phone is
		// set up leaves nobody to ask: --if-headless deny decides, as it
		// says, rather than exit 2; the JSON says why the phone was left
		// out. Without --if-headless, exit 2 says to set the phone up.
		f := newCLIFixture(t)
		f.headless(why)
		for _, mode := range []string{"fallback", "also"} {
			r := f.run("--json", "--message", "Ship v2?", "--remote", mode, "--if-headless", "deny")
			f.expectCode(r, lifecycle.ExitDenied)
			if !strings.Contains(r.res.Warning, "no phone is set up") || strings.Count(r.stderr, "no phone is set up") != 1 {
				t.Errorf("--remote %s: JSON warning %q, stderr %q; want the phone's absence said once in each", mode, r.res.Warning, r.stderr)
			}
			r = f.run("--json", "--message", "Ship v2?", "--remote", mode)
			f.expectCode(r, lifecycle.ExitUsage)
		}
	})

	t.Run("approve is refused when it cannot be logged", func(t *testing.T) {
		f := newCLIFixture(t)
		f.headless(why)
		blocker := filepath.Join(f.dir, "not-a-dir")
		if err := os.WriteFile(blocker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f.paths.History = filepath.Join(blocker, "history.jsonl")
		f.rebuild()
		r := f.run("--message", "Ship v2?", "--if-headless", "approve")
		f.expectCode(r, lifecycle.ExitInternal)
		r = f.run("--json", "--message", "Ship v2?", "--if-headless", "approve")
		f.expectCode(r, lifecycle.ExitInternal)
		if r.res.Status != lifecycle.StatusError {
			t.Errorf("--json status %q, want %q", r.res.Status, lifecycle.StatusError)
		}
	})
}

func TestCLIRemembered(t *testing.T) {
	wd := cliWorkDir(t)

	t.Run("fresh approval in this directory is reused", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		req := cliRequest("Ship v2?", wd, "")
		f.seed(req, store.Approved, 10*time.Second)
		r := f.run("--json", "--message", "Ship v2?")
		f.expectCode(r, lifecycle.ExitApproved)
		if !r.res.Remembered || r.res.Key != req.Identity() {
			t.Errorf("result %+v, want a remembered answer for %s", r.res, req.Identity())
		}
		if f.spawnCount() != 0 {
			t.Errorf("a holder was started although a fresh answer exists")
		}
		var reused bool
		for _, e := range f.events() {
			reused = reused || (e.Event == "reused" && e.Identity == req.Identity() && e.Outcome == "approved")
		}
		if !reused {
			t.Errorf("the reuse of an approval is not in the history: %+v", f.events())
		}
		r = f.run("--message", "Ship v2?")
		f.expectCode(r, lifecycle.ExitApproved)
		if !strings.Contains(r.stderr, "remembered answer") {
			t.Errorf("stderr does not say the answer was remembered:\n%s", r.stderr)
		}
	})

	t.Run("approval older than --remember shows a new dialog", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		req := cliRequest("Ship v2?", wd, "")
		f.seed(req, store.Approved, 2*time.Minute)
		r := f.run("--json", "--message", "Ship v2?", "--remember", "60s")
		if r.code == int(lifecycle.ExitApproved) {
			t.Fatalf("a stale approval exited 0: %+v", r.res)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.spawns) == 0 || !containsArg(f.spawns[0], req.Identity()) {
			t.Fatalf("no holder was started for %s: %q", req.Identity(), f.spawns)
		}
	})

	t.Run("a longer --remember reuses the same approval", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seed(cliRequest("Ship v2?", wd, ""), store.Approved, 2*time.Minute)
		r := f.run("--message", "Ship v2?", "--remember", "3m")
		f.expectCode(r, lifecycle.ExitApproved)
		if f.spawnCount() != 0 {
			t.Errorf("a holder was started although the answer is within --remember")
		}
	})

	t.Run("approval of another message under the same key is not reused", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seed(cliRequest("Tag v1?", "/repo", "release"), store.Approved, time.Second)
		r := f.run("--json", "--key", "release", "--scope", "/repo", "--message", "Tag v2?")
		if r.code == int(lifecycle.ExitApproved) {
			t.Fatalf("an approval of another message exited 0: %+v", r.res)
		}
		if f.spawnCount() == 0 {
			t.Errorf("no dialog was started for the new message")
		}
	})

	t.Run("approval in another directory is not reused", func(t *testing.T) {
		f := newCLIFixture(t)
		f.fixClock(cliNow)
		f.seed(cliRequest("Ship v2?", filepath.Join(wd, "elsewhere"), ""), store.Approved, time.Second)
		r := f.run("--json", "--message", "Ship v2?")
		if r.code == int(lifecycle.ExitApproved) {
			t.Fatalf("an approval from another scope exited 0: %+v", r.res)
		}
	})

	for _, c := range []struct {
		status store.Status
		code   lifecycle.ExitCode
		word   string
	}{
		{store.Denied, lifecycle.ExitDenied, lifecycle.StatusDenied},
		{store.Cancelled, lifecycle.ExitDenied, lifecycle.StatusCancelled},
		{store.Expired, lifecycle.ExitExpired, lifecycle.StatusExpired},
		{store.Superseded, lifecycle.ExitSuperseded, lifecycle.StatusSuperseded},
	} {
		t.Run("fresh "+string(c.status), func(t *testing.T) {
			f := newCLIFixture(t)
			f.fixClock(cliNow)
			f.seed(cliRequest("Ship v2?", "/repo", "k"), c.status, 10*time.Second)
			r := f.run("--json", "--key", "k", "--scope", "/repo", "--message", "Ship v2?")
			f.expectCode(r, c.code)
			if r.res.Status != c.word || !r.res.Remembered {
				t.Errorf("result %+v, want remembered %s", r.res, c.word)
			}
			if f.spawnCount() != 0 {
				t.Errorf("a holder was started although a fresh answer exists")
			}
		})
	}
}

func containsArg(argv []string, want string) bool {
	for _, a := range argv {
		if a == want {
			return true
		}
	}
	return false
}

func TestCLIHolderCannotStart(t *testing.T) {
	for _, retries := range []int{0, 2} {
		t.Run("retries="+strconv.Itoa(retries), func(t *testing.T) {
			f := newCLIFixture(t)
			f.startErr = errors.New("fork: resource temporarily unavailable")
			req := cliRequest("Ship v2?", "/repo", "")
			r := f.run("--json", "--scope", "/repo", "--message", "Ship v2?", "--retries", strconv.Itoa(retries))
			f.expectCode(r, lifecycle.ExitFailed)
			if r.res.Status != lifecycle.StatusFailed || !strings.Contains(r.res.Message, "fork: resource temporarily unavailable") {
				t.Errorf("result %+v, want failed with the start error", r.res)
			}
			if n := f.spawnCount(); n != retries+1 {
				t.Errorf("holder start tried %d times, want %d", n, retries+1)
			}
			if rec := f.record(req.Identity()); rec.Status != store.Failed {
				t.Errorf("record ends %q, want %q", rec.Status, store.Failed)
			}
		})
	}
}

// A start that reports success but leaves nobody holding the lock looks,
// on the next look, like a holder that died at once. That must end in a
// non-zero code after at most --retries+1 starts, never in an approval.
func TestCLIHolderThatNeverRuns(t *testing.T) {
	for _, wait := range []string{"0", "10s"} {
		for _, retries := range []int{0, 2, 5} {
			name := "wait=" + wait + " retries=" + strconv.Itoa(retries)
			t.Run(name, func(t *testing.T) {
				f := newCLIFixture(t)
				r := f.run("--json", "--scope", "/repo", "--message", "Ship v2?", "--wait", wait, "--retries", strconv.Itoa(retries))
				if r.code == int(lifecycle.ExitApproved) {
					t.Fatalf("exit 0 with no holder running: %+v", r.res)
				}
				if n := f.spawnCount(); n < 1 || n > retries+1 {
					t.Errorf("holder started %d times, want 1 to %d", n, retries+1)
				}
				if wait != "0" && r.code != int(lifecycle.ExitFailed) {
					t.Errorf("exit %d (%+v), want %d once every start died", r.code, r.res, lifecycle.ExitFailed)
				}
			})
		}
	}
}

// Every caller and waiter tests the identity's lock with a brief shared
// lock, so a new request's first start can lose the lock to one of them.
// A lost race is not a newer request replacing this one: the request is
// still made once the lock is free. CI once saw the newer of two keyed
// requests exit 7 this way, just after it had superseded the older one.
func TestCLILostLockRaceIsNotASupersede(t *testing.T) {
	f := newCLIFixture(t)
	f.seed(cliRequest("Tag v1?", "/repo", "release"), store.Superseded, time.Second)
	req := cliRequest("Tag v2 instead?", "/repo", "release")
	id := req.Identity()
	// The fake holder approves the request it was started for, as a click
	// would.
	recordStart := f.startHolder
	f.startHolder = func(argv []string, lock platform.Lock) error {
		if err := recordStart(argv, lock); err != nil {
			return err
		}
		_, err := f.store.Update(id, func(rec *store.Record, found bool) (bool, error) {
			rec.Status, rec.EndedAt = store.Approved, time.Now()
			return true, nil
		})
		return err
	}
	release := holdSharedLock(t, f.paths, id)
	// Let go while the call waits, so its start is retried.
	time.AfterFunc(200*time.Millisecond, release)
	r := f.run("--json", "--scope", "/repo", "--key", "release", "--message", "Tag v2 instead?", "--wait", "10s")
	release()
	f.expectCode(r, lifecycle.ExitApproved)
	if n := f.spawnCount(); n != 1 {
		t.Fatalf("holder started %d times, want 1", n)
	}
	if got := f.spawns[0][3]; got != req.ContentHash() {
		t.Fatalf("the holder was started for content %s, want this request's %s", got, req.ContentHash())
	}
}

// When the wait ends before a start that lost the lock race could be
// retried, the caller reports its request as not yet started (pending),
// never the outcome of the older request with the same key, even an
// approval.
func TestCLILostLockRaceAtTheDeadlineIsPending(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	f.seed(cliRequest("Tag v1?", "/repo", "release"), store.Approved, time.Second)
	req := cliRequest("Tag v2 instead?", "/repo", "release")
	release := holdSharedLock(t, f.paths, req.Identity())
	// Held for the whole call, however long a busy machine makes it.
	r := f.run("--json", "--scope", "/repo", "--key", "release", "--message", "Tag v2 instead?", "--wait", "0")
	release()
	f.expectCode(r, lifecycle.ExitPending)
	if !r.res.ShouldRetry || r.res.Rendered {
		t.Fatalf("result %+v, want a pending request to retry", r.res)
	}
	if n := f.spawnCount(); n != 0 {
		t.Fatalf("holder started %d times while the lock was held", n)
	}
}

// holdSharedLock takes identity id's lock shared, as a waiter testing it
// does, until the returned function, which may be called more than once,
// lets it go.
func holdSharedLock(t *testing.T, paths store.Paths, id string) (release func()) {
	t.Helper()
	if err := store.EnsureDir(paths.Locks); err != nil {
		t.Fatal(err)
	}
	l := flock.New(paths.LockFile(id))
	if ok, err := l.TryRLock(); err != nil || !ok {
		t.Fatalf("taking the lock shared: %v %v", ok, err)
	}
	var once sync.Once
	release = func() { once.Do(func() { l.Unlock() }) }
	t.Cleanup(release)
	return release
}

func TestCLIJSONIsOneLineForEveryOutcome(t *testing.T) {
	wd := cliWorkDir(t)
	cases := []struct {
		name  string
		setup func(f *cliFixture)
		args  []string
		code  lifecycle.ExitCode
	}{
		{"approved (remembered)", func(f *cliFixture) { f.seed(cliRequest("m", wd, ""), store.Approved, time.Second) }, nil, lifecycle.ExitApproved},
		{"denied (remembered)", func(f *cliFixture) { f.seed(cliRequest("m", wd, ""), store.Denied, time.Second) }, nil, lifecycle.ExitDenied},
		{"usage", nil, []string{"--wait", "-1s"}, lifecycle.ExitUsage},
		{"pending", nil, []string{"--wait", "0"}, lifecycle.ExitPending},
		{"headless", func(f *cliFixture) { f.headless("no display") }, nil, lifecycle.ExitHeadless},
		{"expired", func(f *cliFixture) { f.seed(cliRequest("m", wd, ""), store.Expired, time.Second) }, nil, lifecycle.ExitExpired},
		{"failed", func(f *cliFixture) { f.startErr = errors.New("no fork") }, []string{"--retries", "0"}, lifecycle.ExitFailed},
		{"superseded", func(f *cliFixture) { f.seed(cliRequest("m", wd, ""), store.Superseded, time.Second) }, nil, lifecycle.ExitSuperseded},
		{"internal", func(f *cliFixture) {
			blocker := filepath.Join(f.dir, "file")
			if err := os.WriteFile(blocker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			f.paths.Locks = filepath.Join(blocker, "locks")
			f.rebuild()
		}, nil, lifecycle.ExitInternal},
	}
	for _, c := range cases {
		for _, asJSON := range []bool{false, true} {
			name := c.name
			if asJSON {
				name += " --json"
			}
			t.Run(name, func(t *testing.T) {
				f := newCLIFixture(t)
				f.fixClock(cliNow)
				if c.setup != nil {
					c.setup(f)
				}
				args := append([]string{"--message", "m"}, c.args...)
				if asJSON {
					args = append(args, "--json")
				}
				// run checks stdout: one JSON line with --json, empty without.
				r := f.run(args...)
				f.expectCode(r, c.code)
				if !asJSON && strings.TrimSpace(r.stderr) == "" {
					t.Errorf("outcome %d explained nowhere: stderr is empty", c.code)
				}
			})
		}
	}
}

// version and --version say the same line, and ask nothing; --version
// beside a question is still only the version.
func TestCLIVersion(t *testing.T) {
	f := newCLIFixture(t)
	r := f.runRaw("version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "ask-confirm ") {
		t.Errorf("version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"--version"}, {"--version", "--title", "Deploy"}} {
		v := f.runRaw(args...)
		if v.code != 0 || v.stdout != r.stdout || v.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want version's %q", args, v.code, v.stdout, v.stderr, r.stdout)
		}
	}
	if n := f.spawnCount(); n != 0 {
		t.Errorf("--version started %d holders", n)
	}
}

func TestCLIHelp(t *testing.T) {
	f := newCLIFixture(t)
	r := f.runRaw("--help")
	if r.code != 0 {
		t.Errorf("--help exits %d, want 0; stderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		`--title string`, `(default "ask-confirm")`,
		`--message string`,
		`--ok-label string`, `(default "Approve")`,
		`--cancel-label string`, `(default "Cancel")`,
		`--icon string`, `(default "question")`,
		`--default-approve`,
		`--wait duration`, `(default 45s)`,
		`--timeout duration`, `(default 5m0s)`,
		`--remember duration`, `(default 1m0s)`,
		`--scope string`,
		`--key string`,
		`--retries int`, `(default 2)`,
		`--if-headless string`, `(default "fail")`,
		`--json`,
		"Exit codes:",
		"0  approved", "1  denied", "2  usage error", "3  pending", "4  nobody can be asked",
		"5  expired", "6  the dialog could not be shown", "7  superseded", "8  internal error",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help does not show %q", want)
		}
	}
	if strings.Contains(r.stdout, "\n  hold ") {
		t.Errorf("--help lists the internal hold command:\n%s", r.stdout)
	}
	if f.spawnCount() != 0 {
		t.Errorf("--help started a holder")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", r.stdout)
	}
}

func TestCLICompletion(t *testing.T) {
	f := newCLIFixture(t)
	r := f.runRaw("completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "ask-confirm") || !strings.Contains(r.stdout, "complete") {
		t.Errorf("completion bash: exit %d, stderr %q, stdout starts %.200q", r.code, r.stderr, r.stdout)
	}
}

// --remote also with no phone set up asks by dialog alone, and the
// caller's JSON says so in its warning field, as scripting.md promises
// (it was only a line of stderr), and stderr says it once.
func TestCLIPhoneLeftOutIsInTheJSON(t *testing.T) {
	f := newCLIFixture(t)
	r := f.run("--json", "--wait", "0", "--message", "Ship v2?", "--remote", "also")
	f.expectCode(r, lifecycle.ExitPending)
	if !strings.Contains(r.res.Warning, "no phone is set up") || strings.Count(r.stderr, "no phone is set up") != 1 {
		t.Errorf("JSON warning %q, stderr %q; want the phone's absence said once in each", r.res.Warning, r.stderr)
	}
	if f.spawnCount() != 1 {
		t.Errorf("%d dialogs, want the one asked without the phone", f.spawnCount())
	}
}

// choose and input point at their own help, and, where nobody can be
// asked, only at what they take: --if-headless approve, which they
// refuse, is no way out for them. (Their hints once named 'ask-confirm
// --help' and --if-headless approve.)
func TestCLIChooseAndInputHints(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
	}{
		{"choose", []string{"--option", "a", "--option", "b"}},
		{"input", nil},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			f := newCLIFixture(t)
			own := "hint: run 'ask-confirm " + c.cmd + " --help'"
			for _, bad := range [][]string{{"--wait", "25h", "--message", "m"}, {"--timeout", "0"}} {
				r := f.runRaw(append(append([]string{c.cmd}, c.args...), bad...)...)
				f.expectCode(r, lifecycle.ExitUsage)
				if !strings.Contains(r.stderr, own) {
					t.Errorf("%s %q: stderr %q, want %q", c.cmd, bad, r.stderr, own)
				}
			}
			f.headless("no display")
			r := f.runRaw(append([]string{c.cmd, "--message", "Which?"}, c.args...)...)
			f.expectCode(r, lifecycle.ExitHeadless)
			if !strings.Contains(r.stderr, "--if-headless deny") || strings.Contains(r.stderr, "approve") {
				t.Errorf("%s headless: stderr %q, want a hint naming --if-headless deny and not approve", c.cmd, r.stderr)
			}
		})
	}
	f := newCLIFixture(t)
	f.headless("no display")
	if r := f.runRaw("--message", "Ship?"); !strings.Contains(r.stderr, "--if-headless deny (or approve)") {
		t.Errorf("confirm headless: stderr %q, want approve offered", r.stderr)
	}
}

// --title "" shows the default title in the window, and so list, the
// history and the request's identity take the default title too: it is
// the same dialog as one asked without --title. (list and history once
// showed a blank title for it.)
func TestCLIEmptyTitleIsTheDefault(t *testing.T) {
	f := newCLIFixture(t)
	wd := cliWorkDir(t)
	r := f.run("--json", "--wait", "0", "--title", "", "--message", "Ship v2?")
	f.expectCode(r, lifecycle.ExitPending)
	if want := cliRequest("Ship v2?", wd, "").Identity(); r.res.Key != want {
		t.Errorf("key %s, want the default title's %s", r.res.Key, want)
	}
	rec, found, err := f.store.Get(r.res.Key)
	if err != nil || !found || rec.Title != dialog.DefaultTitle {
		t.Errorf("record title %q (%v %v), want %q", rec.Title, found, err, dialog.DefaultTitle)
	}
	for _, e := range f.events() {
		if e.Title != dialog.DefaultTitle {
			t.Errorf("history %s event has title %q, want %q", e.Event, e.Title, dialog.DefaultTitle)
		}
	}
	list := f.runRaw("list")
	if !strings.Contains(list.stdout, dialog.DefaultTitle) {
		t.Errorf("list does not show the title %q:\n%s", dialog.DefaultTitle, list.stdout)
	}
}
