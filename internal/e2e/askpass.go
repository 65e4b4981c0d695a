//go:build e2e && linux

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const AskpassTitle = "SSH"

// SSHAgent is an ssh-agent with one key that needs confirming, and
// ask-confirm-askpass as its SSH_ASKPASS.
type SSHAgent struct {
	H    *Harness
	Dir  string
	Sock string
	Pub  string
}

// NewSSHAgent starts ssh-agent with extra in its environment, adds a fresh
// key with ssh-add -c, and removes the private key file, so the key can
// only be used through the agent.
func NewSSHAgent(t *testing.T, h *Harness, extra ...string) *SSHAgent {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing; scripts/test installs openssh-client", tool)
		}
	}
	a := &SSHAgent{H: h, Dir: t.TempDir()}
	a.Sock, a.Pub = filepath.Join(a.Dir, "agent.sock"), filepath.Join(a.Dir, "key.pub")
	key := filepath.Join(a.Dir, "key")
	a.Run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ask-confirm test", "-f", key)

	agent := exec.Command("ssh-agent", "-D", "-a", a.Sock)
	agent.Env = append(append(append([]string{}, h.Env...), "SSH_ASKPASS="+AskpassProgram(t, h)), extra...)
	var log bytes.Buffer
	agent.Stdout, agent.Stderr = &log, &log
	Must(t, agent.Start())
	t.Cleanup(func() {
		agent.Process.Kill()
		agent.Wait()
		if t.Failed() {
			t.Logf("ssh-agent log:\n%s", log.String())
		}
	})
	Eventually(t, 30*time.Second, "the agent's socket", func() bool {
		_, err := os.Stat(a.Sock)
		return err == nil
	})
	a.Run(t, "ssh-add", "-c", key)
	Must(t, os.Remove(key))
	return a
}

// AskpassProgram links ask-confirm-askpass beside the harness's
// ask-confirm and returns its path.
func AskpassProgram(t *testing.T, h *Harness) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(h.Exe), "ask-confirm-askpass")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.Link(LookPathOrFail(t, "ask-confirm-askpass"), p); err != nil {
		Must(t, copyFile(LookPathOrFail(t, "ask-confirm-askpass"), p))
	}
	return p
}

func (a *SSHAgent) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(append([]string{}, a.H.Env...), "SSH_AUTH_SOCK="+a.Sock)
	c.Dir = a.Dir
	return c
}

func (a *SSHAgent) Run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := a.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// Sign starts ssh-keygen -Y Sign of a fresh file with the agent's key.
func (a *SSHAgent) Sign(t *testing.T, name string) *Signing {
	t.Helper()
	msg := filepath.Join(a.Dir, name)
	Must(t, os.WriteFile(msg, []byte("release "+name+"\n"), 0o600))
	s := &Signing{Msg: msg, Done: make(chan struct{})}
	s.Cmd = a.Command("ssh-keygen", "-Y", "sign", "-f", a.Pub, "-n", "file", msg)
	s.Cmd.Stdout, s.Cmd.Stderr = &s.Out, &s.Out
	Must(t, s.Cmd.Start())
	go func() { s.Err = s.Cmd.Wait(); close(s.Done) }()
	return s
}

type Signing struct {
	Cmd  *exec.Cmd
	Msg  string
	Out  bytes.Buffer
	Err  error
	Done chan struct{}
}

// Wait waits for ssh-keygen and reports whether it wrote a signature that
// verifies against the key.
func (s *Signing) Wait(t *testing.T, a *SSHAgent) (signed bool) {
	t.Helper()
	select {
	case <-s.Done:
	case <-time.After(60 * time.Second):
		s.Cmd.Process.Kill()
		<-s.Done
		t.Fatalf("ssh-keygen -Y sign did not end; output:\n%s", s.Out.String())
	}
	sig := s.Msg + ".sig"
	if _, err := os.Stat(sig); err != nil {
		if s.Err == nil {
			t.Fatalf("ssh-keygen -Y sign succeeded without a signature file:\n%s", s.Out.String())
		}
		return false
	}
	if s.Err != nil {
		t.Fatalf("ssh-keygen -Y sign failed (%v) but left %s:\n%s", s.Err, sig, s.Out.String())
	}
	check := a.Command("ssh-keygen", "-Y", "check-novalidate", "-n", "file", "-f", a.Pub, "-s", sig)
	in, err := os.Open(s.Msg)
	Must(t, err)
	defer in.Close()
	check.Stdin = in
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the signature does not verify: %v\n%s", err, out)
	}
	return true
}

// ExpectSigned has the agent make a signature named name while answer
// answers the confirmation, and fails the test unless a signature was made
// exactly when want says so.
func (a *SSHAgent) ExpectSigned(t *testing.T, name string, want bool, answer func()) {
	t.Helper()
	s := a.Sign(t, name)
	answer()
	switch signed := s.Wait(t, a); {
	case want && !signed:
		t.Fatalf("%s: no signature:\n%s", name, s.Out.String())
	case !want && signed:
		t.Fatalf("%s: a signature was made", name)
	}
}
