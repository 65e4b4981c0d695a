//go:build e2e && linux

package winetest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// TestMain points xdotool, and the dialogs, at the layer's own X server
// (ASK_CONFIRM_WINE_DISPLAY), which scripts/test starts beside the one the
// other real-dialog tests share.
func TestMain(m *testing.M) {
	if d := os.Getenv(e2e.WineDisplayEnv); d != "" {
		os.Setenv("DISPLAY", d)
	}
	code := m.Run()
	// Nothing of the layer's Wine outlives it: its server, and with it
	// any process a failed test left.
	if wine, prefix := os.Getenv(e2e.WineEnv), os.Getenv(e2e.WinePrefixEnv); wine != "" && prefix != "" {
		c := exec.Command(filepath.Join(filepath.Dir(wine), "wineserver"), "-k")
		c.Env = append(os.Environ(), "WINEPREFIX="+prefix)
		_ = c.Run()
	}
	os.Exit(code)
}

// timed logs how long the Windows programs of a case took under Wine.
func timed(t *testing.T) {
	start := time.Now()
	t.Cleanup(func() { t.Logf("%s: %s under Wine", t.Name(), time.Since(start).Round(10*time.Millisecond)) })
}

func confirmArgs(title string, extra ...string) []string {
	return append([]string{"--json", "--title", title, "--message", "Ship v2 to production?"}, extra...)
}

// The Win32 message box answers as on Linux: Approve 0; Cancel, Esc and
// the window closed (Alt+F4) 1; each answer in the history.
func TestWineAnswers(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	for _, c := range []struct {
		name   string
		answer func(title string)
		code   int
		status string
	}{
		{"approve", func(title string) { h.ClickButton(title, "Approve") }, 0, lifecycle.StatusApproved},
		{"cancel", func(title string) { h.ClickButton(title, "Cancel") }, 1, lifecycle.StatusDenied},
		{"Esc", func(title string) { h.Key(title, "Escape") }, 1, lifecycle.StatusDenied},
		{"closed", func(title string) { h.Key(title, "alt+F4") }, 1, lifecycle.StatusDenied},
	} {
		title := h.Title("W-" + c.name)
		r := h.Start(confirmArgs(title, "--wait", "60s")...)
		c.answer(title)
		h.Expect(r.Wait(60*time.Second), c.code, c.status)
	}
	outcomes := map[string]int{}
	for _, ev := range h.History() {
		if ev["event"] == "answered" {
			outcomes[ev["outcome"].(string)]++
		}
	}
	if outcomes["approved"] != 1 || outcomes["denied"] != 3 {
		t.Fatalf("answers in the history: %v", outcomes)
	}
}

// --wait runs out (3) while the dialog stays with its detached holder; a
// click answers it; the same command collects the answer (0, remembered);
// past --remember the same command asks anew.
func TestWinePendingThenCollect(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-pending")
	args := confirmArgs(title, "--wait", "3s", "--remember", "2s")
	h.Expect(h.Run(args...), 3, lifecycle.StatusPending)
	h.ClickButton(title, "Approve")
	h.WaitAnswered()
	o := h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("the collected answer is not marked remembered: %+v", o.Res)
	}
	time.Sleep(2500 * time.Millisecond) // past --remember
	r := h.Start(confirmArgs(title, "--wait", "60s", "--remember", "2s")...)
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// Ten identical callers at once share one dialog, and its answer.
func TestWineHerd(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-herd")
	var runs []*e2e.Running
	for range 10 {
		runs = append(runs, h.Start(confirmArgs(title, "--wait", "90s")...))
	}
	h.WaitStable(h.WaitWindow(title))
	most := 0
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		most = max(most, len(h.Windows(title)))
	}
	if most != 1 {
		t.Fatalf("%d windows at once for one request", most)
	}
	h.ClickButton(title, "Approve")
	for _, r := range runs {
		h.Expect(r.Wait(90*time.Second), 0, lifecycle.StatusApproved)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// The holder killed as taskkill /F kills (its dialog goes with it): the
// next run recovers with a new dialog, never an approval.
func TestWineHolderKilled(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-killed")
	h.Expect(h.Run(confirmArgs(title, "--wait", "2s")...), 3, lifecycle.StatusPending)
	h.WaitStable(h.WaitWindow(title))
	pid := h.OnlyRecord().HolderPID
	if code, _, errs := h.RunWine("", "taskkill", "/F", "/PID", itoa(pid)); code != 0 {
		t.Fatalf("taskkill /F /PID %d: exit %d: %s", pid, code, errs)
	}
	h.WaitNoWindow(title, 30*time.Second)
	r := h.Start(confirmArgs(title, "--wait", "60s")...)
	h.WaitStable(h.WaitWindow(title))
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// A new question under the same --key supersedes the open one (7), and
// ask-confirm cancel ends the request from outside (1).
func TestWineSupersedeAndCancel(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	oldTitle, newTitle := h.Title("W-old"), h.Title("W-new")
	old := h.Start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?", "--wait", "60s")
	h.WaitStable(h.WaitWindow(oldTitle))
	newer := h.Start("--json", "--key", "release", "--title", newTitle, "--message", "Tag v2 instead?", "--wait", "60s")
	h.Expect(old.Wait(60*time.Second), 7, lifecycle.StatusSuperseded)
	h.WaitNoWindow(oldTitle, 30*time.Second)
	h.WaitStable(h.WaitWindow(newTitle))
	if o := h.Run("cancel", "release"); o.Code != 0 {
		t.Fatalf("cancel: exit %d: %s %s", o.Code, o.Stdout, o.Stderr)
	}
	h.Expect(newer.Wait(60*time.Second), 1, lifecycle.StatusCancelled)
	h.WaitNoWindow(newTitle, 30*time.Second)
}

// choose and input through zenity's Win32 list and entry dialogs, with the
// keyboard and the pointer.
func TestWineChooseAndInput(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-choose")
	r := h.Start("choose", "--json", "--title", title, "--message", "Deploy to?",
		"--option", "staging", "--option", "production", "--option", "qa", "--wait", "60s")
	h.Press(title, "Home", "Down")
	h.ClickButton(title, "OK")
	o := r.Wait(60 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "production" {
		t.Fatalf("chose %#v, want production", o.Res.Answer)
	}

	title = h.Title("W-input")
	r = h.Start("input", "--json", "--title", title, "--message", "Release name?", "--wait", "60s")
	h.TypeInto(title, "canary 5 percent", false)
	h.ClickButton(title, "OK")
	o = r.Wait(60 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "canary 5 percent" {
		t.Fatalf("typed %#v", o.Res.Answer)
	}
}

// Unicode, markup and a leading "-" are shown literally: the message box's
// text is the message as given, read back from the control, and a picture
// of it is kept where ASK_CONFIRM_WINE_SHOTS names a directory.
func TestWineLiteralText(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-literal")
	message := "-rf <b>bold</b> &amp; & Déploiement → 生产 🚀"
	r := h.Start("--json", "--title", title, "--message", message, "--no-origin", "--wait", "60s")
	h.WaitStable(h.WaitWindow(title))
	texts := h.ControlText(title, "Static")
	if !contains(texts, message) {
		t.Fatalf("the message box shows %q, want %q", texts, message)
	}
	if dir := os.Getenv("ASK_CONFIRM_WINE_SHOTS"); dir != "" {
		shot := filepath.Join(dir, "literal.png")
		code, _, errs := h.RunWine("", e2e.WineProgram("inspect.exe"), "-shot", e2e.WinePath(shot), title)
		if code != 0 {
			t.Fatalf("inspect -shot: exit %d: %s", code, errs)
		}
		t.Logf("a picture of the dialog: %s", shot)
	}
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
}

func contains(texts []string, s string) bool {
	for _, t := range texts {
		if t == s {
			return true
		}
	}
	return false
}

// doctor, run as a Windows program, says what it sees: Windows, the Win32
// backend, a holder that can be detached, and the store on a Windows path.
func TestWineDoctor(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	o := h.Run("doctor")
	if o.Code != 0 {
		t.Fatalf("doctor: exit %d: %s %s", o.Code, o.Stdout, o.Stderr)
	}
	for _, want := range []string{"windows/amd64", "backend            win32", "can be detached", `answers            Z:\`, "can ask            yes"} {
		if !strings.Contains(o.Stdout, want) {
			t.Fatalf("doctor does not say %q:\n%s", want, o.Stdout)
		}
	}
}

// ask-confirm-askpass.exe, as OpenSSH for Windows would run it, and the
// agent hook with Claude Code's documented payload on stdin.
func TestWineAskpassAndHook(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	var wg sync.WaitGroup
	var code int
	var stdout, stderr string
	h.Env = append(h.Env, "SSH_ASKPASS_PROMPT=confirm")
	prompt := "Allow use of key " + h.Suffix + "?"
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, stdout, stderr = h.RunWine("", e2e.WineProgram("ask-confirm-askpass.exe"), prompt)
	}()
	h.ClickButton(e2e.AskpassTitle, "Allow")
	wg.Wait()
	if code != 0 || stdout != "" {
		t.Fatalf("askpass: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}

	project := h.Title("W-hook")
	payload, err := json.Marshal(map[string]any{
		"session_id": "wine-e2e", "transcript_path": nil, "cwd": `C:\src\` + project,
		"hook_event_name": "PermissionRequest", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git push origin main", "description": "Push the release"},
	})
	e2e.Must(t, err)
	title := "Claude Code: Bash in " + project
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, stdout, stderr = h.RunWine(string(payload), h.Exe, "hook", "claude-code", "--wait", "60s")
	}()
	h.ClickButton(title, "Allow")
	wg.Wait()
	if code != 0 || !strings.Contains(stdout, `"behavior":"allow"`) {
		t.Fatalf("hook: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
