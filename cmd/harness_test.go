//go:build e2e && unix

package cmd

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

// harness runs the ask-confirm binary (this test binary under that name) as
// a caller would, in a private XDG tree and working directory.
type harness struct {
	t       *testing.T
	dir     string
	work    string // the callers' working directory, hence the default scope
	exe     string
	env     []string
	fakeDir string    // set when dialogs are scripted (fakeZenity)
	suffix  string    // makes window titles unique to this test run
	acted   time.Time // when click or key last acted on a window
}

// title returns name made unique to this run, so xdotool never finds a
// window left over from another test or an earlier run.
func (h *harness) title(name string) string { return name + "-" + h.suffix }

// outcome is what one invocation left behind.
type outcome struct {
	code    int
	stdout  string
	stderr  string
	res     lifecycle.Result
	elapsed time.Duration
}

// newFakeHarness returns a harness whose dialogs are the scripted zenity and
// whose display is a socket that only accepts connections.
func newFakeHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.fakeDir = filepath.Join(h.dir, "fake")
	must(t, os.Mkdir(h.fakeDir, 0o700))
	sock := filepath.Join(h.dir, "x:0")
	ln, err := net.Listen("unix", sock)
	must(t, err)
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
	h.exe = lookPathOrFail(t, "ask-confirm")
	h.env = append(h.env, "DISPLAY="+sock, fakeZenityDirEnv+"="+h.fakeDir, "PATH="+os.Getenv("PATH"))
	t.Cleanup(h.killDialogs)
	return h
}

// newRealHarness returns a harness that shows real zenity dialogs on the
// X server in DISPLAY. Without one (or without zenity or xdotool) the test
// fails when ASK_CONFIRM_E2E=require, as scripts/test sets, and skips with
// the reason otherwise.
func newRealHarness(t *testing.T) *harness {
	var missing []string
	if os.Getenv("DISPLAY") == "" {
		missing = append(missing, "an X server in DISPLAY")
	}
	for _, tool := range []string{"xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	realZenity := realZenityDir()
	if realZenity == "" {
		missing = append(missing, "zenity")
	}
	if len(missing) > 0 {
		msg := "real-dialog test needs " + strings.Join(missing, ", ") + "; run scripts/test, which installs and starts them"
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	h := newHarness(t)
	h.env = append(h.env, "DISPLAY="+os.Getenv("DISPLAY"), "NO_AT_BRIDGE=1", h.realZenityPath(realZenity))
	return h
}

// realZenityPath links ask-confirm into a directory of the harness's own
// and returns the PATH= variable that has it first and then the process's
// PATH without the scripted zenity, so the holder finds the real one, in
// realZenity.
func (h *harness) realZenityPath(realZenity string) string {
	bin := filepath.Join(h.dir, "bin")
	must(h.t, os.Mkdir(bin, 0o700))
	h.exe = filepath.Join(bin, "ask-confirm")
	if err := os.Link(lookPathOrFail(h.t, "ask-confirm"), h.exe); err != nil {
		must(h.t, copyFile(lookPathOrFail(h.t, "ask-confirm"), h.exe))
	}
	path := []string{bin}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(p, "zenity")); err == nil && p != realZenity {
			continue
		}
		path = append(path, p)
	}
	return "PATH=" + strings.Join(path, string(filepath.ListSeparator))
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

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, work: filepath.Join(dir, "work"), suffix: strconv.FormatInt(time.Now().UnixNano()%1e6, 36)}
	t.Cleanup(h.stopHolders)
	t.Cleanup(func() {
		if t.Failed() {
			b, err := os.ReadFile(filepath.Join(dir, "state", "ask-confirm", "history.jsonl"))
			t.Logf("history (%v):\n%s", err, b)
		}
	})
	must(t, os.Mkdir(h.work, 0o700))
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_CACHE_HOME", "XDG_STATE_HOME", "PATH", fakeZenityDirEnv:
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env,
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"))
	return h
}

func (h *harness) command(args []string) *exec.Cmd {
	c := exec.Command(h.exe, args...)
	c.Args[0] = "ask-confirm"
	c.Env = h.env
	if len(args) > 0 && args[0] == "mcp" {
		c.Env = mcpServerEnv(h.t, h.env)
	}
	c.Dir = h.work
	return c
}

// running is an invocation started in the background.
type running struct {
	h       *harness
	cmd     *exec.Cmd
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	started time.Time
	ended   time.Time
	done    chan struct{}
	err     error
}

// nothingRenders makes every dialog program that the holders of this
// harness start count as one whose window never appeared, however long it
// runs: a test of render failures then gets its verdict from the product's
// rule, not from how fast a loaded machine starts a program. It returns
// the function that undoes it.
func (h *harness) nothingRenders() (undo func()) {
	env := h.env
	h.env = append(h.env[:len(h.env):len(h.env)], holderHumanAnswerEnv+"=1h", holderSettleEnv+"=1h")
	return func() { h.env = env }
}

// waitAnswered waits until every request in the store has ended: the
// holder has written the answer that a person gave, so that a call made
// next collects it (remembered) rather than joining a holder that a busy
// machine has not yet let write it.
func (h *harness) waitAnswered() {
	h.t.Helper()
	eventually(h.t, 30*time.Second, "the answer to be on record", func() bool {
		recs, err := store.New(filepath.Join(h.dir, "cache", "ask-confirm", "answers.db")).List()
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

// start runs ask-confirm with args in the background.
func (h *harness) start(args ...string) *running {
	h.t.Helper()
	r := &running{h: h, cmd: h.command(args), done: make(chan struct{})}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	r.started = time.Now()
	must(h.t, r.cmd.Start())
	go func() { r.err = r.cmd.Wait(); r.ended = time.Now(); close(r.done) }()
	return r
}

// wait waits for the invocation to end, failing the test after limit.
func (r *running) wait(limit time.Duration) outcome {
	r.h.t.Helper()
	select {
	case <-r.done:
	case <-time.After(limit):
		r.cmd.Process.Kill()
		<-r.done
		r.h.t.Fatalf("ask-confirm %s did not exit within %s; stderr: %s", strings.Join(r.cmd.Args[1:], " "), limit, r.stderr.String())
	}
	o := outcome{stdout: r.stdout.String(), stderr: r.stderr.String(), elapsed: time.Since(r.started), code: exitCode(r.h.t, r.err)}
	if strings.HasPrefix(strings.TrimSpace(o.stdout), "{") {
		if err := json.Unmarshal([]byte(o.stdout), &o.res); err != nil {
			r.h.t.Fatalf("stdout is not one JSON object: %v\n%s", err, o.stdout)
		}
	}
	return o
}

// run runs ask-confirm with args and waits for it.
func (h *harness) run(args ...string) outcome {
	h.t.Helper()
	return h.start(args...).wait(90 * time.Second)
}

func exitCode(t *testing.T, err error) int {
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

// expect checks an outcome's exit code, and with --json the status and
// exit_code fields, which must agree with the process's exit code.
func (h *harness) expect(o outcome, code int, status string) {
	h.t.Helper()
	if o.code != code {
		h.t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", o.code, code, o.stdout, o.stderr)
	}
	if o.stdout == "" {
		return
	}
	if o.res.Status != status || int(o.res.ExitCode) != code {
		h.t.Fatalf("json status %q exit_code %d, want %q %d\nstdout: %s\nstderr: %s", o.res.Status, o.res.ExitCode, status, code, o.stdout, o.stderr)
	}
}

// history returns the audit events written so far.
func (h *harness) history() []map[string]any {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, "state", "ask-confirm", "history.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	must(h.t, err)
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e map[string]any
		must(h.t, json.Unmarshal([]byte(line), &e))
		events = append(events, e)
	}
	return events
}

// countEvents counts history events of one kind.
func (h *harness) countEvents(kind string) int {
	n := 0
	for _, e := range h.history() {
		if e["event"] == kind {
			n++
		}
	}
	return n
}

// dialogsRequested counts the "requested" events that asked for a dialog,
// leaving out the retries of render failures (eventsBesideRenderRetries):
// GNOME zenity now and then exits on its own under Xvfb before its window
// appears, and the retry is the same request's dialog, not a second one.
func (h *harness) dialogsRequested() int {
	n := 0
	seen := map[string]bool{}
	for _, e := range h.history() {
		id, _ := e["identity"].(string)
		if seen[id] {
			continue
		}
		seen[id] = true
		for _, k := range h.eventsBesideRenderRetries(id) {
			if k == "requested" {
				n++
			}
		}
	}
	return n
}

// --- scripted dialogs ---

// fakeCalls returns the PIDs of every scripted zenity started so far.
func (h *harness) fakeCalls() []int {
	h.t.Helper()
	matches, err := filepath.Glob(filepath.Join(h.fakeDir, "call-*"))
	must(h.t, err)
	var pids []int
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), "call-"))
		must(h.t, err)
		pids = append(pids, pid)
	}
	return pids
}

// liveDialogs returns the PIDs of scripted zenity processes still running.
func (h *harness) liveDialogs() []int {
	var live []int
	for _, pid := range h.fakeCalls() {
		if processAlive(pid) {
			live = append(live, pid)
		}
	}
	return live
}

// fakeHolder returns the PID of the holder that started scripted zenity pid.
func (h *harness) fakeHolder(pid int) int {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.fakeDir, "call-"+strconv.Itoa(pid)))
	must(h.t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	ppid, err := strconv.Atoi(lines[len(lines)-1])
	must(h.t, err)
	return ppid
}

// waitShown waits until n scripted dialogs have rendered and are running,
// and returns their PIDs.
func (h *harness) waitShown(n int) []int {
	h.t.Helper()
	var shown []int
	eventually(h.t, 30*time.Second, fmt.Sprintf("%d scripted dialog(s) shown", n), func() bool {
		shown = shown[:0]
		for _, pid := range h.liveDialogs() {
			if _, err := os.Stat(filepath.Join(h.fakeDir, "shown-"+strconv.Itoa(pid))); err == nil {
				shown = append(shown, pid)
			}
		}
		return len(shown) == n
	})
	return shown
}

// answer makes the next scripted dialog to look end with kind: approve,
// cancel or crash.
func (h *harness) answer(kind string) {
	h.t.Helper()
	tmp := filepath.Join(h.fakeDir, "answer.tmp")
	must(h.t, os.WriteFile(tmp, []byte(kind), 0o600))
	must(h.t, os.Rename(tmp, filepath.Join(h.fakeDir, "answer")))
}

func (h *harness) killDialogs() {
	if h.fakeDir == "" {
		return
	}
	for _, pid := range h.liveDialogs() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func processAlive(pid int) bool {
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

// xdotoolMaybe runs xdotool and returns its output, or "" if it failed,
// as it does for a window that closed between two calls.
func xdotoolMaybe(args ...string) string {
	out, err := exec.Command("xdotool", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func xdotool(t *testing.T, args ...string) string {
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

// windows returns the visible windows whose title is exactly title.
func (h *harness) windows(title string) []string {
	out := xdotool(h.t, "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(title)+"$")
	if out == "" {
		return nil
	}
	return strings.Fields(out)
}

// waitWindow waits for exactly one window titled title and returns its id.
func (h *harness) waitWindow(title string) string {
	h.t.Helper()
	var ws []string
	eventually(h.t, 30*time.Second, "one window titled "+title, func() bool {
		ws = h.windows(title)
		return len(ws) == 1
	})
	return ws[0]
}

// waitStable waits until window w has kept the same geometry for 400 ms:
// GTK maps a dialog before its final layout, and a click aimed at the
// approve button of the early layout lands on cancel. The wait also keeps
// the test slower than any person, whose answer ask-confirm only takes from
// 0.4 s after the dialog program starts.
func (h *harness) waitStable(w string) {
	h.t.Helper()
	last := ""
	eventually(h.t, 30*time.Second, "a stable layout of window "+w, func() bool {
		geo := xdotool(h.t, "getwindowgeometry", w)
		stable := geo == last
		last = geo
		if !stable {
			time.Sleep(400 * time.Millisecond)
		}
		return stable
	})
}

// waitNoWindow waits until no window is titled title.
func (h *harness) waitNoWindow(title string, limit time.Duration) {
	h.t.Helper()
	eventually(h.t, limit, "no window titled "+title, func() bool { return len(h.windows(title)) == 0 })
}

// click presses the approve or cancel button of the dialog titled title.
// GTK 3 packs zenity's two buttons, of one width (about 85 to 130 px),
// at the right of the bottom row, 10 px apart and 12 px from the edge:
// approve is rightmost, and 157 px from the right edge is inside cancel,
// whether the text (the origin line, a long message) makes the dialog
// wider than its buttons or not.
func (h *harness) click(title, button string) {
	h.t.Helper()
	h.untilClosed(title, "clicking "+button, func(w string) {
		geo := h.geometry(w)
		x, y := geo["X"]+geo["WIDTH"]-157, geo["Y"]+geo["HEIGHT"]-22
		if button == "approve" {
			x = geo["X"] + geo["WIDTH"] - 45
		}
		// Move away first: GTK ignores a click without the pointer entering
		// the button, and --sync waits for a move that never comes when
		// the pointer is already there (dialogs all open at one spot).
		xdotool(h.t, "mousemove", "--sync", "0", "0")
		xdotool(h.t, "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		h.acted = time.Now()
		xdotool(h.t, "click", "1")
	})
}

// geometry returns window w's X, Y, WIDTH and HEIGHT.
func (h *harness) geometry(w string) map[string]int {
	geo := map[string]int{}
	for _, line := range strings.Split(xdotool(h.t, "getwindowgeometry", "--shell", w), "\n") {
		k, v, _ := strings.Cut(line, "=")
		geo[k], _ = strconv.Atoi(v)
	}
	return geo
}

// key focuses the dialog titled title and presses key.
func (h *harness) key(title, key string) {
	h.t.Helper()
	h.untilClosed(title, "pressing "+key, func(w string) {
		xdotool(h.t, "windowfocus", "--sync", w)
		h.acted = time.Now()
		xdotool(h.t, "key", key)
	})
}

// untilClosed waits for the window titled title, raises it and performs
// act on it, again until the window closes: GTK ignores input that arrives
// in the first moments after a window maps. Titles are unique to a test, so
// a repeated act can only reach the same dialog.
func (h *harness) untilClosed(title, what string, act func(w string)) {
	h.t.Helper()
	h.waitStable(h.waitWindow(title))
	for try := 0; try < 10; try++ {
		ws := h.windows(title)
		if len(ws) == 0 {
			return
		}
		xdoMu.Lock()
		xdotool(h.t, "windowraise", ws[0])
		act(ws[0])
		xdoMu.Unlock()
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) && len(h.windows(title)) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	h.t.Fatalf("%s did not close the dialog %s", what, title)
}

// stopHolders ends every holder this harness's store knows of, so no dialog
// outlives its test.
func (h *harness) stopHolders() {
	recs, err := store.New(filepath.Join(h.dir, "cache", "ask-confirm", "answers.db")).List()
	if err != nil {
		h.t.Logf("listing holders to stop: %v", err)
	}
	for _, rec := range recs {
		if !rec.Status.Final() && rec.HolderPID > 1 {
			syscall.Kill(rec.HolderPID, syscall.SIGTERM)
		}
	}
}

// --- small helpers ---

func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func lookPathOrFail(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	must(t, err)
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
