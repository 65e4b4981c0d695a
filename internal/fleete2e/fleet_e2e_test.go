//go:build e2e && unix

package fleete2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// A second remote setup with the same server and topics does not make a
// second fleet silently: it refuses, says to use remote export, and
// records nothing; --new-fleet makes one all the same; remote setup run
// again on a machine of the fleet keeps its secret. remote export prints
// the setup, which ASK_CONFIRM_REMOTE takes in place of the file.
func TestFleetSetupAndExport(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	first := e2e.Headless(e2e.NewFakeHarness(t))
	first.SetUpPhone(s, "only")
	file := filepath.Join(first.Dir, "config", "ask-confirm", "remote.json")
	secretOf := func(path string) string {
		b, err := os.ReadFile(path)
		e2e.Must(t, err)
		var v struct{ Secret string }
		e2e.Must(t, json.Unmarshal(b, &v))
		return v.Secret
	}
	secret := secretOf(file)
	if len(secret) != 64 {
		t.Fatalf("remote setup made the secret %q, want 256 bits in hex", secret)
	}
	if o := first.RemoteSetup(s, s.AnswerToken, "--mode", "only"); o.Code != 0 || secretOf(file) != secret {
		t.Fatalf("setup again on the same machine: exit %d, secret kept %v\n%s%s", o.Code, secretOf(file) == secret, o.Stdout, o.Stderr)
	}

	second := e2e.Headless(e2e.NewFakeHarness(t))
	o := second.RemoteSetup(s, s.AnswerToken)
	if o.Code != 2 || !strings.Contains(o.Stdout, "FAIL  no other fleet uses replies") || !strings.Contains(o.Stderr, "remote export") || !strings.Contains(o.Stderr, "--new-fleet") {
		t.Fatalf("a second setup of the same topics: exit %d, want 2 with a hint to remote export\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	if _, err := os.Stat(filepath.Join(second.Dir, "config", "ask-confirm", "remote.json")); !os.IsNotExist(err) {
		t.Fatalf("the refused setup recorded something: %v", err)
	}

	exported := first.Run("remote", "export")
	if exported.Code != 0 || !strings.Contains(exported.Stdout, secret) || strings.Count(strings.TrimSpace(exported.Stdout), "\n") != 0 {
		t.Fatalf("remote export: exit %d\n%s%s", exported.Code, exported.Stdout, exported.Stderr)
	}
	joined := e2e.FleetMachine(t, strings.TrimSpace(exported.Stdout))
	if o := joined.Run("remote", "mode"); o.Code != 0 || strings.TrimSpace(o.Stdout) != "only" {
		t.Fatalf("remote mode from %s: exit %d %s%s", "ASK_CONFIRM_REMOTE", o.Code, o.Stdout, o.Stderr)
	}
	if o := joined.Run("remote", "mode", "also"); o.Code != 2 || !strings.Contains(o.Stderr, "ASK_CONFIRM_REMOTE") {
		t.Fatalf("remote mode also with the setup in the environment: exit %d %s", o.Code, o.Stderr)
	}
	for _, h := range []*e2e.Harness{first, second, joined} {
		for _, e := range h.History() {
			if b, _ := json.Marshal(e); strings.Contains(string(b), secret) || strings.Contains(string(b), s.AskerToken) {
				t.Fatalf("the history holds a secret: %s", b)
			}
		}
	}

	if o := second.RemoteSetup(s, s.AnswerToken, "--new-fleet"); o.Code != 0 {
		t.Fatalf("setup --new-fleet: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	if other := secretOf(filepath.Join(second.Dir, "config", "ask-confirm", "remote.json")); other == secret || len(other) != 64 {
		t.Fatalf("--new-fleet made the secret %q", other)
	}
}

// The CI story: a job asks with --key, ends as pending (exit 3), and its
// runner is torn down (holder SIGKILLed, its directories deleted); the
// person taps Approve; the job re-run on a new runner, which never asked,
// collects the approval without a second message on the phone. Then a
// matrix of three jobs on three runners, started at once, asks one
// question: one message, one tap, three approvals, one follow-up.
func TestFleetCIStory(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)

	ask := []string{"--title", "Deploy", "--message", "Deploy 4f2a1c to production?", "--key", "deploy-4f2a1c", "--remote", "only", "--json"}
	runner := e2e.FleetMachine(t, env)
	job := runner.Run(append(ask, "--wait", "3s")...)
	runner.Expect(job, 3, "pending")
	m := phone.Await(1)
	e2e.TearDown(t, runner)
	phone.Tap(m, "Approve")

	rerun := e2e.FleetMachine(t, env)
	again := rerun.Run(append(ask, "--wait", "20s")...)
	if again.Code != 0 {
		req, _ := http.NewRequest("GET", s.URL+"/"+s.ReplyTopic+"/json?poll=1&since=all", nil)
		req.Header.Set("Authorization", "Bearer "+s.AskerToken)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			t.Logf("the reply topic holds:\n%s", b)
		}
	}
	rerun.Expect(again, 0, "approved")
	// The runner that asked is gone: the re-run follows the phone up.
	phone.ExpectFollowUp(2, "Approved on the phone at ")
	time.Sleep(time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the one request and its follow-up", n)
	}

	matrix := []string{"--title", "Deploy", "--message", "Roll out release 42?", "--key", "release-42", "--remote", "only", "--json", "--wait", "2m"}
	var runners []*e2e.Harness
	for range 3 {
		runners = append(runners, e2e.FleetMachine(t, env))
	}
	// The three jobs start at once, as a matrix does.
	var jobs []*e2e.Running
	for _, h := range runners {
		jobs = append(jobs, h.Start(matrix...))
	}
	m = phone.Await(3)
	for _, h := range runners {
		e2e.Shown(t, h)
	}
	phone.Tap(m, "Approve")
	for _, j := range jobs {
		j.H.Expect(j.Wait(90*time.Second), 0, "approved")
	}
	phone.ExpectFollowUp(4, "Approved on the phone at ")
	time.Sleep(2 * time.Second)
	if n := phone.Count(); n != 4 {
		t.Fatalf("the phone received %d messages, want two requests and one follow-up each", n)
	}
}

// ask-confirm cancel on one machine ends the request for the callers
// waiting on another machine too (exit 1, cancelled), and the phone is
// followed up once; a new question under the same key on the other
// machine supersedes the open one on the first (exit 7).
func TestFleetCancelAndSupersedeAcrossMachines(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)
	ask := []string{"--title", "Deploy", "--message", "Drop the staging data?", "--key", "drop-staging", "--remote", "only", "--json", "--wait", "2m"}
	first, second := e2e.FleetMachine(t, env), e2e.FleetMachine(t, env)
	a := first.Start(ask...)
	phone.Await(1)
	e2e.Shown(t, first)
	b := second.Start(ask...)
	e2e.Shown(t, second)
	if o := second.Run("cancel", "drop-staging"); o.Code != 0 {
		t.Fatalf("cancel: exit %d %s", o.Code, o.Stderr)
	}
	second.Expect(b.Wait(90*time.Second), 1, "cancelled")
	first.Expect(a.Wait(90*time.Second), 1, "cancelled")
	phone.ExpectFollowUp(2, "This request was cancelled at ")
	time.Sleep(6 * time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the request and one follow-up", n)
	}

	ask[3] = "Drop the staging data, keep the backups?"
	ask[5] = "drop-staging-2"
	older := append([]string(nil), ask...)
	older[3] = "Drop the staging data?"
	a = first.Start(older...)
	phone.Await(3)
	e2e.Shown(t, first)
	b = second.Start(ask...)
	first.Expect(a.Wait(90*time.Second), 7, "superseded")
	phone.AwaitFirst(5, "This request was replaced by a newer one at ")
	phone.Tap(phone.AwaitFirst(5, "Drop the staging data, keep the backups?"), "Approve")
	second.Expect(b.Wait(90*time.Second), 0, "approved")
}

// With --remote also, an answer given in the dialog on one machine
// reaches a machine without a display that waits for the same request on
// the phone, and the phone is followed up once.
func TestFleetAnswerInTheDialogReachesTheOtherMachine(t *testing.T) {
	t.Parallel() // scripted dialogs only
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)

	laptop := e2e.NewFakeHarness(t)
	laptop.Env = append(laptop.Env, "ASK_CONFIRM_REMOTE="+env)
	runner := e2e.FleetMachine(t, env)
	ask := []string{"--title", "Deploy", "--message", "Deploy 9c1e to production?", "--key", "deploy-9c1e", "--json", "--wait", "2m"}
	a := laptop.Start(append(ask, "--remote", "also")...)
	laptop.WaitShown(1)
	phone.Await(1)
	b := runner.Start(append(ask, "--remote", "only")...)
	e2e.Shown(t, runner)
	laptop.Answer("approve")
	laptop.Expect(a.Wait(90*time.Second), 0, "approved")
	runner.Expect(b.Wait(90*time.Second), 0, "approved")
	phone.ExpectFollowUp(2, "Already approved in the dialog at ")
	time.Sleep(6 * time.Second)
	if n := phone.Count(); n != 2 {
		t.Fatalf("the phone received %d messages, want the request and one follow-up", n)
	}
}

// A job that holds no runner at all (--wait 0) asks, and its runner is
// torn down; the person approves. A re-run with --wait 0 on a new runner
// collects the approval (the look-up is not cut short by the caller's
// wait), and its runner, torn down one second after that run exits, has
// told the phone already: the follow-up is sent before the answer is
// handed over. On 3481494 each such re-run exited 3 ("still open on the
// phone") while the answer sat on the server, and a collecting runner
// torn down within about 5 s left the phone's buttons live.
func TestFleetCollectsAtAnyWaitAndTellsBeforeTeardown(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)

	// --wait 0 is the collect the look-up must not cut short; 20s, one
	// that collected before too, whose follow-up was lost.
	for i, wait := range []string{"0", "20s"} {
		ask := []string{"--title", "Deploy", "--message", "Deploy build " + wait + " to production?", "--key", "deploy-" + wait, "--remote", "only", "--json", "--collect-within", "1h", "--wait", "0"}
		runner := e2e.FleetMachine(t, env)
		job := runner.Run(ask...)
		runner.Expect(job, 3, "pending")
		m := phone.Await(2*i + 1)
		e2e.TearDown(t, runner)
		phone.Tap(m, "Approve")

		rerun := e2e.FleetMachine(t, env)
		began := time.Now()
		again := rerun.Run(append(ask, "--wait", wait)...)
		rerun.Expect(again, 0, "approved")
		t.Logf("the re-run with --wait %s collected the approval in %s", wait, time.Since(began).Round(time.Millisecond))
		time.Sleep(time.Second)
		e2e.TearDown(t, rerun)
		phone.ExpectFollowUp(2*i+2, "Approved on the phone at ")
		time.Sleep(time.Second)
		if n := phone.Count(); n != 2*i+2 {
			t.Fatalf("the phone received %d messages, want a request and one follow-up each", n)
		}
	}
}
