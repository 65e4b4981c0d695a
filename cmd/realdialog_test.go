//go:build e2e && unix

package cmd_test

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// These tests show real zenity dialogs on the X server in DISPLAY and answer
// them with xdotool, as a person would. scripts/test starts Xvfb for them.

func TestRealDialogApproveButton(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--title", h.Title("RD-approve"), "--message", "Ship v2 to production?")
	h.Click(h.Title("RD-approve"), "approve")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Remembered || !o.Res.Rendered || o.Res.AnsweredAt.IsZero() || len(o.Res.Key) != 64 {
		t.Fatalf("unexpected fields: %+v", o.Res)
	}
	h.WaitNoWindow(h.Title("RD-approve"), 30*time.Second)
}

func TestRealDialogCancelButton(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--title", h.Title("RD-cancel"), "--message", "Drop the table?")
	h.Click(h.Title("RD-cancel"), "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEscapeDenies(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--title", h.Title("RD-esc"), "--message", "Rotate the keys?")
	h.Key(h.Title("RD-esc"), "Escape")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEnterPressesCancelByDefault(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--title", h.Title("RD-enter"), "--message", "Enter must not approve")
	h.Key(h.Title("RD-enter"), "Return")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEnterApprovesWithDefaultApprove(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--default-approve", "--title", h.Title("RD-enter-ok"), "--message", "Enter approves here")
	h.Key(h.Title("RD-enter-ok"), "Return")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}

// A slow person: the caller gives up with 3, the dialog stays, the answer is
// collected by running the same command again, without a second window.
func TestRealDialogPendingThenCollect(t *testing.T) {
	h := e2e.NewRealHarness(t)
	args := []string{"--json", "--wait", "2s", "--title", h.Title("RD-pending"), "--message", "Deploy when ready?"}
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	if !o.Res.ShouldRetry || o.Res.AnsweredAt.IsZero() == false {
		t.Fatalf("pending result: %+v", o.Res)
	}
	// A caller that waited for the dialog would wait its --timeout (5 min).
	if o.Elapsed > time.Minute {
		t.Fatalf("--wait 2s returned after %s", o.Elapsed)
	}
	h.WaitWindow(h.Title("RD-pending")) // still on screen
	h.Click(h.Title("RD-pending"), "approve")
	h.WaitNoWindow(h.Title("RD-pending"), 30*time.Second)
	h.WaitAnswered()

	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("collected answer not marked remembered: %+v", o.Res)
	}
	if ws := h.Windows(h.Title("RD-pending")); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

func TestRealDialogTimeoutExpires(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--timeout", "3s", "--title", h.Title("RD-timeout"), "--message", "Nobody will answer")
	h.WaitWindow(h.Title("RD-timeout"))
	o := r.Wait(30 * time.Second)
	h.Expect(o, 5, lifecycle.StatusExpired)
	h.WaitNoWindow(h.Title("RD-timeout"), 30*time.Second)
}

func TestRealDialogConcurrentCallersShareOneWindow(t *testing.T) {
	h := e2e.NewRealHarness(t)
	args := []string{"--json", "--title", h.Title("RD-twice"), "--message", "Asked twice at once"}
	a, b := h.Start(args...), h.Start(args...)
	h.WaitWindow(h.Title("RD-twice"))
	time.Sleep(700 * time.Millisecond) // a second window would have appeared by now
	if ws := h.Windows(h.Title("RD-twice")); len(ws) != 1 {
		t.Fatalf("%d windows for one request", len(ws))
	}
	h.Click(h.Title("RD-twice"), "approve")
	h.Expect(a.Wait(30*time.Second), 0, lifecycle.StatusApproved)
	h.Expect(b.Wait(30*time.Second), 0, lifecycle.StatusApproved)
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

func TestRealDialogNoDisplay(t *testing.T) {
	h := e2e.NewRealHarness(t)
	h.Env = e2e.WithoutEnv(h.Env, "DISPLAY")
	o := h.Run("--json", "--wait", "2m", "--title", h.Title("RD-headless"), "--message", "Anyone there?")
	h.Expect(o, 4, lifecycle.StatusHeadless)
	t.Logf("no display answered 4 in %s", o.Elapsed)
	// A request that waited would wait out --wait (2 min).
	if o.Elapsed > time.Minute {
		t.Fatalf("took %s: a headless request must not wait", o.Elapsed)
	}
	if !strings.Contains(o.Stderr, "--if-headless") {
		t.Fatalf("no hint about --if-headless on stderr: %s", o.Stderr)
	}

	o = h.Run("--json", "--if-headless", "deny", "--title", h.Title("RD-headless"), "--message", "Anyone there?")
	h.Expect(o, 1, lifecycle.StatusDenied)
	o = h.Run("--json", "--if-headless", "approve", "--title", h.Title("RD-headless"), "--message", "Anyone there?")
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !strings.Contains(o.Stderr, "approved without asking") {
		t.Fatalf("a headless approval must be announced on stderr: %q", o.Stderr)
	}
	if n := h.CountEvents("headless"); n != 3 {
		t.Fatalf("history holds %d headless events, want 3", n)
	}
}

// out=$(ask-confirm ...) in bash must return at --wait while the dialog
// stays up: the holder must not keep the command substitution's pipe open.
func TestRealDialogShellCaptureReturnsAtWait(t *testing.T) {
	h := e2e.NewRealHarness(t)
	script := `out=$(ask-confirm --json --wait 2s --title "$TITLE" --message "Captured?"); echo "rc=$? $out"`
	c := exec.Command("bash", "-c", script)
	c.Env, c.Dir = append(h.Env, "TITLE="+h.Title("RD-capture")), h.Work
	start := time.Now()
	out, err := c.Output()
	e2e.Must(t, err)
	elapsed := time.Since(start)
	t.Logf("bash command substitution returned after %s", elapsed)
	if !strings.HasPrefix(string(out), "rc=3 ") || !strings.Contains(string(out), `"status":"pending"`) {
		t.Fatalf("bash printed %q", out)
	}
	// A holder that kept the pipe open keeps it until the dialog's
	// --timeout (5 min).
	if elapsed > time.Minute {
		t.Fatalf("command substitution took %s with --wait 2s", elapsed)
	}
	h.WaitWindow(h.Title("RD-capture"))
	h.Click(h.Title("RD-capture"), "cancel")
}

// A caller that leaked a pipe to ask-confirm as fd 3 and reads stdout to
// EOF must see EOF, on both pipes, when ask-confirm exits, not when the
// dialog closes.
func TestRealDialogLeakedPipeDoesNotHangCaller(t *testing.T) {
	h := e2e.NewRealHarness(t)
	leakR, leakW, err := os.Pipe()
	e2e.Must(t, err)
	defer leakR.Close()
	c := h.Command([]string{"--json", "--wait", "1s", "--title", h.Title("RD-leak"), "--message", "Leaky caller"})
	c.ExtraFiles = []*os.File{leakW}
	stdout, err := c.StdoutPipe()
	e2e.Must(t, err)
	start := time.Now()
	e2e.Must(t, c.Start())
	leakW.Close()
	eof := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(stdout); eof <- b }()
	leakEOF := make(chan struct{})
	go func() { io.Copy(io.Discard, leakR); close(leakEOF) }()
	select {
	case b := <-eof:
		if !strings.Contains(string(b), `"status":"pending"`) {
			t.Fatalf("stdout: %s", b)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("stdout did not reach EOF: the holder kept the caller's pipe")
	}
	select {
	case <-leakEOF:
	case <-time.After(20 * time.Second):
		t.Fatal("the leaked pipe did not reach EOF: the holder inherited fd 3")
	}
	t.Logf("both pipes reached EOF after %s", time.Since(start))
	c.Wait()
	h.WaitWindow(h.Title("RD-leak"))
	h.Click(h.Title("RD-leak"), "cancel")
}

// Killing the caller's whole process group must not take the dialog down;
// the answer is collected afterwards.
func TestRealDialogSurvivesCallerGroupKill(t *testing.T) {
	h := e2e.NewRealHarness(t)
	args := []string{"--json", "--title", h.Title("RD-groupkill"), "--message", "Still there?"}
	c := exec.Command("bash", "-c", `ask-confirm "$@"; echo never`, "bash")
	c.Args = append(c.Args, args...)
	c.Env, c.Dir = h.Env, h.Work
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	e2e.Must(t, c.Start())
	h.WaitWindow(h.Title("RD-groupkill"))
	e2e.Must(t, syscall.Kill(-c.Process.Pid, syscall.SIGKILL))
	c.Wait()
	time.Sleep(300 * time.Millisecond)
	h.WaitWindow(h.Title("RD-groupkill")) // the dialog outlived the group
	h.Click(h.Title("RD-groupkill"), "approve")
	h.WaitNoWindow(h.Title("RD-groupkill"), 30*time.Second)
	h.WaitAnswered()
	o := h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("answer not collected from the store: %+v", o.Res)
	}
}

// Text is shown literally: markup is not interpreted and a leading dash is
// not taken for an option, by ask-confirm or by zenity.
func TestRealDialogLiteralText(t *testing.T) {
	h := e2e.NewRealHarness(t)
	r := h.Start("--json", "--title", h.Title("RD-literal"), "--message", "--help <b>bold</b> & <span foreground=\"red\">x</span>")
	h.WaitWindow(h.Title("RD-literal"))
	h.Click(h.Title("RD-literal"), "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}

// A 5,000-line message keeps the window on the screen, its origin line
// and buttons in reach: the dialog shows the first lines and says how many
// were cut. (The window once grew past the screen's bottom.)
func TestRealDialogLongMessageFitsTheScreen(t *testing.T) {
	h := e2e.NewRealHarness(t)
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i+1)
	}
	title := h.Title("RD-long")
	r := h.Start("--json", "--title", title, "--message", strings.Join(lines, "\n"))
	w := h.WaitWindow(title)
	h.WaitStable(w)
	geo := h.Geometry(w)
	screen := strings.Fields(e2e.Xdotool(t, "getdisplaygeometry"))
	height, err := strconv.Atoi(screen[1])
	if err != nil {
		t.Fatalf("display geometry %q: %v", screen, err)
	}
	if geo["Y"] < 0 || geo["Y"]+geo["HEIGHT"] > height {
		t.Fatalf("the window spans %d to %d px, past the screen's %d", geo["Y"], geo["Y"]+geo["HEIGHT"], height)
	}
	h.Click(title, "approve")
	h.Expect(r.Wait(30*time.Second), 0, lifecycle.StatusApproved)
}
