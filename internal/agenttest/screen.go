//go:build unix

package agenttest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Screen is an agent's interactive screen in a terminal of its own (a
// tmux server of the test's), read and typed into as a person would.
type Screen struct {
	t    *testing.T
	sock string
}

// StartScreen runs argv in dir in a new 160×50 terminal, with exactly env
// as its environment. The terminal, and all in it, ends with the test.
func StartScreen(t *testing.T, dir string, env []string, argv ...string) *Screen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is missing; scripts/test installs it")
	}
	s := &Screen{t: t, sock: filepath.Join(t.TempDir(), "tmux")}
	args := append([]string{"new-session", "-d", "-x", "160", "-y", "50", "-c", dir, "env", "-i"}, env...)
	s.tmux(append(args, argv...)...)
	pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		t.Fatalf("the terminal's program: %v", err)
	}
	t.Cleanup(func() {
		// The program leads a process group of its own: it and what it
		// started end before the test's directories are removed.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	})
	return s
}

func (s *Screen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Text is what the screen shows now.
func (s *Screen) Text() string {
	s.t.Helper()
	return s.tmux("capture-pane", "-p")
}

// WaitFor waits until the screen shows text and fails the test, showing
// the screen, if it does not within d.
func (s *Screen) WaitFor(text string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.Text()
		if strings.Contains(screen, text) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("after %s the screen does not show %q:\n%s", d, text, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// KeysUntil types keys until the screen shows text, at most five times a
// few seconds apart: a terminal program may drop a key that comes while it
// redraws. Keys that did their work once must do none again.
func (s *Screen) KeysUntil(text string, keys ...string) {
	s.t.Helper()
	s.keysUntil(func(screen string) bool { return strings.Contains(screen, text) }, "shows "+strconv.Quote(text), keys)
}

// KeysUntilGone is KeysUntil for text that the keys take off the screen.
func (s *Screen) KeysUntilGone(text string, keys ...string) {
	s.t.Helper()
	s.keysUntil(func(screen string) bool { return !strings.Contains(screen, text) }, "still shows "+strconv.Quote(text), keys)
}

func (s *Screen) keysUntil(done func(string) bool, what string, keys []string) {
	s.t.Helper()
	for try := 0; try < 5; try++ {
		s.Keys(keys...)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if done(s.Text()) {
				return
			}
		}
	}
	if strings.HasPrefix(what, "shows ") {
		what = "does not show " + strings.TrimPrefix(what, "shows ")
	}
	s.t.Fatalf("after %q five times the screen %s:\n%s", keys, what, s.Text())
}

// Keys types keys, in tmux's names (Enter, Escape, Down, or text).
func (s *Screen) Keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys"}, keys...)...)
}

// StartClaudeScreen runs Claude Code's interactive screen with args in dir,
// as StartClaude runs claude -p: home as its HOME, env added to its
// environment, and the model server m as its only reachable address. Its
// first-run screens (the look, trusting the folder) are answered in
// home's ~/.claude.json as a person who went through them once would have.
func StartClaudeScreen(t *testing.T, m *Model, home, dir string, env []string, args ...string) *Screen {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "theme": "dark",
		"projects": map[string]any{dir: map[string]any{"hasTrustDialogAccepted": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(claudeEnv(t, m, home, env), "TERM=xterm-256color")
	return StartScreen(t, dir, env, append([]string{Claude(t)}, args...)...)
}
