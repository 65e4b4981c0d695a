//go:build e2e && linux

package lifecycle_test

import (
	"crypto/rand"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	bolt "go.etcd.io/bbolt"
)

// The reliability suite: load, crashes, store faults and hostile input,
// with the deny-by-default invariant checked throughout. scripts/soak runs
// it with -soak for the long variant and collects the report lines.

var soak = flag.Bool("soak", false, "run the long reliability variant (1000 holder kills, 2000-caller herd)")

// reliabilityReportEnv names a file that receives one line per scenario:
// scenario, count, failures, worst latency. scripts/soak turns it into the
// soak table in docs/how-it-works.md.
const reliabilityReportEnv = "ASK_CONFIRM_RELIABILITY_REPORT"

func report(t *testing.T, scenario string, count, failures int, worst time.Duration) {
	t.Helper()
	line := fmt.Sprintf("%s\t%d\t%d\t%s", scenario, count, failures, worst.Round(time.Millisecond))
	t.Log("reliability: " + line)
	if path := os.Getenv(reliabilityReportEnv); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		e2e.Must(t, err)
		fmt.Fprintln(f, line)
		f.Close()
	}
	if failures > 0 {
		t.Errorf("%s: %d of %d failed", scenario, failures, count)
	}
}

func pick(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err)
	}
	return int(v.Int64())
}

var plainBuild struct {
	once sync.Once
	path string
	err  error
}

// plainBinary builds ask-confirm without the race detector, for tests that
// start hundreds of processes at once.
func plainBinary(t *testing.T) string {
	t.Helper()
	plainBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "ask-confirm-plain")
		if err != nil {
			plainBuild.err = err
			return
		}
		plainBuild.path = filepath.Join(dir, "ask-confirm")
		out, err := exec.Command("go", "build", "-o", plainBuild.path, "..").CombinedOutput()
		if err != nil {
			plainBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	e2e.Must(t, plainBuild.err)
	return plainBuild.path
}

// 200 callers of one request: one window, one approval, 200 exits 0; then
// 200 callers of the remembered answer: 200 exits 0 and no window.
func TestReliabilityHerd(t *testing.T) {
	n := 200
	if *soak {
		n = 2000
	}
	h := e2e.NewRealHarness(t)
	h.Exe = plainBinary(t)
	title := h.Title("RL-herd")
	args := []string{"--json", "--wait", "5m", "--title", title, "--message", "One dialog for the whole herd"}
	runs := make([]*e2e.Running, n)
	for i := range runs {
		runs[i] = h.Start(args...)
	}
	h.WaitWindow(title)
	// Let every caller reach its wait, watching that no second window shows.
	settleUntil := time.Now().Add(2*time.Second + time.Duration(n)*2*time.Millisecond)
	for time.Now().Before(settleUntil) {
		if ws := h.Windows(title); len(ws) > 1 {
			t.Fatalf("%d windows for one request", len(ws))
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.Click(title, "approve")
	clicked := h.Acted
	failures, worst := 0, time.Duration(0)
	for _, r := range runs {
		o := r.Wait(2 * time.Minute)
		if o.Code != 0 || o.Res.Status != lifecycle.StatusApproved {
			failures++
			t.Logf("caller: exit %d %s %s", o.Code, o.Stdout, o.Stderr)
		}
		worst = max(worst, r.Ended.Sub(clicked))
	}
	report(t, fmt.Sprintf("herd: %d callers, one dialog, one click", n), n, failures, worst)
	if got := h.DialogsRequested(); got != 1 {
		t.Fatalf("%d dialogs requested for one request", got)
	}

	start := time.Now()
	for i := range runs {
		runs[i] = h.Start(args...)
	}
	failures, worst = 0, 0
	for _, r := range runs {
		o := r.Wait(2 * time.Minute)
		if o.Code != 0 || !o.Res.Remembered {
			failures++
			t.Logf("remembered caller: exit %d %s %s", o.Code, o.Stdout, o.Stderr)
		}
		worst = max(worst, o.Elapsed)
	}
	report(t, fmt.Sprintf("herd: %d callers of a remembered answer", n), n, failures, worst)
	if ws := h.Windows(title); len(ws) != 0 || h.DialogsRequested() != 1 {
		t.Fatalf("the remembered herd opened a dialog")
	}
	t.Logf("remembered herd finished in %s", time.Since(start))
}

// 30 different requests at once: 30 windows, each answered in random order,
// each caller gets its own answer.
func TestReliabilityManyRequests(t *testing.T) {
	const n = 30
	h := e2e.NewRealHarness(t)
	h.Exe = plainBinary(t)
	type call struct {
		title   string
		approve bool
		run     *e2e.Running
	}
	calls := make([]call, n)
	for i := range calls {
		calls[i].title = h.Title(fmt.Sprintf("RL-many-%02d", i))
		calls[i].approve = pick(2) == 0
		calls[i].run = h.Start("--json", "--wait", "5m", "--title", calls[i].title, "--message", fmt.Sprintf("Request number %d", i))
		// Thirty GNOME zenity processes starting in the same instant on two
		// cores start so slowly that one dying by itself (as about one in
		// 25 does) can outlive the 0.4 s that tells a failed render from a
		// person's answer, and read as a Cancel nobody clicked. Started
		// apart, each starts as quickly as a single dialog does.
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range calls {
		h.WaitWindow(c.title)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := pick(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	failures, worst := 0, time.Duration(0)
	for _, i := range order {
		c := calls[i]
		button, want := "cancel", 1
		if c.approve {
			button, want = "approve", 0
		}
		h.Click(c.title, button)
		clicked := h.Acted
		o := c.run.Wait(time.Minute)
		if o.Code != want {
			failures++
			t.Logf("%s: clicked %s, caller exited %d: %s", c.title, button, o.Code, o.Stdout)
		}
		worst = max(worst, c.run.Ended.Sub(clicked))
	}
	report(t, fmt.Sprintf("%d distinct requests answered in random order", n), n, failures, worst)
}

// Holders SIGKILLed at random moments: before render, while shown, and
// around the store write of the answer. The store always opens and passes
// bbolt's check, no identity is stuck, and a recorded answer is the one
// given.
func TestReliabilityHolderKills(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	n := 100
	if *soak {
		n = 1000
	}
	h := e2e.NewFakeHarness(t)
	h.Env = append(h.Env, e2e.FakeRenderEnv+"=450ms")
	const parallel = 4
	var (
		mu       sync.Mutex
		failures int
		worst    time.Duration
		moments  = map[string]int{}
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures++
		mu.Unlock()
		t.Logf(format, args...)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				moment, took, err := killOnce(h, i)
				mu.Lock()
				moments[moment]++
				worst = max(worst, took)
				mu.Unlock()
				if err != nil {
					fail("kill %d (%s): %v", i, moment, err)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	t.Logf("kill moments: %v", moments)
	report(t, "holder SIGKILLed at a random moment", n, failures, worst)
	checkStore(t, h)
}

// killOnce runs one request whose holder is killed at a random moment, then
// answers whatever dialog follows, and checks the caller's outcome against
// the answer given. It returns the moment chosen and how long the caller
// took from the kill to its exit.
func killOnce(h *e2e.Harness, i int) (string, time.Duration, error) {
	approve := pick(2) == 0
	answer, want := "cancel", 1
	if approve {
		answer, want = "approve", 0
	}
	// Each iteration answers through its own directory, so parallel
	// iterations never take each other's answers.
	dir := filepath.Join(h.FakeDir, fmt.Sprint(i))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", 0, err
	}
	env := append(e2e.WithoutEnv(h.Env, e2e.FakeZenityDirEnv), e2e.FakeZenityDirEnv+"="+dir)
	c := h.Command([]string{"--json", "--wait", "60s", "--key", fmt.Sprintf("kill-%d", i), "--message", "kill me"})
	c.Env = env
	r := &e2e.Running{H: h, Cmd: c, Done: make(chan struct{})}
	c.Stdout, c.Stderr = &r.Stdout, &r.Stderr
	if err := c.Start(); err != nil {
		return "", 0, err
	}
	go func() { r.Err = c.Wait(); r.Ended = time.Now(); close(r.Done) }()
	sub := &e2e.Harness{T: h.T, FakeDir: dir}

	first, err := waitForCall(sub, 20*time.Second)
	if err != nil {
		return "", 0, err
	}
	moment := []string{"before render", "while shown", "around the answer's store write"}[pick(3)]
	switch moment {
	case "while shown":
		waitFile(filepath.Join(dir, fmt.Sprintf("shown-%d", first)), 10*time.Second)
	case "around the answer's store write":
		waitFile(filepath.Join(dir, fmt.Sprintf("shown-%d", first)), 10*time.Second)
		writeAnswer(dir, answer)
		time.Sleep(time.Duration(pick(20)) * time.Millisecond)
	}
	syscall.Kill(sub.FakeHolder(first), syscall.SIGKILL)
	killed := time.Now()

	// The caller either already has the answer, or a new dialog asks again.
	for {
		select {
		case <-r.Done:
			code := e2e.ExitCode(h.T, r.Err)
			if code != want {
				return moment, 0, fmt.Errorf("answered %s, caller exited %d: %s %s", answer, code, r.Stdout.String(), r.Stderr.String())
			}
			return moment, r.Ended.Sub(killed), nil
		case <-time.After(20 * time.Millisecond):
		}
		if time.Since(killed) > 30*time.Second {
			c.Process.Kill()
			return moment, 0, fmt.Errorf("caller still waiting 30 s after the kill: %s", r.Stderr.String())
		}
		for _, pid := range sub.LiveDialogs() {
			if pid != first && fileExists(filepath.Join(dir, fmt.Sprintf("shown-%d", pid))) && !fileExists(filepath.Join(dir, "answer")) {
				writeAnswer(dir, answer)
			}
		}
	}
}

func waitForCall(h *e2e.Harness, limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if calls := h.FakeCalls(); len(calls) > 0 {
			sort.Ints(calls)
			return calls[0], nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("no dialog started within %s", limit)
}

func waitFile(path string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for !fileExists(path) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func writeAnswer(dir, kind string) {
	tmp := filepath.Join(dir, "answer.tmp")
	if os.WriteFile(tmp, []byte(kind), 0o600) == nil {
		os.Rename(tmp, filepath.Join(dir, "answer"))
	}
}

// checkStore opens the harness's store with bbolt directly and runs its
// consistency check.
func checkStore(t *testing.T, h *e2e.Harness) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db"), 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	e2e.Must(t, err)
	defer db.Close()
	e2e.Must(t, db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}))
}

// hostile inputs: each is refused with exit 2, or shown literally.
func TestReliabilityHostileInput(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	cases := []struct {
		name, message string
		refused       bool
		shown         string // as the dialog shows it, where it is not the message
	}{
		{"invalid UTF-8", "caf\xe9", true, ""},
		{"ANSI escape", "\x1b[31mred\x1b[0m", true, ""},
		{"other control character", "bell\a", true, ""},
		{"RTL override", "invoice\u202egpj.exe", true, ""},
		{"64 KiB + 1", strings.Repeat("x", 64<<10+1), true, ""},
		{"Pango bold", "<b>x</b>", false, ""},
		{"Pango span", `<span foreground="red">x</span>`, false, ""},
		{"leading double dash", "--help", false, ""},
		{"leading dash", "-rf /", false, ""},
		{"newlines and tabs", "line one\n\tline two", false, "line one\n        line two"},
		{"entity", "&amp; &lt;", false, ""},
	}
	failures := 0
	for _, c := range cases {
		earlier := h.FakeCalls()
		before := len(earlier)
		o := h.Run("--json", "--wait", "1s", "--no-origin", "--key", "hostile-"+c.name, "--message="+c.message)
		switch {
		case c.refused && o.Code != 2:
			failures++
			t.Errorf("%s: exit %d, want 2: %s", c.name, o.Code, o.Stdout)
		case c.refused && len(h.FakeCalls()) != before:
			failures++
			t.Errorf("%s: refused input still started a dialog", c.name)
		case !c.refused:
			// Shown: the dialog program got the text byte for byte, with
			// markup turned off, and unwrapped: Fit wraps it. On a loaded machine the dialog program
			// may start after the caller's 1 s wait.
			var calls []int
			e2e.Eventually(t, 30*time.Second, c.name+": a dialog starts", func() bool {
				calls = h.FakeCalls()
				return len(calls) > before
			})
			if o.Code != 3 || len(calls) != before+1 {
				failures++
				t.Errorf("%s: exit %d with %d new dialogs: %s %s", c.name, o.Code, len(calls)-before, o.Stdout, o.Stderr)
				continue
			}
			args := fakeArgs(h, added(calls, earlier))
			shown := c.message
			if c.shown != "" {
				shown = c.shown // a tab is the spaces to its stop (dialog.Fit)
			}
			if !containsSeq(args, "--text", shown) || !contains(args, "--no-markup") {
				failures++
				t.Errorf("%s: dialog program got %q", c.name, args)
			}
			h.Run("cancel", "hostile-"+c.name)
		}
		if o.Code == 0 {
			t.Fatalf("%s: hostile input approved", c.name)
		}
	}
	report(t, "hostile inputs refused or shown literally", len(cases), failures, 0)
}

// added returns the one PID of pids that is not in earlier: the dialog
// program started last. Not the highest PID, which wraps around.
func added(pids, earlier []int) int {
	for _, p := range pids {
		if !slices.Contains(earlier, p) {
			return p
		}
	}
	return 0
}

// fakeArgs returns the arguments scripted zenity pid was started with.
func fakeArgs(h *e2e.Harness, pid int) []string {
	h.T.Helper()
	b, err := os.ReadFile(filepath.Join(h.FakeDir, fmt.Sprintf("call-%d", pid)))
	e2e.Must(h.T, err)
	args, _, _ := strings.Cut(string(b), "\n"+fmt.Sprint(h.FakeHolder(pid))+"\n")
	return strings.Split(args, "\x00")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsSeq(list []string, a, b string) bool {
	for i := 0; i+1 < len(list); i++ {
		if list[i] == a && list[i+1] == b {
			return true
		}
	}
	return false
}
