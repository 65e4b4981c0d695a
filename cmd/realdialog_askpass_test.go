//go:build e2e && linux

package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run Debian's OpenSSH against ask-confirm-askpass with real
// dialogs: ssh-agent asks it to confirm each use of a key added with
// ssh-add -c, and ssh-keygen -Y sign uses that key through the agent. Only
// a click on Allow makes a signature. The dialogs are all titled SSH, so
// these tests run one after another.

const askpassTitle = "SSH"

// sshAgent is an ssh-agent with one key that needs confirming, and
// ask-confirm-askpass as its SSH_ASKPASS.
type sshAgent struct {
	h    *harness
	dir  string
	sock string
	pub  string
}

// newSSHAgent starts ssh-agent with extra in its environment, adds a fresh
// key with ssh-add -c, and removes the private key file, so the key can
// only be used through the agent.
func newSSHAgent(t *testing.T, h *harness, extra ...string) *sshAgent {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing; scripts/test installs openssh-client", tool)
		}
	}
	a := &sshAgent{h: h, dir: t.TempDir()}
	a.sock, a.pub = filepath.Join(a.dir, "agent.sock"), filepath.Join(a.dir, "key.pub")
	key := filepath.Join(a.dir, "key")
	a.run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ask-confirm test", "-f", key)

	agent := exec.Command("ssh-agent", "-D", "-a", a.sock)
	agent.Env = append(append(append([]string{}, h.env...), "SSH_ASKPASS="+askpassProgram(t, h)), extra...)
	var log bytes.Buffer
	agent.Stdout, agent.Stderr = &log, &log
	must(t, agent.Start())
	t.Cleanup(func() {
		agent.Process.Kill()
		agent.Wait()
		if t.Failed() {
			t.Logf("ssh-agent log:\n%s", log.String())
		}
	})
	eventually(t, 30*time.Second, "the agent's socket", func() bool {
		_, err := os.Stat(a.sock)
		return err == nil
	})
	a.run(t, "ssh-add", "-c", key)
	must(t, os.Remove(key))
	return a
}

// askpassProgram links ask-confirm-askpass beside the harness's
// ask-confirm and returns its path.
func askpassProgram(t *testing.T, h *harness) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(h.exe), "ask-confirm-askpass")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.Link(lookPathOrFail(t, "ask-confirm-askpass"), p); err != nil {
		must(t, copyFile(lookPathOrFail(t, "ask-confirm-askpass"), p))
	}
	return p
}

func (a *sshAgent) command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(append([]string{}, a.h.env...), "SSH_AUTH_SOCK="+a.sock)
	c.Dir = a.dir
	return c
}

func (a *sshAgent) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := a.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// sign starts ssh-keygen -Y sign of a fresh file with the agent's key.
func (a *sshAgent) sign(t *testing.T, name string) *signing {
	t.Helper()
	msg := filepath.Join(a.dir, name)
	must(t, os.WriteFile(msg, []byte("release "+name+"\n"), 0o600))
	s := &signing{msg: msg, done: make(chan struct{})}
	s.cmd = a.command("ssh-keygen", "-Y", "sign", "-f", a.pub, "-n", "file", msg)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	must(t, s.cmd.Start())
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	return s
}

type signing struct {
	cmd  *exec.Cmd
	msg  string
	out  bytes.Buffer
	err  error
	done chan struct{}
}

// wait waits for ssh-keygen and reports whether it wrote a signature that
// verifies against the key.
func (s *signing) wait(t *testing.T, a *sshAgent) (signed bool) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Fatalf("ssh-keygen -Y sign did not end; output:\n%s", s.out.String())
	}
	sig := s.msg + ".sig"
	if _, err := os.Stat(sig); err != nil {
		if s.err == nil {
			t.Fatalf("ssh-keygen -Y sign succeeded without a signature file:\n%s", s.out.String())
		}
		return false
	}
	if s.err != nil {
		t.Fatalf("ssh-keygen -Y sign failed (%v) but left %s:\n%s", s.err, sig, s.out.String())
	}
	check := a.command("ssh-keygen", "-Y", "check-novalidate", "-n", "file", "-f", a.pub, "-s", sig)
	in, err := os.Open(s.msg)
	must(t, err)
	defer in.Close()
	check.Stdin = in
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the signature does not verify: %v\n%s", err, out)
	}
	return true
}

// The real ssh-agent flow: Allow makes a valid signature; Cancel, Esc and
// expiry make none; and each use of the key is asked anew, even right
// after an approval.
func TestAskpassConfirmsKeyUseThroughSSHAgent(t *testing.T) {
	h := newRealHarness(t)
	a := newSSHAgent(t, h)

	s := a.sign(t, "approved")
	h.click(askpassTitle, "approve")
	if !s.wait(t, a) {
		t.Fatalf("Allow made no signature:\n%s", s.out.String())
	}

	s = a.sign(t, "denied")
	h.click(askpassTitle, "cancel")
	if s.wait(t, a) {
		t.Fatal("Deny right after an approval made a signature")
	}

	s = a.sign(t, "escaped")
	h.key(askpassTitle, "Escape")
	if s.wait(t, a) {
		t.Fatal("Esc made a signature")
	}
	if n := h.countEvents("answered"); n != 3 {
		t.Fatalf("%d answered events for three key uses, want 3", n)
	}
}

// A confirmation nobody answers expires (here after the 3 s the person
// set in the agent's environment) and makes no signature.
func TestAskpassExpiredConfirmationSignsNothing(t *testing.T) {
	h := newRealHarness(t)
	a := newSSHAgent(t, h, "ASK_CONFIRM_ASKPASS_TIMEOUT=3s")
	s := a.sign(t, "unanswered")
	h.waitWindow(askpassTitle)
	if s.wait(t, a) {
		t.Fatal("an unanswered confirmation made a signature")
	}
	h.waitNoWindow(askpassTitle, 30*time.Second)
	if n := h.countEvents("expired"); n != 1 {
		t.Fatalf("%d expired events, want 1", n)
	}
}

// A passphrase prompt is refused at once, without a window: ssh-add,
// forced to use the askpass program, cannot add a key with a passphrase.
func TestAskpassRefusesPassphrasePrompt(t *testing.T) {
	h := newRealHarness(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	keygen := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "correct horse", "-f", key)
	if out, err := keygen.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	agent := exec.Command("ssh-agent", "-D", "-a", filepath.Join(dir, "agent.sock"))
	agent.Env = h.env
	must(t, agent.Start())
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	eventually(t, 30*time.Second, "the agent's socket", func() bool {
		_, err := os.Stat(filepath.Join(dir, "agent.sock"))
		return err == nil
	})

	add := exec.Command("ssh-add", key)
	add.Env = append(append([]string{}, h.env...), "SSH_AUTH_SOCK="+filepath.Join(dir, "agent.sock"),
		"SSH_ASKPASS="+askpassProgram(t, h), "SSH_ASKPASS_REQUIRE=force")
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
	if len(h.windows(askpassTitle)) != 0 || time.Since(start) > time.Minute {
		t.Fatalf("the refusal took %s or showed a window", time.Since(start))
	}
	if n := h.countEvents("requested"); n != 0 {
		t.Fatalf("a refused passphrase prompt made %d requests", n)
	}
}

// The "none" notice shows the prompt in a window until OpenSSH ends the
// program with SIGTERM; then the window is gone and the program exits 0.
func TestAskpassNoticeClosedBySIGTERM(t *testing.T) {
	h := newRealHarness(t)
	notice := exec.Command(askpassProgram(t, h), "Confirm user presence for key ED25519-SK SHA256:"+h.suffix)
	notice.Env = append(append([]string{}, h.env...), "SSH_ASKPASS_PROMPT=none")
	var out bytes.Buffer
	notice.Stdout, notice.Stderr = &out, &out
	must(t, notice.Start())
	done := make(chan error, 1)
	go func() { done <- notice.Wait() }()
	h.waitStable(h.waitWindow(askpassTitle))
	select {
	case err := <-done:
		t.Fatalf("the notice ended by itself (%v):\n%s", err, out.String())
	case <-time.After(time.Second):
	}
	must(t, notice.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the notice exited with %v after SIGTERM:\n%s", err, out.String())
		}
	case <-time.After(10 * time.Second):
		notice.Process.Kill()
		t.Fatal("the notice did not exit on SIGTERM")
	}
	h.waitNoWindow(askpassTitle, 30*time.Second)
}
