//go:build unix

// In-process tests of ask-confirm hook with the fake-holder fixture of
// cli_test.go (Unix only, as that fixture is): the host's JSON on stdin,
// the decision on stdout, against a throwaway store.

package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/hook"
	"github.com/ask-confirm/ask-confirm/internal/hostreply"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// hookPayload reads a host's payload from the hook package's testdata.
func hookPayload(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "hook", "testdata", file))
	must(t, err)
	return b
}

// hookCases are the host and event pairs that take a decision, each with
// a payload of that shape.
var hookCases = []struct {
	host, file string
}{
	{"claude-code", "claude-code/permissionrequest-bash.json"},
	{"claude-code", "claude-code/pretooluse-bash.json"},
	{"codex", "codex/permissionrequest-bash.json"},
}

// runHook runs ask-confirm hook with args in process, as Main does, with
// stdin holding the host's input.
func (f *cliFixture) runHook(stdin []byte, args ...string) cliRun {
	f.t.Helper()
	file := filepath.Join(f.t.TempDir(), "stdin")
	must(f.t, os.WriteFile(file, stdin, 0o600))
	in, err := os.Open(file)
	must(f.t, err)
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	return f.runRaw(append([]string{"hook"}, args...)...)
}

// hookRequest is the request that ask-confirm hook makes of payload.
func hookRequest(t *testing.T, host string, payload []byte) dialog.Request {
	t.Helper()
	h, ok := hook.LookupHost(host)
	if !ok {
		t.Fatalf("no host %s", host)
	}
	p, err := hook.Parse(h, payload)
	must(t, err)
	home, _ := os.UserHomeDir()
	return p.Request(home)
}

// hookVerdict reads a hook's reply as its host does (hostreply.Verdict).
func hookVerdict(t *testing.T, r cliRun) (verdict, reason string) {
	t.Helper()
	return hostreply.Verdict(t, r.code, r.stdout, r.stderr)
}

// answeringHolder makes the fixture's holder start record status for the
// request it was started for, as a person's click would.
func (f *cliFixture) answeringHolder(status store.Status) {
	record := f.startHolder
	f.startHolder = func(argv []string, lock platform.Lock) error {
		if err := record(argv, lock); err != nil {
			return err
		}
		_, err := f.store.Update(argv[2], func(rec *store.Record, _ bool) (bool, error) {
			rec.Status, rec.EndedAt = status, time.Now()
			return true, nil
		})
		return err
	}
}

// liveHolder stands in for a holder showing req's dialog: it holds the
// identity's lock until something asks the request to close, then records
// the end asked for, as a real holder does. It returns a function that
// reports what it was asked to close with, once it has.
func (f *cliFixture) liveHolder(req dialog.Request) func() store.Status {
	f.t.Helper()
	id := req.Identity()
	must(f.t, store.EnsureDir(f.paths.Locks))
	lock, ok, err := platform.TryLock(f.paths.LockFile(id))
	if err != nil || !ok {
		f.t.Fatalf("taking the lock: %v %v", ok, err)
	}
	payload, err := json.Marshal(req)
	must(f.t, err)
	now := time.Now()
	_, err = f.store.Update(id, func(rec *store.Record, _ bool) (bool, error) {
		*rec = store.Record{ContentHash: req.ContentHash(), Title: req.Title, Request: payload, Status: store.Shown,
			Attempt: 1, RequestedAt: now, ShownAt: now, Deadline: now.Add(time.Hour), Remember: time.Minute, Version: rec.Version}
		return true, nil
	})
	must(f.t, err)
	var closed store.Status
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer lock.Release()
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			rec, _, err := f.store.Get(id)
			if err != nil || rec.CancelRequest == "" {
				continue
			}
			closed = rec.CancelRequest
			_, err = f.store.Update(id, func(r *store.Record, _ bool) (bool, error) {
				r.Status, r.EndedAt = closed, time.Now()
				return true, nil
			})
			if err != nil {
				f.t.Errorf("recording %s: %v", closed, err)
			}
			return
		}
	}()
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }); <-done }
	f.t.Cleanup(end)
	return func() store.Status {
		end()
		return closed
	}
}

func TestHookApproved(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			f.answeringHolder(store.Approved)
			payload := hookPayload(t, c.file)
			verdict, reason := hookVerdict(t, f.runHook(payload, c.host, "--wait", "10s"))
			if verdict != "allow" {
				t.Fatalf("%s %q, want allow", verdict, reason)
			}
			if strings.Contains(c.file, "pretooluse") && reason != "approved in the ask-confirm dialog" {
				t.Fatalf("reason %q", reason)
			}
			req := hookRequest(t, c.host, payload)
			if n := f.spawnCount(); n != 1 {
				t.Fatalf("%d holders started, want 1", n)
			}
			if rec := f.record(req.Identity()); rec.Status != store.Approved || rec.Title != req.Title {
				t.Fatalf("record %s %q, want approved %q", rec.Status, rec.Title, req.Title)
			}
			if got := f.eventsOf(req.Identity()); len(got) == 0 || got[0] != "requested" {
				t.Fatalf("history of the request: %v", got)
			}
		})
	}
}

func TestHookDenied(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			f.answeringHolder(store.Denied)
			verdict, reason := hookVerdict(t, f.runHook(hookPayload(t, c.file), c.host, "--wait", "10s"))
			if verdict != "deny" || reason != "denied in the ask-confirm dialog" {
				t.Fatalf("%s %q, want a denial the model can read", verdict, reason)
			}
		})
	}
}

// Nobody answers within --wait: the dialog is closed (the request ends
// withdrawn) and the question goes back to the host's prompt.
func TestHookHandsBackAndWithdraws(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			payload := hookPayload(t, c.file)
			req := hookRequest(t, c.host, payload)
			closed := f.liveHolder(req)
			start := time.Now()
			verdict, reason := hookVerdict(t, f.runHook(payload, c.host, "--wait", "300ms"))
			if verdict != "back" || reason != "ask-confirm: nobody answered the dialog within 300ms; it was closed" {
				t.Fatalf("%s %q, want a hand-back saying the dialog was closed", verdict, reason)
			}
			// A hook that waited for the dialog would wait its --timeout (5 min).
			if took := time.Since(start); took > time.Minute {
				t.Fatalf("the hand-back took %s with --wait 300ms", took)
			}
			if got := closed(); got != store.Withdrawn {
				t.Fatalf("the open dialog was asked to close as %q, want withdrawn", got)
			}
			if rec := f.record(req.Identity()); rec.Status != store.Withdrawn {
				t.Fatalf("record %s, want withdrawn", rec.Status)
			}
			if f.spawnCount() != 0 {
				t.Fatalf("a holder was started beside the open dialog")
			}

			// The same call proposed again asks anew: a withdrawal is no
			// answer.
			f.answeringHolder(store.Approved)
			if verdict, _ := hookVerdict(t, f.runHook(payload, c.host, "--wait", "10s")); verdict != "allow" || f.spawnCount() != 1 {
				t.Fatalf("after the withdrawal: %s with %d holders started; want a new dialog", verdict, f.spawnCount())
			}
		})
	}
}

// The same call proposed again gets the answer without a new dialog: the
// one remembered within --remember, and one given after the hook stopped
// waiting (its host killed it), once.
func TestHookSameCallCollectsTheAnswer(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			f.answeringHolder(store.Approved)
			payload := hookPayload(t, c.file)
			if verdict, _ := hookVerdict(t, f.runHook(payload, c.host)); verdict != "allow" {
				t.Fatalf("first call: %s", verdict)
			}
			verdict, reason := hookVerdict(t, f.runHook(payload, c.host))
			if verdict != "allow" || f.spawnCount() != 1 {
				t.Fatalf("the same call again: %s %q with %d holders started; want the remembered allow", verdict, reason, f.spawnCount())
			}

			f = newCLIFixture(t)
			req := hookRequest(t, c.host, payload)
			f.seedUncollected(req, store.Approved, 5*time.Minute)
			verdict, reason = hookVerdict(t, f.runHook(payload, c.host))
			if verdict != "allow" || f.spawnCount() != 0 {
				t.Fatalf("a late answer: %s %q with %d holders started; want it collected", verdict, reason, f.spawnCount())
			}
			if strings.Contains(c.file, "pretooluse") && !strings.HasPrefix(reason, "approved in the ask-confirm dialog at ") {
				t.Fatalf("reason %q does not say when it was approved", reason)
			}
			var collected bool
			for _, e := range f.events() {
				collected = collected || (e.Event == "collected" && e.Identity == req.Identity())
			}
			if !collected {
				t.Fatalf("the collection is not in the history: %+v", f.events())
			}

			// Another directory is another call.
			other := strings.Replace(string(payload), `"cwd": "/home/dana/src/`, `"cwd": "/home/dana/src/other-`, 1)
			if other == string(payload) {
				t.Fatal("the payload has no cwd to change")
			}
			if verdict, _ := hookVerdict(t, f.runHook([]byte(other), c.host, "--wait", "0")); verdict == "allow" || f.spawnCount() != 1 {
				t.Fatalf("a call in another directory: %s with %d holders started; want a new dialog", verdict, f.spawnCount())
			}
		})
	}
}

func TestHookHeadlessHandsBack(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.file, func(t *testing.T) {
			f := newCLIFixture(t)
			f.headless("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
			verdict, reason := hookVerdict(t, f.runHook(hookPayload(t, c.file), c.host))
			if verdict != "back" || reason != "ask-confirm: nobody can be asked: no display: neither DISPLAY nor WAYLAND_DISPLAY is set" {
				t.Fatalf("%s %q, want a hand-back naming the reason", verdict, reason)
			}
			if f.spawnCount() != 0 {
				t.Fatal("a holder was started with nobody to ask")
			}
		})
	}
}

func TestHookRefusesInput(t *testing.T) {
	big := make([]byte, hook.MaxInputBytes+1)
	for i := range big {
		big[i] = ' '
	}
	cases := []struct {
		name, host string
		stdin      []byte
		says       string
	}{
		{"not JSON", "claude-code", []byte("tool_name=Bash\n"), "malformed hook input: it is not one JSON object"},
		{"no stdin", "codex", nil, "malformed hook input"},
		{"no tool_input", "codex", []byte(`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash"}`), "tool_input is missing"},
		{"Codex's PreToolUse", "codex", hookPayload(t, "codex/pretooluse-bash.json"), "Codex takes no decision from a PreToolUse hook"},
		{"Claude Code's Stop", "claude", []byte(`{"hook_event_name":"Stop","cwd":"/w"}`), "unsupported hook event"},
		{"over 16 MiB", "claude-code", big, "larger than 16 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			r := f.runHook(c.stdin, c.host)
			f.expectCode(r, hook.ExitNoDecision)
			if r.stdout != "" {
				t.Errorf("stdout %q, want none: no decision", r.stdout)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "ask-confirm: error: hook ") || !strings.Contains(r.stderr, c.says) {
				t.Errorf("stderr %q, want one error line saying %q", r.stderr, c.says)
			}
			if f.spawnCount() != 0 || len(f.events()) != 0 {
				t.Errorf("refused input was asked or recorded")
			}
		})
	}
}

func TestHookUsageErrors(t *testing.T) {
	payload := hookPayload(t, "codex/permissionrequest-bash.json")
	cases := []struct {
		name string
		args []string
		says string
	}{
		{"unknown host", []string{"copilot"}, `unknown host "copilot"`},
		{"no host", nil, "accepts 1 arg"},
		{"two hosts", []string{"codex", "claude"}, "accepts 1 arg"},
		{"unparsable --wait", []string{"codex", "--wait", "soon"}, "--wait"},
		{"negative --wait", []string{"codex", "--wait", "-1s"}, "--wait"},
		{"--wait over a day", []string{"codex", "--wait", "25h"}, "--wait"},
		{"negative --remember", []string{"codex", "--remember", "-1s"}, "--remember"},
		{"unknown flag", []string{"codex", "--timeout", "1m"}, "--timeout"},
		// An empty variable in the host's configuration names nobody.
		{"empty --approvers", []string{"codex", "--approvers", ""}, "--approvers: is empty, which names nobody"},
		{"an empty name in --approvers", []string{"codex", "--approvers", "alice,"}, "--approvers: name 2 of 2 is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newCLIFixture(t)
			r := f.runHook(payload, c.args...)
			f.expectCode(r, lifecycle.ExitUsage)
			if r.stdout != "" || !strings.Contains(r.stderr, "ask-confirm: error: ") || !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "ask-confirm: hint: ") {
				t.Errorf("stdout %q stderr %q; want nothing on stdout, and an error naming %s with a hint", r.stdout, r.stderr, c.says)
			}
			if f.spawnCount() != 0 {
				t.Errorf("a usage error started a holder")
			}
		})
	}
	f := newCLIFixture(t)
	if r := f.runHook(nil, "copilot"); !strings.Contains(r.stderr, "claude-code, codex, gemini, cursor") {
		t.Errorf("the hint does not name the hosts: %q", r.stderr)
	}
}

func TestHookHelp(t *testing.T) {
	f := newCLIFixture(t)
	r := f.runRaw("hook", "--help")
	if r.code != 0 {
		t.Fatalf("hook --help exits %d", r.code)
	}
	for _, want := range []string{"hook HOST", "--wait duration", "(default 5m0s)", "--remember duration", "(default 1m0s)", "--collect-within duration", "(default 15m0s)", "claude-code", "codex", "PermissionRequest"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("hook --help lacks %q", want)
		}
	}
	if r := f.runRaw("--help"); !strings.Contains(r.stdout, fmt.Sprintf("\n  %-11s", "hook")) {
		t.Errorf("ask-confirm --help does not list hook:\n%s", r.stdout)
	}
}

// Gemini CLI reads a hook's exit 1 with nothing on stdout as an allow, and
// Cursor fails open: to them, input that cannot be read is a deny, on
// stdout, saying why, with exit 0.
func TestHookRefusesInputToHostsThatFailOpen(t *testing.T) {
	for _, c := range []struct {
		host, field string
		stdin       []byte
	}{
		{"gemini", `"decision":"deny"`, []byte("tool_name=run_shell_command\n")},
		{"gemini", `"decision":"deny"`, []byte(`{"hook_event_name":"AfterTool","cwd":"/w"}`)},
		{"cursor", `"permission":"deny"`, []byte(`{"hook_event_name":"beforeShellExecution","workspace_roots":["/w"]}`)},
		{"cursor", `"permission":"deny"`, nil},
	} {
		t.Run(c.host, func(t *testing.T) {
			f := newCLIFixture(t)
			r := f.runHook(c.stdin, c.host)
			f.expectCode(r, lifecycle.ExitApproved)
			if !strings.Contains(r.stdout, c.field) || !strings.Contains(r.stdout, "it was not run") || strings.Contains(r.stdout, "allow") {
				t.Errorf("stdout %q, want a deny saying why", r.stdout)
			}
			if !strings.Contains(r.stderr, "ask-confirm: error: hook ") || f.spawnCount() != 0 {
				t.Errorf("stderr %q, holders %d", r.stderr, f.spawnCount())
			}
		})
	}
}

// hook --help says, host by host, what the host gets where nobody
// answers and where the input cannot be read: each host is named where
// the hook's real output for it puts it. (The help once said Cursor alone
// got a deny, and that unreadable input was exit 1 for every host.)
func TestHookHelpSaysWhatEachHostGets(t *testing.T) {
	f := newCLIFixture(t)
	help := f.runRaw("hook", "--help").stdout
	flat := strings.Join(strings.Fields(help), " ")
	between := func(from, to string) string {
		_, rest, ok := strings.Cut(flat, from)
		list, _, ok2 := strings.Cut(rest, to)
		if !ok || !ok2 {
			t.Fatalf("hook --help has no %q ... %q:\n%s", from, to, help)
		}
		return list
	}
	handedBack := between("the dialog is closed: ", " then ask the person")
	denied := between("the only one open; ", ", which have no prompt")
	exit1 := between("is an error on stderr: ", " get exit 1")
	exit0 := between("ask their own way; ", ", which would let")
	for _, c := range []struct{ host, file string }{
		{"claude-code", "claude-code/permissionrequest-bash.json"},
		{"codex", "codex/permissionrequest-bash.json"},
		{"gemini", "gemini/beforetool-run_shell_command.json"},
		{"cursor", "cursor/beforeshellexecution.json"},
	} {
		h, _ := hook.LookupHost(c.host)
		f := newCLIFixture(t)
		f.headless("no display")
		r := f.runHook(hookPayload(t, c.file), c.host)
		gotDeny := r.code == 0 && strings.Contains(r.stdout, `"deny"`)
		if strings.Contains(denied, h.Agent) != gotDeny || strings.Contains(handedBack, h.Agent) == gotDeny {
			t.Errorf("%s, nobody to ask: the hook's output is %q, but help lists it as handed back in %q and denied in %q", h.Agent, r.stdout, handedBack, denied)
		}
		r = f.runHook([]byte("not json\n"), c.host)
		if list := map[int]string{0: exit0, 1: exit1}[r.code]; !strings.Contains(list, h.Agent) || r.code == 0 && !strings.Contains(r.stdout, `"deny"`) {
			t.Errorf("%s, unreadable input: exit %d, stdout %q; help says exit 1 for %q and exit 0 with a deny for %q", h.Agent, r.code, r.stdout, exit1, exit0)
		}
	}
}
