//go:build e2e && unix

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"

	"github.com/ask-confirm/ask-confirm/store"
)

// Harness runs the ask-confirm binary (this test binary under that name) as
// a caller would, in a private XDG tree and working directory.
type Harness struct {
	T       *testing.T
	Dir     string
	Work    string // the callers' working directory, hence the default scope
	Exe     string
	Env     []string
	FakeDir string    // set when dialogs are scripted (fakeZenity)
	Suffix  string    // makes window titles unique to this test run
	Acted   time.Time // when click or key last acted on a window
	Wine    string    // wine64, which runs Exe, the Windows build (NewWineHarness)
}

// Title returns name made unique to this run, so xdotool never finds a
// window left over from another test or an earlier run.
func (h *Harness) Title(name string) string { return name + "-" + h.Suffix }

// Outcome is what one invocation left behind.
type Outcome struct {
	Code    int
	Stdout  string
	Stderr  string
	Res     lifecycle.Result
	Elapsed time.Duration
}

// NewFakeHarness returns a harness whose dialogs are the scripted zenity and
// whose display is a socket that only accepts connections.
func NewFakeHarness(t *testing.T) *Harness {
	h := NewHarness(t)
	h.FakeDir = filepath.Join(h.Dir, "fake")
	Must(t, os.Mkdir(h.FakeDir, 0o700))
	sock := filepath.Join(h.Dir, "x:0")
	ln, err := net.Listen("unix", sock)
	Must(t, err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	h.Exe = LookPathOrFail(t, "ask-confirm")
	h.Env = append(h.Env, "DISPLAY="+sock, FakeZenityDirEnv+"="+h.FakeDir, "PATH="+os.Getenv("PATH"))
	t.Cleanup(h.killDialogs)
	return h
}

// NewRealHarness returns a harness that shows real zenity dialogs on the
// X server in DISPLAY. Without one (or without zenity, xdotool or xwd) the test
// fails when ASK_CONFIRM_E2E=require, as scripts/test sets, and skips with
// the reason otherwise.
func NewRealHarness(t *testing.T) *Harness {
	var missing []string
	if os.Getenv("DISPLAY") == "" {
		missing = append(missing, "an X server in DISPLAY")
	}
	realZenity := needTools(t, "real-dialog test", "run scripts/test, which installs and starts them", missing, "xdotool", "xwd")
	lockScreen(t, "x"+os.Getenv("DISPLAY"))
	h := NewHarness(t)
	h.Env = append(h.Env, "DISPLAY="+os.Getenv("DISPLAY"), "NO_AT_BRIDGE=1", h.realZenityPath(realZenity))
	return h
}

// needTools finds the real zenity and checks that each of tools is on
// PATH. Where something is missing, beside the conditions in missing that
// the caller found unmet, it fails the test when ASK_CONFIRM_E2E=require,
// as scripts/test sets, and skips it otherwise, saying what the test
// (what) needs and what to do (todo). It returns the directory of zenity.
func needTools(t *testing.T, what, todo string, missing []string, tools ...string) string {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	realZenity := realZenityDir()
	if realZenity == "" {
		missing = append(missing, "zenity")
	}
	if len(missing) > 0 {
		msg := what + " needs " + strings.Join(missing, ", ") + "; " + todo
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return realZenity
}

// realZenityPath links ask-confirm into a directory of the harness's own,
// with a zenity that runs the real one in realZenity (recordZenity), and
// returns the PATH= variable that has it first and then the process's PATH
// without the scripted zenity.
func (h *Harness) realZenityPath(realZenity string) string {
	bin := filepath.Join(h.Dir, "bin")
	Must(h.T, os.Mkdir(bin, 0o700))
	h.Exe = filepath.Join(bin, "ask-confirm")
	// ask-confirm-phone too: the scripted zenity's directory, where
	// testscript put it, is left out of PATH.
	for _, name := range []string{"ask-confirm", "ask-confirm-phone"} {
		if err := os.Link(LookPathOrFail(h.T, name), filepath.Join(bin, name)); err != nil {
			Must(h.T, copyFile(LookPathOrFail(h.T, name), filepath.Join(bin, name)))
		}
	}
	h.recordZenity(bin, filepath.Join(realZenity, "zenity"))
	path := []string{bin}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(p, "zenity")); err == nil && p != realZenity {
			continue
		}
		path = append(path, p)
	}
	return "PATH=" + strings.Join(path, string(filepath.ListSeparator))
}

// recordZenity puts a zenity in bin that notes the time it starts and then
// becomes the real one (exec, so that a kill reaches it and its PID stays),
// its stderr added to a file that a failed test prints. GNOME zenity now
// and then ends as it starts, with Cancel's code; what it said then is the
// only clue. The price: a failure the holder records no longer ends with
// zenity's stderr (ncruces/zenity adds it to its error), which the file
// has instead.
func (h *Harness) recordZenity(bin, real string) {
	log := ShellQuote(filepath.Join(h.Dir, "zenity-stderr.log"))
	script := "#!/bin/sh\n" +
		"printf '%s zenity %s: %s\\n' \"$(date +%T.%N)\" \"$$\" \"$*\" >> " + log + "\n" +
		"exec " + ShellQuote(real) + " \"$@\" 2>> " + log + "\n"
	Must(h.T, os.WriteFile(filepath.Join(bin, "zenity"), []byte(script), 0o755))
	h.T.Cleanup(func() {
		if h.T.Failed() {
			b, err := os.ReadFile(filepath.Join(h.Dir, "zenity-stderr.log"))
			h.T.Logf("the real zenity's starts and stderr (%v):\n%s", err, b)
		}
	})
}

// realZenityDir returns the directory of a zenity on PATH that is not this
// test binary's scripted one.
func realZenityDir() string {
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		f := filepath.Join(p, "zenity")
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && !isTestBinary(f) {
			return p
		}
	}
	return ""
}

func isTestBinary(path string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, errA := os.Stat(self)
	b, errB := os.Stat(path)
	return errA == nil && errB == nil && a.Size() == b.Size()
}

func NewHarness(t *testing.T) *Harness {
	t.Helper()
	dir := t.TempDir()
	h := &Harness{T: t, Dir: dir, Work: filepath.Join(dir, "work"), Suffix: strconv.FormatInt(time.Now().UnixNano()%1e6, 36)}
	t.Cleanup(h.stopHolders)
	t.Cleanup(func() {
		if t.Failed() {
			b, err := os.ReadFile(filepath.Join(dir, "state", "ask-confirm", "history.jsonl"))
			t.Logf("history (%v):\n%s", err, b)
		}
	})
	Must(t, os.Mkdir(h.Work, 0o700))
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "PATH", FakeZenityDirEnv:
			continue
		}
		h.Env = append(h.Env, kv)
	}
	h.Env = append(h.Env,
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		// doctor reads the person's Codex configuration: the test's own.
		"CODEX_HOME="+filepath.Join(dir, "codex"))
	return h
}

func (h *Harness) Command(args []string) *exec.Cmd {
	if h.Wine != "" {
		return h.wineCommand(h.Exe, args...)
	}
	c := exec.Command(h.Exe, args...)
	c.Args[0] = "ask-confirm"
	c.Env = h.Env
	if len(args) > 0 && args[0] == "mcp" {
		c.Env = MCPServerEnv(h.T, h.Env)
	}
	c.Dir = h.Work
	return c
}

// Running is an invocation started in the background.
type Running struct {
	H       *Harness
	Cmd     *exec.Cmd
	Stdout  bytes.Buffer
	Stderr  bytes.Buffer
	Started time.Time
	Ended   time.Time
	Done    chan struct{}
	Err     error
	// notes are what the harness says of the run as it ends, which Wait
	// logs: the run may end after its test.
	notes []string

	mu sync.Mutex // guards Cmd where a run under Wine is started again
}

// NothingRenders makes every dialog program that the holders of this
// harness start count as one whose window never appeared, however long it
// runs: a test of render failures then gets its verdict from the product's
// rule, not from how fast a loaded machine starts a program. It returns
// the function that undoes it.
func (h *Harness) NothingRenders() (undo func()) {
	env := h.Env
	h.Env = append(h.Env[:len(h.Env):len(h.Env)], holderHumanAnswerEnv+"=1h", holderSettleEnv+"=1h")
	return func() { h.Env = env }
}

// WaitAnswered waits until every request in the store has ended: the
// holder has written the answer that a person gave, so that a call made
// next collects it (remembered) rather than joining a holder that a busy
// machine has not yet let write it.
func (h *Harness) WaitAnswered() {
	h.T.Helper()
	Eventually(h.T, 30*time.Second, "the answer to be on record", func() bool {
		recs, err := store.New(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db")).List()
		if err != nil || len(recs) == 0 {
			return false
		}
		for _, r := range recs {
			if !r.Status.Final() {
				return false
			}
		}
		return true
	})
}

// Start runs ask-confirm with args in the background.
func (h *Harness) Start(args ...string) *Running {
	h.T.Helper()
	r := &Running{H: h, Cmd: h.Command(args), Done: make(chan struct{})}
	r.Cmd.Stdout, r.Cmd.Stderr = &r.Stdout, &r.Stderr
	r.Started = time.Now()
	Must(h.T, r.Cmd.Start())
	go func() {
		r.Err = waitWine(r.Cmd)
		if h.Wine != "" {
			h.againWhereWineDidNotStart(r, args)
		}
		r.Ended = time.Now()
		close(r.Done)
	}()
	return r
}

// Wait waits for the invocation to end, failing the test after limit.
func (r *Running) Wait(limit time.Duration) Outcome {
	r.H.T.Helper()
	select {
	case <-r.Done:
	case <-time.After(limit):
		r.mu.Lock()
		r.Cmd.Process.Kill()
		r.mu.Unlock()
		<-r.Done
		r.H.T.Fatalf("ask-confirm %s did not exit within %s; stderr: %s", strings.Join(r.Cmd.Args[1:], " "), limit, r.Stderr.String())
	}
	for _, n := range r.notes {
		r.H.T.Log(n)
	}
	o := Outcome{Stdout: r.Stdout.String(), Stderr: r.Stderr.String(), Elapsed: time.Since(r.Started), Code: ExitCode(r.H.T, r.Err)}
	if strings.HasPrefix(strings.TrimSpace(o.Stdout), "{") {
		if err := json.Unmarshal([]byte(o.Stdout), &o.Res); err != nil {
			r.H.T.Fatalf("stdout is not one JSON object: %v\n%s", err, o.Stdout)
		}
	}
	return o
}

// Run runs ask-confirm with args and waits for it.
func (h *Harness) Run(args ...string) Outcome {
	h.T.Helper()
	return h.Start(args...).Wait(90 * time.Second)
}

func ExitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	default:
		t.Fatalf("running ask-confirm: %v", err)
		return -1
	}
}

// Expect checks an outcome's exit code, and with --json the status and
// exit_code fields, which must agree with the process's exit code.
func (h *Harness) Expect(o Outcome, code int, status string) {
	h.T.Helper()
	if o.Code != code {
		h.T.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", o.Code, code, o.Stdout, o.Stderr)
	}
	if o.Stdout == "" {
		return
	}
	if o.Res.Status != status || int(o.Res.ExitCode) != code {
		h.T.Fatalf("json status %q exit_code %d, want %q %d\nstdout: %s\nstderr: %s", o.Res.Status, o.Res.ExitCode, status, code, o.Stdout, o.Stderr)
	}
}

// History returns the audit events written so far.
func (h *Harness) History() []map[string]any {
	h.T.Helper()
	b, err := os.ReadFile(filepath.Join(h.Dir, "state", "ask-confirm", "history.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	Must(h.T, err)
	// A line is whole once its newline is written: the program appends
	// each event with one write, and a reader can meet a file just
	// created, or a line whose write is still going on. Such a tail is
	// left for the next read; a whole line that does not decode fails.
	var events []map[string]any
	for {
		line, rest, whole := bytes.Cut(b, []byte{'\n'})
		if !whole {
			break
		}
		b = rest
		var e map[string]any
		Must(h.T, json.Unmarshal(line, &e))
		events = append(events, e)
	}
	return events
}

// CountEvents counts history events of one kind.
func (h *Harness) CountEvents(kind string) int {
	n := 0
	for _, e := range h.History() {
		if e["event"] == kind {
			n++
		}
	}
	return n
}

// DialogsRequested counts the "requested" events that asked for a dialog,
// leaving out the retries of render failures (eventsBesideRenderRetries):
// GNOME zenity now and then exits on its own under Xvfb before its window
// appears, and the retry is the same request's dialog, not a second one.
func (h *Harness) DialogsRequested() int {
	n := 0
	seen := map[string]bool{}
	for _, e := range h.History() {
		id, _ := e["identity"].(string)
		if seen[id] {
			continue
		}
		seen[id] = true
		for _, k := range h.EventsBesideRenderRetries(id) {
			if k == "requested" {
				n++
			}
		}
	}
	return n
}

// --- scripted dialogs ---

// FakeCalls returns the PIDs of every scripted zenity started so far.
func (h *Harness) FakeCalls() []int {
	h.T.Helper()
	matches, err := filepath.Glob(filepath.Join(h.FakeDir, "call-*"))
	Must(h.T, err)
	var pids []int
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "call-"))
		Must(h.T, err)
		pids = append(pids, pid)
	}
	return pids
}

// LiveDialogs returns the PIDs of scripted zenity processes still running.
func (h *Harness) LiveDialogs() []int {
	var live []int
	for _, pid := range h.FakeCalls() {
		if ProcessAlive(pid) {
			live = append(live, pid)
		}
	}
	return live
}

// FakeHolder returns the PID of the holder that started scripted zenity pid.
func (h *Harness) FakeHolder(pid int) int {
	h.T.Helper()
	b, err := os.ReadFile(filepath.Join(h.FakeDir, "call-"+strconv.Itoa(pid)))
	Must(h.T, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	ppid, err := strconv.Atoi(lines[len(lines)-1])
	Must(h.T, err)
	return ppid
}

// WaitShown waits until n scripted dialogs have rendered and are running,
// and returns their PIDs.
func (h *Harness) WaitShown(n int) []int {
	h.T.Helper()
	var shown []int
	Eventually(h.T, 30*time.Second, fmt.Sprintf("%d scripted dialog(s) shown", n), func() bool {
		shown = shown[:0]
		for _, pid := range h.LiveDialogs() {
			if _, err := os.Stat(filepath.Join(h.FakeDir, "shown-"+strconv.Itoa(pid))); err == nil {
				shown = append(shown, pid)
			}
		}
		return len(shown) == n
	})
	return shown
}

// Answer makes the next scripted dialog to look end with kind: approve,
// cancel or crash.
func (h *Harness) Answer(kind string) {
	h.T.Helper()
	tmp := filepath.Join(h.FakeDir, "answer.tmp")
	Must(h.T, os.WriteFile(tmp, []byte(kind), 0o600))
	Must(h.T, os.Rename(tmp, filepath.Join(h.FakeDir, "answer")))
}

func (h *Harness) killDialogs() {
	if h.FakeDir == "" {
		return
	}
	for _, pid := range h.LiveDialogs() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func ProcessAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A killed process whose parent is gone may linger as a zombie.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// --- real dialogs, driven with xdotool ---

// xdoMu serialises xdotool sequences: focus and key presses must not
// interleave between tests.
var xdoMu sync.Mutex

// XdotoolMaybe runs xdotool and returns its output, or "" if it failed,
// as it does for a window that closed between two calls.
func XdotoolMaybe(args ...string) string {
	out, err := exec.Command("xdotool", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func Xdotool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && args[0] == "search" {
			return "" // no window matched
		}
		t.Fatalf("xdotool %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// Windows returns the visible Windows whose title is exactly title.
func (h *Harness) Windows(title string) []string {
	out := Xdotool(h.T, "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(title)+"$")
	if out == "" {
		return nil
	}
	return strings.Fields(out)
}

// WaitWindow waits for exactly one window titled title and returns its id.
func (h *Harness) WaitWindow(title string) string {
	h.T.Helper()
	var ws []string
	most, late := 0, ""
	h.T.Cleanup(func() {
		if h.T.Failed() && len(ws) != 1 {
			// What the screen held, to tell a window that never mapped
			// from one too many.
			h.T.Logf("windows titled %s: %d at the end, at most %d at once; every window: %s%s", title, len(ws), most,
				XdotoolMaybe("search", "--onlyvisible", "--name", "."), late)
		}
	})
	start := time.Now()
	Eventually(h.T, 30*time.Second, "one window titled "+title, func() bool {
		ws = h.Windows(title)
		most = max(most, len(ws))
		if most == 0 && late == "" && time.Since(start) > 5*time.Second {
			late = lateWindow(title)
		}
		return len(ws) == 1
	})
	return ws[0]
}

// lateWindow says, while a window is late, whether a window of that title
// exists unmapped, and where each zenity process is: a zenity that waits
// in its start shows there, and is gone by the time the test gives up.
func lateWindow(title string) string {
	ps, _ := exec.Command("ps", "-o", "pid,ppid,stat,etime,wchan:24,args", "-C", "zenity").CombinedOutput()
	return fmt.Sprintf("\nafter 5 s: windows of that title, mapped or not: %q; zenity processes:\n%s",
		XdotoolMaybe("search", "--name", "^"+regexp.QuoteMeta(title)+"$"), ps)
}

// WaitStable waits until window w has kept the same geometry for 400 ms:
// GTK maps a dialog before its final layout, and a click aimed at the
// approve button of the early layout lands on cancel. The wait also keeps
// the test slower than any person, whose answer ask-confirm only takes from
// 0.4 s after the dialog program starts.
func (h *Harness) WaitStable(w string) {
	h.T.Helper()
	last := ""
	Eventually(h.T, 30*time.Second, "a stable layout of window "+w, func() bool {
		geo := Xdotool(h.T, "getwindowgeometry", w)
		stable := geo == last
		last = geo
		if !stable {
			time.Sleep(400 * time.Millisecond)
		}
		return stable
	})
}

// WaitNoWindow waits until no window is titled title.
func (h *Harness) WaitNoWindow(title string, limit time.Duration) {
	h.T.Helper()
	Eventually(h.T, limit, "no window titled "+title, func() bool { return len(h.Windows(title)) == 0 })
}

// Click presses the approve or cancel button of the dialog titled title.
// GTK 3 packs zenity's two buttons, of one width (about 85 to 130 px),
// at the right of the bottom row, 10 px apart and 12 px from the edge:
// approve is rightmost, and 157 px from the right edge is inside cancel,
// whether the text (the origin line, a long message) makes the dialog
// wider than its buttons or not.
func (h *Harness) Click(title, button string) {
	h.T.Helper()
	h.UntilClosed(title, "clicking "+button, func(w string) {
		geo := h.Geometry(w)
		x, y := geo["X"]+geo["WIDTH"]-157, geo["Y"]+geo["HEIGHT"]-22
		if button == "approve" {
			x = geo["X"] + geo["WIDTH"] - 45
		}
		// Move away first: GTK ignores a click without the pointer entering
		// the button, and --sync waits for a move that never comes when
		// the pointer is already there (dialogs all open at one spot).
		Xdotool(h.T, "mousemove", "--sync", "0", "0")
		Xdotool(h.T, "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		h.Acted = time.Now()
		Xdotool(h.T, "click", "1")
	})
}

// Geometry returns window w's X, Y, WIDTH and HEIGHT.
func (h *Harness) Geometry(w string) map[string]int {
	geo := map[string]int{}
	for _, line := range strings.Split(Xdotool(h.T, "getwindowgeometry", "--shell", w), "\n") {
		k, v, _ := strings.Cut(line, "=")
		geo[k], _ = strconv.Atoi(v)
	}
	return geo
}

// Key focuses the dialog titled title and presses Key.
func (h *Harness) Key(title, key string) {
	h.T.Helper()
	h.UntilClosed(title, "pressing "+key, func(w string) {
		Xdotool(h.T, "windowfocus", "--sync", w)
		h.Acted = time.Now()
		Xdotool(h.T, "key", key)
	})
}

// UntilClosed waits for the window titled title, raises it and performs
// act on it, again until the window closes: GTK ignores input that arrives
// in the first moments after a window maps. Titles are unique to a test, so
// a repeated act can only reach the same dialog.
func (h *Harness) UntilClosed(title, what string, act func(w string)) {
	h.T.Helper()
	h.WaitStable(h.WaitWindow(title))
	for try := 0; try < 10; try++ {
		ws := h.Windows(title)
		if len(ws) == 0 {
			return
		}
		// Released however act ends: a failed xdotool ends the test with
		// t.Fatalf, and the lock must not stay held.
		func() {
			xdoMu.Lock()
			defer xdoMu.Unlock()
			Xdotool(h.T, "windowraise", ws[0])
			act(ws[0])
		}()
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) && len(h.Windows(title)) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	h.T.Fatalf("%s did not close the dialog %s", what, title)
}

// stopHolders ends every holder this harness's store knows of, so no dialog
// outlives its test. Then it ends every process that still runs with this
// harness's directories and waits until they are gone, so that nothing
// writes there while the test's directory is removed.
func (h *Harness) stopHolders() {
	recs, err := store.New(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db")).List()
	if err != nil {
		h.T.Logf("listing holders to stop: %v", err)
	}
	for _, rec := range recs {
		switch {
		case rec.Status.Final() || rec.HolderPID <= 1:
		case h.Wine != "":
			h.killWineHolder(rec.HolderPID) // a Windows process ID
		default:
			syscall.Kill(rec.HolderPID, syscall.SIGTERM)
		}
	}
	if h.Wine == "" {
		h.endOwnProcesses()
	}
}

// endOwnProcesses ends the processes that run with this harness's
// directories: the invocations a test started and did not wait for, the
// holders they detached, even those whose request has ended (a holder
// still sends its follow-ups, for up to 8 s to a server the test has
// stopped, and then writes to the history), and the programs those run.
// SIGTERM first, as a person's kill would; SIGKILL to what is left after
// 30 s.
func (h *Harness) endOwnProcesses() {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		left := h.ownProcesses()
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			syscall.Kill(pid, sig)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(left) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			left = h.ownProcesses()
		}
		if len(left) > 0 && sig == syscall.SIGKILL {
			h.T.Errorf("processes %v still run with the test's directory 30 s after SIGKILL", left)
		}
	}
}

// ownProcesses lists the live processes whose environment gives this
// harness's state directory: everything the harness started and all that
// inherited its environment. A zombie has no environment to read.
func (h *Harness) ownProcesses() []int {
	mark := []byte("\x00XDG_STATE_HOME=" + filepath.Join(h.Dir, "state") + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		h.T.Logf("listing processes: %v", err)
		return nil
	}
	var own []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), mark) && ProcessAlive(pid) {
			own = append(own, pid)
		}
	}
	return own
}

// --- small helpers ---

func Eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func LookPathOrFail(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Must(t, err)
	return p
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ShellQuote quotes s as one word of a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
