//go:build e2e && linux

package cmd_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// A request made with the phone's setup in ASK_CONFIRM_REMOTE hands the
// setup to none of the processes it starts: while it waits, the
// environment of its holder, the holder's dialog and phone programs and
// the phone programs' hub, each read from /proc, names neither the
// variable nor a token or the fleet's secret, which the caller's, as the
// test started it, holds. The holder still asks the phone as that setup
// says (mode also, with no remote.json), and the dialog's answer ends the
// request as before.
func TestSetupEnvReachesNoStartedProcess(t *testing.T) {
	t.Parallel() // scripted dialogs
	s := ntfytest.New(t)
	exporter := headless(e2e.NewFakeHarness(t))
	exporter.SetUpPhone(s, "also")
	exported := exporter.Run("remote", "export")
	if exported.Code != 0 {
		t.Fatalf("remote export: exit %d %s", exported.Code, exported.Stderr)
	}
	setup := strings.TrimSpace(exported.Stdout)
	var set remote.Settings
	e2e.Must(t, json.Unmarshal([]byte(setup), &set))
	secrets := map[string]string{remote.SetupEnv: remote.SetupEnv, "the asking token": set.Token,
		"the answer token": set.AnswerToken, "the fleet's secret": set.Secret}
	for what, v := range secrets {
		if len(v) < 8 {
			t.Fatalf("the exported setup has no %s: %s", what, setup)
		}
	}

	// A machine with a display (the scripted zenity), given the setup in
	// the environment alone.
	h := e2e.NewFakeHarness(t)
	h.Env = append(h.Env, remote.SetupEnv+"="+setup)
	phone := ntfytest.NewPhone(t, s)
	r := h.Start("--json", "--title", "Deploy", "--message", "Ship it?", "--wait", "2m")
	h.WaitShown(1)
	if m := phone.Await(1); !strings.HasPrefix(m.Message, "Ship it?") {
		t.Fatalf("the phone shows %+v", m)
	}

	// Every process of the request: those whose environment names the
	// harness's state directory, as the harness finds them at cleanup.
	mark := []byte("\x00XDG_STATE_HOME=" + filepath.Join(h.Dir, "state") + "\x00")
	caller := r.Cmd.Process.Pid
	var kinds map[string][]int
	e2e.Eventually(t, 30*time.Second, "the caller, the holder, the dialog, the phone's program and its hub", func() bool {
		kinds = map[string][]int{}
		ents, err := os.ReadDir("/proc")
		e2e.Must(t, err)
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			env, err1 := os.ReadFile("/proc/" + e.Name() + "/environ")
			argv, err2 := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err1 != nil || err2 != nil || !bytes.Contains(append([]byte{0}, env...), mark) {
				continue
			}
			args := strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00")
			kind := filepath.Base(args[0])
			switch {
			case pid == caller:
				kind = "caller"
			case len(args) > 1 && args[1] == "hold":
				kind = "holder"
			case len(args) > 1 && kind == "ask-confirm-phone":
				kind += " " + args[1]
			}
			kinds[kind] = append(kinds[kind], pid)
		}
		for _, k := range []string{"caller", "holder", "zenity", "ask-confirm-phone ask", "ask-confirm-phone hub"} {
			if len(kinds[k]) == 0 {
				return false
			}
		}
		return true
	})
	t.Logf("the request's processes: %v", kinds)
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		for _, pid := range kinds[kind] {
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			e2e.Must(t, err)
			for _, what := range slices.Sorted(maps.Keys(secrets)) {
				has := bytes.Contains(env, []byte(secrets[what]))
				switch {
				case kind == "caller" && !has:
					// The test gave it the setup: /proc shows the
					// environment a process was started with.
					t.Errorf("the caller's environment (PID %d) does not hold %s: this test reads nothing", pid, what)
				case kind != "caller" && has:
					t.Errorf("the environment of %s (PID %d) holds %s", kind, pid, what)
				}
			}
		}
	}

	h.Answer("approve")
	o := r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if f := phone.Await(2); !strings.Contains(f.Message, "pproved in the dialog at ") || len(f.Actions) != 0 {
		t.Fatalf("the phone's follow-up is %q with %d buttons, want the dialog's approval", f.Message, len(f.Actions))
	}
	for _, e := range h.History() {
		b, _ := json.Marshal(e)
		for what, v := range secrets {
			if what != remote.SetupEnv && strings.Contains(string(b), v) {
				t.Fatalf("the history holds %s: %s", what, b)
			}
		}
	}
}
