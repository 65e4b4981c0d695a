//go:build e2e && unix

package fleete2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// replyLines are the messages of s's reply topic, as the server lists
// them (by time, then as stored), read with the asking token.
func replyLines(t *testing.T, s *ntfytest.Server) []string {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL+"/"+s.ReplyTopic+"/json?poll=1&since=all", nil)
	e2e.Must(t, err)
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	resp, err := http.DefaultClient.Do(req)
	e2e.Must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	e2e.Must(t, err)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Event, Message string
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Event == "message" {
			out = append(out, m.Message)
		}
	}
	return out
}

// field is the value of NAME=VALUE in a line of the fleet's record.
func field(line, name string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// requestOf is the fleet's request id a phone's message's buttons answer.
func requestOf(t *testing.T, m ntfytest.Message) string {
	t.Helper()
	for _, a := range m.Actions {
		if id := field(a.Body, "req"); id != "" {
			return id
		}
	}
	t.Fatalf("the phone's message %q has no button of a request", m.Message)
	return ""
}

// The laptop whose setup the runners share never asked: ask-confirm
// cancel KEY there ends the fleet's request all the same, on every machine
// and on the phone (docs/ci.md). A job that asked with --wait 0 and whose
// runner is gone: the cancel is told to the phone once, a tap on the old
// notification after it answers nothing, and a re-run of the job on a new
// runner ends cancelled (exit 1) instead of asking anew or collecting the
// tap. A runner still waiting exits 1 at once. A key the fleet never asked
// is still unknown (exit 2). On 3481494 the laptop's cancel exited 2
// ("unknown request key"), and cancel --all said "no open dialogs".
func TestFleetCancelFromAMachineThatNeverAsked(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)
	laptop := e2e.FleetMachine(t, env)

	ask := []string{"--title", "Deploy", "--message", "Deploy 77aa01 to production?", "--key", "deploy-77aa01", "--remote", "only", "--json", "--collect-within", "1h"}
	runner := e2e.FleetMachine(t, env)
	runner.Expect(runner.Run(append(ask, "--wait", "0")...), 3, "pending")
	m := phone.Await(1)
	e2e.TearDown(t, runner)

	o := laptop.Run("cancel", "deploy-77aa01")
	if o.Code != 0 || !strings.Contains(o.Stdout, "--key deploy-77aa01") || !strings.Contains(o.Stdout, "cancelled on every machine of the fleet and on the phone") {
		t.Fatalf("cancel KEY on the laptop: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	phone.ExpectFollowUp(2, "The request of key deploy-77aa01 was cancelled on another machine at ")
	phone.Tap(m, "Approve")

	rerun := e2e.FleetMachine(t, env)
	rerun.Expect(rerun.Run(append(ask, "--wait", "0")...), 1, "cancelled")
	again := laptop.Run("cancel", "deploy-77aa01")
	if again.Code != 0 || !strings.Contains(again.Stdout, "already cancelled") {
		t.Fatalf("a second cancel: exit %d\n%s%s", again.Code, again.Stdout, again.Stderr)
	}
	if u := laptop.Run("cancel", "deploy-never-asked"); u.Code != 2 || !strings.Contains(u.Stderr, "nor open on the fleet's record") {
		t.Fatalf("cancel of a key the fleet never asked: exit %d\n%s%s", u.Code, u.Stdout, u.Stderr)
	}
	if all := laptop.Run("cancel", "--all"); all.Code != 0 || !strings.Contains(all.Stderr, "ask-confirm cancel KEY") {
		t.Fatalf("cancel --all on the laptop says nothing of the fleet: exit %d\n%s%s", all.Code, all.Stdout, all.Stderr)
	}

	// A runner still waiting for the request ends at once, and the phone
	// is told once, by one of them.
	ask[3], ask[5] = "Deploy 77aa02 to production?", "deploy-77aa02"
	waiting := e2e.FleetMachine(t, env)
	job := waiting.Start(append(ask, "--wait", "2m")...)
	phone.Await(3)
	e2e.Shown(t, waiting)
	if o := laptop.Run("cancel", "deploy-77aa02"); o.Code != 0 || !strings.Contains(o.Stdout, "cancelled on every machine") {
		t.Fatalf("cancel KEY of a request a runner waits for: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	waiting.Expect(job.Wait(60*time.Second), 1, "cancelled")
	m = phone.Await(4)
	if len(m.Actions) != 0 || !strings.Contains(m.Message, "cancelled") {
		t.Fatalf("the phone's follow-up of the cancel: %q", m.Message)
	}
	time.Sleep(6 * time.Second)
	if n := phone.Count(); n != 4 {
		t.Fatalf("the phone received %d messages, want two requests and one follow-up each", n)
	}
}

// Three jobs of a matrix ask one --key with three different messages at
// the same moment: the newest question, the last claim in the server's
// order, is the one the phone shows; the other two end superseded (exit
// 7) before they reach it, so the phone has one notification and no
// "replaced" message. The person approves it: its job exits 0, and a
// re-run of that job on a new runner collects the approval. On 3481494
// two questions stayed open on the phone, and the approval was lost.
func TestFleetOneQuestionPerKey(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	env := e2e.ExportedFleet(t, s)
	phone := ntfytest.NewPhone(t, s)

	ask := func(region string) []string {
		return []string{"--title", "Deploy", "--message", "Deploy to " + region + "?", "--key", "deploy-matrix", "--remote", "only", "--json", "--collect-within", "1h"}
	}
	regions := []string{"eu", "us", "ap"}
	runners := map[string]*e2e.Harness{}
	jobs := map[string]*e2e.Running{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, region := range regions {
		runners[region] = e2e.FleetMachine(t, env)
	}
	// At once, as a matrix starts them.
	for _, region := range regions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := runners[region].Start(append(ask(region), "--wait", "2m")...)
			mu.Lock()
			jobs[region] = j
			mu.Unlock()
		}()
	}
	wg.Wait()
	m := phone.Await(1)
	question, _, _ := strings.Cut(m.Message, "\n")
	winner := strings.TrimSuffix(strings.TrimPrefix(question, "Deploy to "), "?")
	if !slices.Contains(regions, winner) {
		t.Fatalf("the phone shows %q", m.Message)
	}
	for _, region := range regions {
		if region != winner {
			runners[region].Expect(jobs[region].Wait(60*time.Second), 7, "superseded")
		}
	}
	// The one shown is the last claim, in the server's order.
	var last string
	for _, line := range replyLines(t, s) {
		if field(line, "rec") == "open" {
			last = field(line, "req")
		}
	}
	if id := requestOf(t, m); id != last {
		t.Fatalf("the phone shows request %s; the last claim on the server is %s", id, last)
	}
	time.Sleep(3 * time.Second)
	if n := phone.Count(); n != 1 {
		t.Fatalf("the phone received %d messages, want the one question; the second: %q", n, phone.Await(2).Message)
	}

	phone.Tap(m, "Approve")
	runners[winner].Expect(jobs[winner].Wait(60*time.Second), 0, "approved")
	rerun := e2e.FleetMachine(t, env)
	rerun.Expect(rerun.Run(append(ask(winner), "--wait", "0")...), 0, "approved")
	phone.ExpectFollowUp(2, "Approved on the phone at ")
}

// A vote of 2 of Alice, Bob and Carol, waited for on a runner, whose copy
// of the setup still lists Bob. Bob approves; then the laptop removes
// him (his phone is lost): from then on his buttons count on no machine.
// His tap replayed is ignored, the phones are told his vote no longer
// counts, Carol's approval is the only one (1 of 2,
// on the waiting runner and on a new runner's re-run alike), and the
// request is approved only once Alice approves too, by Alice and Carol.
// On 3481494 Bob's approval and Carol's approved the request.
func TestFleetRemovedApproverStopsCounting(t *testing.T) {
	t.Parallel() // no display
	s, people := ntfytest.NewWithPeople(t, "Alice", "Bob", "Carol")
	laptop := e2e.Headless(e2e.NewFakeHarness(t))
	laptop.SetUpPhone(s, "only")
	env := e2e.AddPeople(t, laptop, people)
	phones := map[string]*ntfytest.Phone{}
	for _, p := range people {
		phones[p.Name] = ntfytest.NewPhoneOf(t, s, p)
	}
	gate := []string{"--json", "--approvers", "alice,bob,carol", "--approvals", "2", "--key", "deploy-ab12",
		"--timeout", "10m", "--collect-within", "10m", "--title", "Deploy", "--message", "Deploy ab12 to production?"}
	runner := e2e.FleetMachine(t, env)
	job := runner.Start(append(gate, "--wait", "3m")...)
	asked := map[string]ntfytest.Message{}
	for name, ph := range phones {
		asked[name] = ph.Await(1)
	}
	phones["Bob"].Tap(asked["Bob"], "Approve")
	for _, ph := range phones {
		ph.ExpectFollowUp(2, "Bob approved; 1 of 2")
	}

	o := laptop.Run("remote", "approver", "remove", "Bob")
	if o.Code != 0 || !strings.Contains(o.Stdout, "Bob's buttons on the requests open now count on no machine of the fleet") {
		t.Fatalf("remote approver remove Bob: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	phones["Bob"].Tap(asked["Bob"], "Approve") // the lost phone, replayed
	phones["Carol"].Tap(asked["Carol"], "Approve")
	// The phones are told that Bob's vote is withdrawn, and of Carol's.
	for _, name := range []string{"Alice", "Carol"} {
		for _, text := range []string{"Bob's vote no longer counts (removed from the setup); 0 of 2", "Carol approved; 1 of 2"} {
			if m := phones[name].AwaitFirst(4, text); m.Message != text || len(m.Actions) != 0 {
				t.Fatalf("%s's phone: %q with %d buttons, want the follow-up %q", name, m.Message, len(m.Actions), text)
			}
		}
	}
	rerun := e2e.FleetMachine(t, env)
	o = rerun.Run(append(gate, "--wait", "3s")...)
	rerun.Expect(o, 3, "pending")
	if o.Res.Approvals == nil || *o.Res.Approvals != 1 {
		t.Fatalf("the re-run counts the removed person's vote: %s", o.Stdout)
	}
	select {
	case <-job.Done:
		t.Fatalf("the waiting runner ended before Alice voted: %+v", job.Wait(time.Second))
	default:
	}

	phones["Alice"].Tap(asked["Alice"], "Approve")
	o = job.Wait(60 * time.Second)
	runner.Expect(o, 0, "approved")
	if !slices.Equal(o.Res.ApprovedBy, []string{"Carol", "Alice"}) {
		t.Fatalf("approved by %v, want Alice and Carol: %s", o.Res.ApprovedBy, o.Stdout)
	}
}
