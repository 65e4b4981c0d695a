//go:build e2e && unix

package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// remoteSetup runs ask-confirm remote setup against s with the asking
// token and answerToken, both in files, and extra flags.
func remoteSetup(t *testing.T, h *e2e.Harness, s *ntfytest.Server, answerToken string, extra ...string) e2e.Outcome {
	t.Helper()
	return h.RemoteSetup(s, answerToken, extra...)
}

// ask-confirm remote setup checks the server and the access rules, and only
// then records the settings, readable by their owner alone; it says what
// to do on the phone and never prints a token. remote test sends a real
// request and reports the tap; remote off forgets the phone.
func TestRemoteSetupTestOff(t *testing.T) {
	t.Parallel() // no display: the phone is a test client
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	file := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")

	if _, rep := e2e.DoctorJSON(h); rep["remote"].(map[string]any)["configured"] != false {
		t.Fatalf("doctor before setup: %v", rep["remote"])
	}
	o := remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	for _, want := range []string{"ok    the server answers", "ok    the answer token cannot read requests", "ok    anonymous cannot write replies", "ntfy://" + s.Addr + "/requests?secure=false", "ask-confirm remote test"} {
		if !strings.Contains(o.Stdout, want) {
			t.Errorf("setup's output lacks %q:\n%s", want, o.Stdout)
		}
	}
	for _, token := range []string{s.AskerToken, s.AnswerToken} {
		if strings.Contains(o.Stdout+o.Stderr, token) {
			t.Fatalf("setup printed a token:\n%s%s", o.Stdout, o.Stderr)
		}
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the settings file: %v %v", fi, err)
	}

	if _, rep := e2e.DoctorJSON(h); rep["remote"].(map[string]any)["configured"] != true || rep["remote"].(map[string]any)["problems"] != nil {
		t.Fatalf("doctor after setup: %v", rep["remote"])
	}

	phone := ntfytest.NewPhone(t, s)
	for i, tc := range []struct {
		tap  string
		code int
		says string
	}{{"Approve", 0, "approved on the phone"}, {"Deny", 1, "denied on the phone"}} {
		r := h.Start("remote", "test", "--wait", "1m")
		m := phone.Await(2*i + 1)
		if m.Title != "ask-confirm remote test" {
			t.Fatalf("the phone shows %+v", m)
		}
		phone.Tap(m, tc.tap)
		o := r.Wait(90 * time.Second)
		if o.Code != tc.code || !strings.Contains(o.Stdout, tc.says) {
			t.Fatalf("remote test, %s tapped: exit %d\n%s%s", tc.tap, o.Code, o.Stdout, o.Stderr)
		}
		phone.Await(2*i + 2) // the follow-up
	}

	s.Stop()
	if _, rep := e2e.DoctorJSON(h); !strings.Contains(fmt.Sprint(rep["remote"]), "the server answers") || !strings.Contains(fmt.Sprint(rep["remote"]), "to mend: nothing listens at --server") {
		t.Fatalf("doctor with the server down: %v", rep["remote"])
	}
	s.Start()

	if o := h.Run("remote", "off"); o.Code != 0 || !strings.Contains(o.Stdout, "no longer asked") {
		t.Fatalf("remote off: exit %d %s%s", o.Code, o.Stdout, o.Stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("remote off left %s: %v", file, err)
	}
	if o := h.Run("remote", "test"); o.Code != 2 || !strings.Contains(o.Stderr, "remote setup") {
		t.Fatalf("remote test without a phone: exit %d %s", o.Code, o.Stderr)
	}
}

// A setup whose answer token can do more than write the reply topic, or
// cannot write it, is refused and nothing is recorded; bad flags are
// usage errors.
func TestRemoteSetupRefusesWrongAccess(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	file := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")
	// The phone's token as the buttons' token: it reads the requests and
	// cannot write a reply.
	o := remoteSetup(t, h, s, s.PhoneToken)
	if o.Code != 2 || !strings.Contains(o.Stdout, "FAIL  the answer token writes replies") || !strings.Contains(o.Stdout, "FAIL  the answer token cannot read requests") {
		t.Fatalf("setup with the phone's token for the buttons: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	// Each failed check says what mends it.
	for _, want := range []string{"hint: ntfy access ANSWERER replies wo", "hint: ntfy access --reset ANSWERER requests"} {
		if !strings.Contains(o.Stderr, want) {
			t.Errorf("setup with the phone's token for the buttons does not say %q:\n%s", want, o.Stderr)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a refused setup recorded %s: %v", file, err)
	}
	token := filepath.Join(h.Dir, "asker.token")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"remote", "setup", "--topic", "requests"}, "--server is required"},
		{[]string{"remote", "setup", "--server", "http://10.1.2.3", "--topic", "a", "--reply-topic", "b", "--token-file", token, "--answer-token-file", token}, "https"},
		{[]string{"remote", "setup", "--server", s.URL, "--topic", "a", "--reply-topic", "b", "--token-file", "-", "--answer-token-file", "-"}, "standard input"},
		{[]string{"remote", "setup", "--server", s.URL, "--topic", "a", "--reply-topic", "b", "--token-file", "/dev/null", "--answer-token-file", token}, "holds no token"},
	} {
		if o := h.Run(c.args...); o.Code != 2 || !strings.Contains(o.Stderr, c.says) {
			t.Errorf("%v: exit %d, want 2 saying %q\n%s", c.args, o.Code, c.says, o.Stderr)
		}
	}
}

// Each failed check of remote setup has a hint of its own: anonymous
// access that is too wide names ntfy access --reset, a server that is not
// there says so; a token file others may read is refused.
func TestRemoteSetupHints(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t, []string{"everyone", "replies", "rw"})
	h := e2e.NewFakeHarness(t)
	o := remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 2 || !strings.Contains(o.Stderr, "hint: ntfy access --reset everyone replies, with auth-default-access: deny-all") {
		t.Fatalf("setup with anonymous access to the replies: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	s.Stop()
	o = remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 2 || !strings.Contains(o.Stderr, "hint: nothing listens at --server") {
		t.Fatalf("setup with the server down: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	token := filepath.Join(h.Dir, "open.token")
	e2e.Must(t, os.WriteFile(token, []byte(s.AskerToken+"\n"), 0o644))
	o = h.Run("remote", "setup", "--server", s.URL, "--topic", s.Topic, "--reply-topic", s.ReplyTopic, "--token-file", token, "--answer-token-file", "-")
	if o.Code != 2 || !strings.Contains(o.Stderr, "mode 0644") || !strings.Contains(o.Stderr, "chmod 600 "+token) {
		t.Fatalf("setup with a token file others may read: exit %d\n%s", o.Code, o.Stderr)
	}
}

// remote test ends as a request asked on the phone alone does: exit 6
// when the phone could not ask (the server down, a refused publish), and
// it says the request was sent only once it was.
func TestRemoteTestFaults(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	h.SetUpPhone(s, "fallback")
	s.Access("asker", s.Topic, "deny")
	o := h.Run("remote", "test", "--wait", "1m")
	if o.Code != 6 || strings.Contains(o.Stdout, "sent a test request") || !strings.Contains(o.Stderr, "403 Forbidden") {
		t.Fatalf("remote test with a refused publish: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	s.Stop()
	o = h.Run("remote", "test", "--wait", "1m")
	if o.Code != 6 || strings.Contains(o.Stdout, "sent a test request") || !strings.Contains(o.Stderr, "could not be reached") {
		t.Fatalf("remote test with the server down: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
}

// An asking token that can also read the requests would let whatever runs
// on the asking machine read the buttons: setup refuses it.
func TestRemoteSetupRefusesAskerReadingRequests(t *testing.T) {
	t.Parallel() // no display
	s := ntfytest.New(t, []string{"asker", "requests", "rw"})
	h := e2e.NewFakeHarness(t)
	o := remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 2 || !strings.Contains(o.Stdout, "FAIL  the asking token cannot read requests") {
		t.Fatalf("setup with an asking token that reads the requests: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
}

// remote setup and doctor say how long the phone's server keeps a message
// (its cache-duration), as the server tells it, and warn where that is
// less than --collect-within's default: an answer given on the phone can
// be collected from the server only that long.
func TestRemoteSaysWhatTheServerKeeps(t *testing.T) {
	t.Parallel() // no display: the phone is a test client
	s := ntfytest.New(t)
	h := e2e.NewFakeHarness(t)
	o := remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 0 || !strings.Contains(o.Stdout, "ok    the server keeps messages for 12h (its cache-duration)") || strings.Contains(o.Stderr, "warning") {
		t.Fatalf("setup against a server that keeps 12h: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	if _, rep := e2e.DoctorJSON(h); rep["remote"].(map[string]any)["server_keeps"] != "12h" || strings.Contains(fmt.Sprint(rep["notes"]), "cache-duration") {
		t.Fatalf("doctor against a server that keeps 12h: %v %v", rep["remote"], rep["notes"])
	}

	s.Flags = []string{"--cache-duration", "10m"}
	s.Stop()
	s.Start()
	const warning = "warning: the phone's server keeps messages for 10m, less than --collect-within's default 15m"
	o = remoteSetup(t, h, s, s.AnswerToken)
	if o.Code != 0 || !strings.Contains(o.Stdout, "ok    the server keeps messages for 10m") || !strings.Contains(o.Stderr, warning) {
		t.Fatalf("setup against a server that keeps 10m: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	o, rep := e2e.DoctorJSON(h)
	if rep["remote"].(map[string]any)["server_keeps"] != "10m" || rep["remote"].(map[string]any)["problems"] != nil ||
		!strings.Contains(fmt.Sprint(rep["notes"]), "keeps messages for 10m, less than --collect-within's default 15m") {
		t.Fatalf("doctor against a server that keeps 10m: %v %v", rep["remote"], rep["notes"])
	}
	if o := h.Run("doctor"); !strings.Contains(o.Stdout, "keeps messages for 10m (its cache-duration)") || !strings.Contains(o.Stdout, "less than --collect-within's default 15m") {
		t.Fatalf("doctor's text against a server that keeps 10m:\n%s", o.Stdout)
	}
}
