//go:build e2e && linux

package askpass_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/syncbuf"
)

// These tests run Debian's OpenSSH against ask-confirm-askpass with real
// dialogs: ssh-agent asks it to confirm each use of a key added with
// ssh-add -c, and ssh-keygen -Y sign uses that key through the agent. Only
// a click on Allow makes a signature. The dialogs are all titled SSH, so
// these tests run one after another.

// The real ssh-agent flow: Allow makes a valid signature; Cancel, Esc and
// expiry make none; and each use of the key is asked anew, even right
// after an approval.
func TestAskpassConfirmsKeyUseThroughSSHAgent(t *testing.T) {
	h := e2e.NewRealHarness(t)
	a := e2e.NewSSHAgent(t, h)

	a.ExpectSigned(t, "approved", true, func() { h.Click(e2e.AskpassTitle, "approve") })
	a.ExpectSigned(t, "denied", false, func() { h.Click(e2e.AskpassTitle, "cancel") })
	a.ExpectSigned(t, "escaped", false, func() { h.Key(e2e.AskpassTitle, "Escape") })
	if n := h.CountEvents("answered"); n != 3 {
		t.Fatalf("%d answered events for three key uses, want 3", n)
	}
	// Each dialog said who asked: ssh-agent, in the directory it was
	// started in (this test's, as -D keeps it).
	wd, err := os.Getwd()
	e2e.Must(t, err)
	home, _ := os.UserHomeDir()
	want := dialog.Origin("ssh-agent", wd, home)
	requested := 0
	for _, e := range h.History() {
		if e["event"] != "requested" {
			continue
		}
		if requested++; e["origin"] != want {
			t.Fatalf("a dialog said it was asked by %q, want %q", e["origin"], want)
		}
	}
	if requested < 3 {
		t.Fatalf("%d requested events for three key uses", requested)
	}
}

// A confirmation nobody answers expires (here after the 3 s the person
// set in the agent's environment) and makes no signature.
func TestAskpassExpiredConfirmationSignsNothing(t *testing.T) {
	h := e2e.NewRealHarness(t)
	a := e2e.NewSSHAgent(t, h, "ASK_CONFIRM_ASKPASS_TIMEOUT=3s")
	s := a.Sign(t, "unanswered")
	h.WaitWindow(e2e.AskpassTitle)
	if s.Wait(t, a) {
		t.Fatal("an unanswered confirmation made a signature")
	}
	h.WaitNoWindow(e2e.AskpassTitle, 30*time.Second)
	if n := h.CountEvents("expired"); n != 1 {
		t.Fatalf("%d expired events, want 1", n)
	}
}

// A passphrase prompt is refused at once, without a window: ssh-add,
// forced to use the askpass program, cannot add a key with a passphrase.
func TestAskpassRefusesPassphrasePrompt(t *testing.T) {
	h := e2e.NewRealHarness(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	keygen := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "correct horse", "-f", key)
	if out, err := keygen.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	agent := exec.Command("ssh-agent", "-D", "-a", filepath.Join(dir, "agent.sock"))
	agent.Env = h.Env
	e2e.Must(t, agent.Start())
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	e2e.Eventually(t, 30*time.Second, "the agent's socket", func() bool {
		_, err := os.Stat(filepath.Join(dir, "agent.sock"))
		return err == nil
	})

	add := exec.Command("ssh-add", key)
	add.Env = append(append([]string{}, h.Env...), "SSH_AUTH_SOCK="+filepath.Join(dir, "agent.sock"),
		"SSH_ASKPASS="+e2e.AskpassProgram(t, h), "SSH_ASKPASS_REQUIRE=force")
	add.Stdin = nil
	add.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal to fall back to
	var out bytes.Buffer
	add.Stdout, add.Stderr = &out, &out
	start := time.Now()
	err := add.Run()
	if err == nil {
		t.Fatalf("ssh-add added a passphrase-protected key:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "refusing a passphrase prompt") {
		t.Fatalf("ssh-add's output lacks the refusal:\n%s", out.String())
	}
	if len(h.Windows(e2e.AskpassTitle)) != 0 || time.Since(start) > time.Minute {
		t.Fatalf("the refusal took %s or showed a window", time.Since(start))
	}
	if n := h.CountEvents("requested"); n != 0 {
		t.Fatalf("a refused passphrase prompt made %d requests", n)
	}
}

// The "none" notice shows the prompt in a window until OpenSSH ends the
// program with SIGTERM; then the window is gone and the program exits 0.
func TestAskpassNoticeClosedBySIGTERM(t *testing.T) {
	h := e2e.NewRealHarness(t)
	notice := exec.Command(e2e.AskpassProgram(t, h), "Confirm user presence for key ED25519-SK SHA256:"+h.Suffix)
	notice.Env = append(append([]string{}, h.Env...), "SSH_ASKPASS_PROMPT=none")
	var out syncbuf.Buffer
	notice.Stdout, notice.Stderr = &out, &out
	notice.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its zenity goes with it
	e2e.Must(t, notice.Start())
	t.Cleanup(func() { _ = syscall.Kill(-notice.Process.Pid, syscall.SIGKILL) })
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = notice.Wait(); close(exited) }()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// Where the program was: its processes, and its goroutines (a Go
		// program prints them on SIGQUIT), before it is ended.
		ps, _ := exec.Command("ps", "-o", "pid,ppid,stat,etime,wchan:20,args", "--ppid", strconv.Itoa(notice.Process.Pid), "-p", strconv.Itoa(notice.Process.Pid)).CombinedOutput()
		t.Logf("the notice program's processes:\n%s", ps)
		_ = notice.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = notice.Process.Kill()
			<-exited
		}
		t.Logf("the notice program ended (%v); its output:\n%s", waitErr, out.String())
	})
	h.WaitStable(h.WaitWindow(e2e.AskpassTitle))
	select {
	case <-exited:
		t.Fatalf("the notice ended by itself (%v):\n%s", waitErr, out.String())
	case <-time.After(time.Second):
	}
	e2e.Must(t, notice.Process.Signal(syscall.SIGTERM))
	select {
	case <-exited:
		if waitErr != nil {
			t.Fatalf("the notice exited with %v after SIGTERM:\n%s", waitErr, out.String())
		}
	case <-time.After(10 * time.Second):
		notice.Process.Kill()
		t.Fatal("the notice did not exit on SIGTERM")
	}
	h.WaitNoWindow(e2e.AskpassTitle, 30*time.Second)
}
