//go:build e2e && linux

package cmd_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// readOnly makes every ask-confirm h runs (and so the holders it starts)
// run in a mount namespace of its own in which each of dirs, which exist,
// is mounted read-only onto itself: a read-only file system, which stops
// root too, as permission bits do not. Linux's mount namespaces
// (unshare -m as root, unshare -rm otherwise); where they cannot be made,
// the test fails under ASK_CONFIRM_E2E=require and skips otherwise.
func readOnly(t *testing.T, h *e2e.Harness, dirs ...string) {
	t.Helper()
	unshare, errU := exec.LookPath("unshare")
	mount, errM := exec.LookPath("mount")
	flags := "-m"
	if os.Geteuid() != 0 {
		flags = "-rm"
	}
	if errU == nil && errM == nil {
		errU = exec.Command(unshare, flags, mount, "--bind", h.Dir, h.Dir).Run()
	}
	if errU != nil || errM != nil {
		msg := fmt.Sprintf("a read-only file system needs unshare and mount, and a mount namespace (%v, %v)", errU, errM)
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	inner := "#!/bin/sh\nset -e\n"
	for _, d := range dirs {
		inner += fmt.Sprintf("%[1]s --bind %[2]s %[2]s\n%[1]s -o remount,ro,bind %[2]s %[2]s\n", e2e.ShellQuote(mount), e2e.ShellQuote(d))
	}
	inner += "exec " + e2e.ShellQuote(h.Exe) + ` "$@"` + "\n"
	innerPath := filepath.Join(h.Dir, "ro-inner.sh")
	e2e.Must(t, os.WriteFile(innerPath, []byte(inner), 0o700))
	outer := filepath.Join(h.Dir, "ro-ask-confirm")
	e2e.Must(t, os.WriteFile(outer, []byte("#!/bin/sh\nexec "+e2e.ShellQuote(unshare)+" "+flags+" "+e2e.ShellQuote(innerPath)+` "$@"`+"\n"), 0o700))
	h.Exe = outer
}

// withPhone hands h the phone's setup in ASK_CONFIRM_REMOTE, as a CI job
// is given it, asked where nobody can be asked here (mode fallback).
func withPhone(t *testing.T, h *e2e.Harness, c remote.Config) {
	t.Helper()
	line, err := remote.Export(remote.Settings{Config: c, Mode: remote.ModeFallback})
	e2e.Must(t, err)
	h.Env = append(h.Env, remote.SetupEnv+"="+line)
}

// closedPort is a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	e2e.Must(t, err)
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// doctor predicts what a request would do on this machine: on each of
// these machines, doctor and a request run in the same environment (the
// terminal turned off, so that the machine, not the test's terminal,
// decides), and the request ends with the code doctor exits with, which
// doctor's help lists; where doctor says a person can be asked, the
// request reaches one, who approves. Each machine is one that doctor once
// misjudged, or a control.
func TestDoctorPredictsARequest(t *testing.T) {
	help := e2e.NewHarness(t)
	help.Exe = e2e.LookPathOrFail(t, "ask-confirm")
	helpText := strings.Join(strings.Fields(help.Run("doctor", "--help").Stdout), " ")

	for _, m := range []struct {
		name string
		// machine makes the harness, and returns what answers where
		// doctor says a person can be asked (nil where nobody can).
		machine func(t *testing.T) (*e2e.Harness, func(*e2e.Harness))
		code    lifecycle.ExitCode
		// doctorSays and requestSays are in each one's stderr or report;
		// neither says doctorNot.
		doctorSays, requestSays []string
		doctorNot               string
	}{
		{
			name: "a display and a dialog program",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				return e2e.NewFakeHarness(t), approveInTheDialog
			},
		},
		{
			name: "no display",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				return noDisplay(t), nil
			},
			code:        lifecycle.ExitHeadless,
			doctorSays:  []string{"nobody can be asked: no display"},
			requestSays: []string{"nobody can be asked: no display"},
		},
		{
			// Issue 44, item 7: doctor's exit 6 is its help's too.
			name: "a display and no dialog program",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := e2e.NewFakeHarness(t)
				h.Env = append(h.Env, "PATH="+t.TempDir())
				return h, nil
			},
			code:        lifecycle.ExitFailed,
			doctorSays:  []string{"the dialog could not be shown: ", "hint: install zenity"},
			requestSays: []string{"the dialog could not be shown: ", "hint: install zenity"},
		},
		{
			// Item 8: every request exits 8, and doctor said "yes".
			name: "a read-only HOME",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := e2e.NewFakeHarness(t)
				home := inHome(t, h)
				readOnly(t, h, home)
				return h, nil
			},
			code:        lifecycle.ExitInternal,
			doctorSays:  []string{"read-only file system", "hint: check the permissions and free space of HOME/.local/state/ask-confirm,"},
			requestSays: []string{"read-only file system", "hint: check the permissions and free space of HOME/.local/state/ask-confirm,"},
		},
		{
			// Nobody is asked, so nothing is written: 4 all the same.
			name: "a read-only HOME and no display",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := noDisplay(t)
				readOnly(t, h, inHome(t, h))
				return h, nil
			},
			code:        lifecycle.ExitHeadless,
			doctorSays:  []string{"nobody can be asked: no display"},
			requestSays: []string{"nobody can be asked: no display"},
		},
		{
			// Item 8, and item 16: the hint names the state directory,
			// not the cache.
			name: "a read-only state directory",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := e2e.NewFakeHarness(t)
				state := filepath.Join(h.Dir, "state", "ask-confirm")
				e2e.Must(t, os.MkdirAll(filepath.Join(state, "locks"), 0o700))
				e2e.Must(t, os.WriteFile(filepath.Join(state, "history.jsonl"), nil, 0o600))
				readOnly(t, h, state)
				return h, nil
			},
			code:        lifecycle.ExitInternal,
			doctorSays:  []string{"read-only file system", "hint: check the permissions and free space of DIR/state/ask-confirm,"},
			requestSays: []string{"read-only file system", "hint: check the permissions and free space of DIR/state/ask-confirm,"},
		},
		{
			name: "a read-only answers directory",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := e2e.NewFakeHarness(t)
				cache := filepath.Join(h.Dir, "cache", "ask-confirm")
				e2e.Must(t, os.MkdirAll(cache, 0o700))
				readOnly(t, h, cache)
				return h, nil
			},
			code:        lifecycle.ExitInternal,
			doctorSays:  []string{"read-only file system", "hint: check the permissions and free space of DIR/cache/ask-confirm,"},
			requestSays: []string{"read-only file system", "hint: check the permissions and free space of DIR/cache/ask-confirm,"},
		},
		{
			// Item 10: the phone line named no server ("set up through
			// none, but: …"). A request leaves the phone out, warned.
			name: "a phone setup that does not read",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := noDisplay(t)
				h.Env = append(h.Env, remote.SetupEnv+`={"server":"http://127.0.0.1:1"}`)
				return h, nil
			},
			code:        lifecycle.ExitHeadless,
			doctorSays:  []string{"set up in ASK_CONFIRM_REMOTE, which cannot be read, so a request leaves the phone out: ASK_CONFIRM_REMOTE: "},
			doctorNot:   "through none",
			requestSays: []string{"warning: the phone is not asked: ASK_CONFIRM_REMOTE: "},
		},
		{
			name: "the phone's server down",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := noDisplay(t)
				secret, err := remote.NewSecret()
				e2e.Must(t, err)
				withPhone(t, h, remote.Config{Server: closedPort(t), Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer", Secret: secret})
				return h, nil
			},
			code:        lifecycle.ExitFailed,
			doctorSays:  []string{"the phone is asked instead, and it cannot ask: the server answers"},
			requestSays: []string{"phone"},
		},
		{
			// Item 9: the access rules "held", and each tap got 401.
			name: "an answer token the server does not know",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := noDisplay(t)
				s := ntfytest.New(t)
				secret, err := remote.NewSecret()
				e2e.Must(t, err)
				withPhone(t, h, remote.Config{Server: s.URL, Topic: s.Topic, ReplyTopic: s.ReplyTopic, Token: s.AskerToken, AnswerToken: "tk_" + strings.Repeat("w", 29), Secret: secret})
				return h, nil
			},
			code:        lifecycle.ExitFailed,
			doctorSays:  []string{"the answer token writes replies (tried without publishing): Unauthorized (401): every tap on the phone would be refused"},
			requestSays: []string{"every tap on the phone would be refused"},
		},
		{
			// Item 9: an export made before fleets said nothing.
			name: "a phone setup without a fleet secret",
			machine: func(t *testing.T) (*e2e.Harness, func(*e2e.Harness)) {
				h := noDisplay(t)
				s := ntfytest.New(t)
				withPhone(t, h, remote.Config{Server: s.URL, Topic: s.Topic, ReplyTopic: s.ReplyTopic, Token: s.AskerToken, AnswerToken: s.AnswerToken})
				phone := ntfytest.NewPhone(t, s)
				return h, func(*e2e.Harness) { phone.Tap(phone.Await(1), "Approve") }
			},
			doctorSays:  []string{"has no fleet secret (it was exported before fleets)", "a re-run of a job"},
			requestSays: []string{"warning: the phone's setup in ASK_CONFIRM_REMOTE has no fleet secret"},
		},
	} {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel() // scripted dialogs and a phone of their own
			h, answer := m.machine(t)
			h.Env = append(h.Env, "ASK_CONFIRM_NO_TERMINAL=1")
			says := func(who, out string, want []string) {
				t.Helper()
				out = strings.NewReplacer(filepath.Join(h.Dir, "home"), "HOME", h.Dir, "DIR").Replace(out)
				for _, w := range want {
					if !strings.Contains(out, w) {
						t.Errorf("%s does not say %q:\n%s", who, w, out)
					}
				}
				if m.doctorNot != "" && strings.Contains(out, m.doctorNot) {
					t.Errorf("%s says %q:\n%s", who, m.doctorNot, out)
				}
			}

			d, rep := e2e.DoctorJSON(h)
			text := h.Run("doctor")
			if lifecycle.ExitCode(d.Code) != m.code || text.Code != d.Code {
				t.Fatalf("doctor exited %d (text: %d), want %d\n%s%s", d.Code, text.Code, m.code, text.Stdout, text.Stderr)
			}
			if !strings.Contains(helpText, fmt.Sprintf("%d when", d.Code)) {
				t.Errorf("doctor exited %d, which its help does not list:\n%s", d.Code, helpText)
			}
			says("doctor", fmt.Sprint(rep["message"])+"\n"+text.Stdout+text.Stderr, m.doctorSays)

			r := h.Start("--message", "Deploy v2?")
			if (answer == nil) != (m.code != lifecycle.ExitApproved) {
				t.Fatal("the case says nobody answers where doctor says a person can be asked, or the other way round")
			}
			if answer != nil {
				answer(h)
			}
			o := r.Wait(2 * time.Minute)
			if lifecycle.ExitCode(o.Code) != m.code {
				t.Fatalf("doctor exited %d, and the request %d\ndoctor: %s\nrequest: %s", d.Code, o.Code, text.Stderr, o.Stderr)
			}
			says("the request", o.Stderr, m.requestSays)
			if hint := hintOf(o.Stderr); m.code == lifecycle.ExitInternal && hint != hintOf(text.Stderr) {
				t.Errorf("doctor's hint is not the request's:\ndoctor: %s\nrequest: %s", text.Stderr, o.Stderr)
			}
		})
	}
}

// noDisplay is a machine with no display, with a dialog program.
func noDisplay(t *testing.T) *e2e.Harness {
	h := e2e.NewHarness(t)
	h.Exe = e2e.LookPathOrFail(t, "ask-confirm")
	withDialogProgram(h, "zenity", "3.44.0")
	return h
}

// inHome makes h's files live where a person's do by default, under HOME
// (h.Dir/home, made), with no XDG variable set, and returns HOME.
func inHome(t *testing.T, h *e2e.Harness) string {
	home := filepath.Join(h.Dir, "home")
	e2e.Must(t, os.Mkdir(home, 0o700))
	for _, v := range []string{"XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		h.Env = e2e.WithoutEnv(h.Env, v)
	}
	h.Env = append(e2e.WithoutEnv(h.Env, "HOME"), "HOME="+home)
	return home
}

// approveInTheDialog approves the scripted dialog once it is shown.
func approveInTheDialog(h *e2e.Harness) {
	h.WaitShown(1)
	h.Answer("approve")
}

// hintOf is the hint line in stderr.
func hintOf(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "ask-confirm: hint: ") {
			return l
		}
	}
	return ""
}
