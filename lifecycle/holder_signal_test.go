//go:build unix

package lifecycle

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A dialog program that died of a stop signal, with the same signal
// reaching the holder, is the holder's stop (its host stopped the whole
// tree), not a failed dialog; without that signal, or for any other
// ending, the program's own error stands.
func TestStoppedWithTree(t *testing.T) {
	died := func(sig string) error {
		err := exec.Command("sh", "-c", "kill -"+sig+" $$").Run()
		if err == nil {
			t.Fatalf("sh survived SIG%s", sig)
		}
		return err
	}
	cases := []struct {
		name    string
		err     error
		signal  bool
		stopped bool
	}{
		{"SIGTERM, and the holder's own", died("TERM"), true, true},
		{"SIGHUP, and the holder's own", died("HUP"), true, true},
		{"SIGTERM alone", died("TERM"), false, false},
		{"SIGKILL", died("KILL"), true, false},
		{"an exit code", exec.Command("sh", "-c", "exit 1").Run(), true, false},
		{"no error", nil, true, false},
		{"another error", errors.New("no window"), true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			signals := make(chan os.Signal, 1)
			if c.signal {
				signals <- syscall.SIGTERM
			}
			stopped := false
			stoppedWithTree(c.err, signals, 50*time.Millisecond, func() { stopped = true })
			if stopped != c.stopped {
				t.Fatalf("stopped %v, want %v (error %v)", stopped, c.stopped, c.err)
			}
		})
	}
}
