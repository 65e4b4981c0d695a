//go:build e2e && unix

package cmd

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// These tests show real zenity dialogs on the X server in DISPLAY and answer
// them with xdotool, as a person would. scripts/test starts Xvfb for them.

func TestRealDialogApproveButton(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--title", h.title("RD-approve"), "--message", "Ship v2 to production?")
	h.click(h.title("RD-approve"), "approve")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Remembered || !o.res.Rendered || o.res.AnsweredAt.IsZero() || len(o.res.Key) != 64 {
		t.Fatalf("unexpected fields: %+v", o.res)
	}
	h.waitNoWindow(h.title("RD-approve"), 30*time.Second)
}

func TestRealDialogCancelButton(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--title", h.title("RD-cancel"), "--message", "Drop the table?")
	h.click(h.title("RD-cancel"), "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEscapeDenies(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--title", h.title("RD-esc"), "--message", "Rotate the keys?")
	h.key(h.title("RD-esc"), "Escape")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEnterPressesCancelByDefault(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--title", h.title("RD-enter"), "--message", "Enter must not approve")
	h.key(h.title("RD-enter"), "Return")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}

func TestRealDialogEnterApprovesWithDefaultApprove(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--default-approve", "--title", h.title("RD-enter-ok"), "--message", "Enter approves here")
	h.key(h.title("RD-enter-ok"), "Return")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
}

// A slow person: the caller gives up with 3, the dialog stays, the answer is
// collected by running the same command again, without a second window.
func TestRealDialogPendingThenCollect(t *testing.T) {
	h := newRealHarness(t)
	args := []string{"--json", "--wait", "2s", "--title", h.title("RD-pending"), "--message", "Deploy when ready?"}
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	if !o.res.ShouldRetry || o.res.AnsweredAt.IsZero() == false {
		t.Fatalf("pending result: %+v", o.res)
	}
	// A caller that waited for the dialog would wait its --timeout (5 min).
	if o.elapsed > time.Minute {
		t.Fatalf("--wait 2s returned after %s", o.elapsed)
	}
	h.waitWindow(h.title("RD-pending")) // still on screen
	h.click(h.title("RD-pending"), "approve")
	h.waitNoWindow(h.title("RD-pending"), 30*time.Second)
	h.waitAnswered()

	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("collected answer not marked remembered: %+v", o.res)
	}
	if ws := h.windows(h.title("RD-pending")); len(ws) != 0 {
		t.Fatalf("collecting the answer opened a window: %v", ws)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

func TestRealDialogTimeoutExpires(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--timeout", "3s", "--title", h.title("RD-timeout"), "--message", "Nobody will answer")
	h.waitWindow(h.title("RD-timeout"))
	o := r.wait(30 * time.Second)
	h.expect(o, 5, lifecycle.StatusExpired)
	h.waitNoWindow(h.title("RD-timeout"), 30*time.Second)
}

func TestRealDialogConcurrentCallersShareOneWindow(t *testing.T) {
	h := newRealHarness(t)
	args := []string{"--json", "--title", h.title("RD-twice"), "--message", "Asked twice at once"}
	a, b := h.start(args...), h.start(args...)
	h.waitWindow(h.title("RD-twice"))
	time.Sleep(700 * time.Millisecond) // a second window would have appeared by now
	if ws := h.windows(h.title("RD-twice")); len(ws) != 1 {
		t.Fatalf("%d windows for one request", len(ws))
	}
	h.click(h.title("RD-twice"), "approve")
	h.expect(a.wait(30*time.Second), 0, lifecycle.StatusApproved)
	h.expect(b.wait(30*time.Second), 0, lifecycle.StatusApproved)
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

func TestRealDialogNoDisplay(t *testing.T) {
	h := newRealHarness(t)
	h.env = withoutEnv(h.env, "DISPLAY")
	o := h.run("--json", "--wait", "2m", "--title", h.title("RD-headless"), "--message", "Anyone there?")
	h.expect(o, 4, lifecycle.StatusHeadless)
	t.Logf("no display answered 4 in %s", o.elapsed)
	// A request that waited would wait out --wait (2 min).
	if o.elapsed > time.Minute {
		t.Fatalf("took %s: a headless request must not wait", o.elapsed)
	}
	if !strings.Contains(o.stderr, "--if-headless") {
		t.Fatalf("no hint about --if-headless on stderr: %s", o.stderr)
	}

	o = h.run("--json", "--if-headless", "deny", "--title", h.title("RD-headless"), "--message", "Anyone there?")
	h.expect(o, 1, lifecycle.StatusDenied)
	o = h.run("--json", "--if-headless", "approve", "--title", h.title("RD-headless"), "--message", "Anyone there?")
	h.expect(o, 0, lifecycle.StatusApproved)
	if !strings.Contains(o.stderr, "approved without asking") {
		t.Fatalf("a headless approval must be announced on stderr: %q", o.stderr)
	}
	if n := h.countEvents("headless"); n != 3 {
		t.Fatalf("history holds %d headless events, want 3", n)
	}
}

// out=$(ask-confirm ...) in bash must return at --wait while the dialog
// stays up: the holder must not keep the command substitution's pipe open.
func TestRealDialogShellCaptureReturnsAtWait(t *testing.T) {
	h := newRealHarness(t)
	script := `out=$(ask-confirm --json --wait 2s --title "$TITLE" --message "Captured?"); echo "rc=$? $out"`
	c := exec.Command("bash", "-c", script)
	c.Env, c.Dir = append(h.env, "TITLE="+h.title("RD-capture")), h.work
	start := time.Now()
	out, err := c.Output()
	must(t, err)
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
	h.waitWindow(h.title("RD-capture"))
	h.click(h.title("RD-capture"), "cancel")
}

// A caller that leaked a pipe to ask-confirm as fd 3 and reads stdout to
// EOF must see EOF, on both pipes, when ask-confirm exits, not when the
// dialog closes.
func TestRealDialogLeakedPipeDoesNotHangCaller(t *testing.T) {
	h := newRealHarness(t)
	leakR, leakW, err := os.Pipe()
	must(t, err)
	defer leakR.Close()
	c := h.command([]string{"--json", "--wait", "1s", "--title", h.title("RD-leak"), "--message", "Leaky caller"})
	c.ExtraFiles = []*os.File{leakW}
	stdout, err := c.StdoutPipe()
	must(t, err)
	start := time.Now()
	must(t, c.Start())
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
	h.waitWindow(h.title("RD-leak"))
	h.click(h.title("RD-leak"), "cancel")
}

// Killing the caller's whole process group must not take the dialog down;
// the answer is collected afterwards.
func TestRealDialogSurvivesCallerGroupKill(t *testing.T) {
	h := newRealHarness(t)
	args := []string{"--json", "--title", h.title("RD-groupkill"), "--message", "Still there?"}
	c := exec.Command("bash", "-c", `ask-confirm "$@"; echo never`, "bash")
	c.Args = append(c.Args, args...)
	c.Env, c.Dir = h.env, h.work
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(t, c.Start())
	h.waitWindow(h.title("RD-groupkill"))
	must(t, syscall.Kill(-c.Process.Pid, syscall.SIGKILL))
	c.Wait()
	time.Sleep(300 * time.Millisecond)
	h.waitWindow(h.title("RD-groupkill")) // the dialog outlived the group
	h.click(h.title("RD-groupkill"), "approve")
	h.waitNoWindow(h.title("RD-groupkill"), 30*time.Second)
	h.waitAnswered()
	o := h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered {
		t.Fatalf("answer not collected from the store: %+v", o.res)
	}
}

// Text is shown literally: markup is not interpreted and a leading dash is
// not taken for an option, by ask-confirm or by zenity.
func TestRealDialogLiteralText(t *testing.T) {
	h := newRealHarness(t)
	r := h.start("--json", "--title", h.title("RD-literal"), "--message", "--help <b>bold</b> & <span foreground=\"red\">x</span>")
	h.waitWindow(h.title("RD-literal"))
	h.click(h.title("RD-literal"), "approve")
	h.expect(r.wait(30*time.Second), 0, lifecycle.StatusApproved)
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
