//go:build unix

// Unix only: there the caller hands its lock to the holder, so once the
// fake holder start below returns, the next look sees its answer.

package askpass

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// fixture is ask-confirm-askpass in process, with a private store, a
// holder start that records the answer the test chose, and a notice that
// records what it was asked to show.
type fixture struct {
	t       *testing.T
	p       program
	env     map[string]string
	stderr  bytes.Buffer
	paths   store.Paths
	answer  store.Status
	starts  int
	noticed []string
	session platform.Session
	// who and dir are the program that ran ask-confirm-askpass, and
	// where.
	who, dir string
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	f := &fixture{t: t, env: map[string]string{}, answer: store.Approved, session: platform.Session{CanAsk: true}, who: "ssh-agent", dir: "/"}
	f.paths = store.Paths{
		DB:      filepath.Join(dir, "cache", "answers.db"),
		Locks:   filepath.Join(dir, "state", "locks"),
		History: filepath.Join(dir, "state", "history.jsonl"),
	}
	f.p = program{
		config: lifecycle.Config{
			Paths:       f.paths,
			Detect:      func() platform.Session { return f.session },
			StartHolder: f.startHolder,
			RemoteFile:  filepath.Join(dir, "config", "remote.json"),
		},
		getenv: func(k string) string { return f.env[k] },
		stderr: &f.stderr,
		notice: func(ctx context.Context, title, text string) error {
			f.noticed = append(f.noticed, title+": "+text)
			<-ctx.Done()
			return nil
		},
		detect: func() platform.Session { return f.session },
		asker:  func() (string, string) { return f.who, f.dir },
	}
	return f
}

// startHolder stands in for the holder: the person answers at once with
// f.answer, which is recorded as a holder records it.
func (f *fixture) startHolder(argv []string, _ platform.Lock) error {
	f.starts++
	id, content := argv[2], argv[3]
	_, err := store.New(f.paths.DB).Update(id, func(r *store.Record, found bool) (bool, error) {
		if !found || r.ContentHash != content {
			return false, errors.New("the fake holder found no request")
		}
		r.Status, r.EndedAt = f.answer, time.Now()
		return true, nil
	})
	return err
}

func (f *fixture) run(args ...string) int {
	f.t.Helper()
	f.stderr.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.p.run(ctx, args)
}

// An approval exits 0 and writes nothing at all; a denial exits 1 with
// one line on stderr.
func TestConfirm(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	prompt := "Allow use of key /home/u/.ssh/id_ed25519?\nKey fingerprint SHA256:abc."
	if code := f.run(prompt); code != 0 || f.stderr.Len() != 0 {
		t.Fatalf("approved: exit %d, stderr %q", code, f.stderr.String())
	}
	f.answer = store.Denied
	if code := f.run(prompt); code != int(lifecycle.ExitDenied) || strings.Count(f.stderr.String(), "\n") != 1 {
		t.Fatalf("denied: exit %d, stderr %q", code, f.stderr.String())
	}
}

// An expiry names what sets the time, ASK_CONFIRM_ASKPASS_TIMEOUT, and
// how long it was: ask-confirm-askpass has no --timeout.
func TestExpiryNamesTheTimeoutSetting(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	f.env[timeoutEnv] = "90s"
	f.answer = store.Expired
	code := f.run("Allow use of key k?")
	if code != int(lifecycle.ExitExpired) || !strings.Contains(f.stderr.String(), "nobody answered within 1m30s ("+timeoutEnv+")") || strings.Contains(f.stderr.String(), "--timeout") {
		t.Fatalf("expired: exit %d, stderr %q; want %d naming %s and not --timeout", code, f.stderr.String(), lifecycle.ExitExpired, timeoutEnv)
	}
}

// Each use of a key is asked anew by default, even right after an
// approval; a remember window set by the person returns the approval.
func TestEachKeyUseAskedAnewUnlessRemembered(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	for range 2 {
		if code := f.run("Allow use of key k?"); code != 0 {
			t.Fatalf("exit %d: %s", code, f.stderr.String())
		}
	}
	if f.starts != 2 {
		t.Fatalf("%d dialogs for two key uses, want 2", f.starts)
	}
	f.env[rememberEnv] = "1m"
	for range 2 {
		if code := f.run("Allow use of key j?"); code != 0 {
			t.Fatalf("exit %d: %s", code, f.stderr.String())
		}
	}
	if f.starts != 3 {
		t.Fatalf("%d dialogs with %s=1m, want one more", f.starts, rememberEnv)
	}
}

// The timeout's whole documented range is accepted, its top included
// (24h was refused once, as "24h0m10s is outside 0 to 24h0m0s": the
// program's own wait past the dialog's end was checked as the person's),
// and a value above it is refused in the person's own terms.
func TestTimeoutRange(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	for _, v := range []string{"1s", lifecycle.MaxTimeout.String()} {
		f.env[timeoutEnv] = v
		if code := f.run("Allow use of key k?"); code != 0 {
			t.Errorf("%s=%s: exit %d, %s", timeoutEnv, v, code, f.stderr.String())
		}
	}
	f.env[timeoutEnv] = "24h1s"
	want := timeoutEnv + ": must be longer than 0s and at most 24h, not 24h0m1s"
	if code := f.run("Allow use of key k?"); code != int(lifecycle.ExitUsage) || !strings.Contains(f.stderr.String(), want) {
		t.Errorf("%s=24h1s: exit %d, %q; want exit 2 saying %q", timeoutEnv, code, f.stderr.String(), want)
	}
}

// What ssh sends is shown literally: escape sequences in the prompt reach
// the dialog as visible text, never as control characters.
func TestPromptShownLiterally(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	if code := f.run("Allow use of key \x1b]0;evil\a\u202eyek?"); code != 0 {
		t.Fatalf("exit %d: %s", code, f.stderr.String())
	}
	recs, err := store.New(f.paths.DB).List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("records: %v %v", recs, err)
	}
	var req dialog.Request
	if err := json.Unmarshal(recs[0].Request, &req); err != nil {
		t.Fatal(err)
	}
	if want := `Allow use of key \x1b]0;evil\x07⟨U+202E⟩yek?`; req.Message != want {
		t.Fatalf("the dialog shows %q, want %q", req.Message, want)
	}
	if req.Title != title || req.OKLabel != "Allow" || req.CancelLabel != "Deny" || req.DefaultApprove {
		t.Fatalf("request %+v", req)
	}
}

// The dialog says who asks, as every dialog does: the program that ran
// ask-confirm-askpass, ssh-agent or ssh, and where it runs. Before, its
// dialogs had no origin line, and a key's use could not be told from a
// question asked by any other program. Who asks is no part of the
// request's identity: the same prompt from ssh is the same request.
func TestConfirmSaysWhoAsks(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	home := t.TempDir()
	t.Setenv("HOME", home)
	asked := func(wantOrigin string) string {
		t.Helper()
		if code := f.run("Allow use of key k?"); code != 0 {
			t.Fatalf("exit %d: %s", code, f.stderr.String())
		}
		recs, err := store.New(f.paths.DB).List()
		if err != nil || len(recs) != 1 {
			t.Fatalf("records: %v %v", recs, err)
		}
		var req dialog.Request
		if err := json.Unmarshal(recs[0].Request, &req); err != nil {
			t.Fatal(err)
		}
		if req.Origin != wantOrigin {
			t.Fatalf("the dialog says it is asked by %q, want %q", req.Origin, wantOrigin)
		}
		events, _, err := store.ReadEvents(f.paths.History)
		if err != nil || len(events) == 0 {
			t.Fatalf("history: %v %v", events, err)
		}
		if e := events[len(events)-1]; e.Origin != wantOrigin {
			t.Fatalf("the history's %s event says %q asked, want %q", e.Event, e.Origin, wantOrigin)
		}
		return recs[0].Identity
	}
	agent := asked("ssh-agent in /")
	f.who, f.dir = "ssh", filepath.Join(home, "src")
	if ssh := asked("ssh in ~" + string(filepath.Separator) + "src"); ssh != agent {
		t.Fatalf("the same prompt from ssh is request %s, from ssh-agent %s", ssh, agent)
	}
}

// Whatever is not a confirmation it can ask is refused at once, non-zero,
// without a dialog or a request: a passphrase prompt above all.
func TestRefusals(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"passphrase prompt", nil, []string{"Enter passphrase for key '/k':"}, "refusing a passphrase prompt"},
		{"unknown hint", map[string]string{hintEnv: "password"}, []string{"PIN:"}, `"password" is not a prompt`},
		{"no prompt", map[string]string{hintEnv: hintConfirm}, nil, "only argument"},
		{"two arguments", map[string]string{hintEnv: hintConfirm}, []string{"a", "b"}, "only argument"},
		{"blank prompt", map[string]string{hintEnv: hintConfirm}, []string{" "}, "the prompt: must not be blank"},
		{"empty prompt", map[string]string{hintEnv: hintConfirm}, []string{""}, "the prompt: must not be empty"},
		{"bad timeout", map[string]string{hintEnv: hintConfirm, timeoutEnv: "soon"}, []string{"Allow?"}, timeoutEnv},
		{"timeout out of range", map[string]string{hintEnv: hintConfirm, timeoutEnv: "48h"}, []string{"Allow?"}, timeoutEnv},
		{"negative remember", map[string]string{hintEnv: hintConfirm, rememberEnv: "-1s"}, []string{"Allow?"}, rememberEnv},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			for k, v := range c.env {
				f.env[k] = v
			}
			code := f.run(c.args...)
			if code != int(lifecycle.ExitUsage) || !strings.Contains(f.stderr.String(), c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 saying %q", code, f.stderr.String(), c.want)
			}
			if f.starts != 0 || len(f.noticed) != 0 {
				t.Fatalf("%d dialogs and %d notices for a refused prompt", f.starts, len(f.noticed))
			}
		})
	}
}

// Where nobody can be asked, a confirmation is refused with exit 4.
func TestConfirmHeadless(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintConfirm
	f.session = platform.Session{Reason: "no display"}
	if code := f.run("Allow use of key k?"); code != int(lifecycle.ExitHeadless) || f.starts != 0 {
		t.Fatalf("headless: exit %d after %d dialogs", code, f.starts)
	}
	// A display with no dialog program: the dialog cannot be shown.
	f.session = platform.Session{Kind: platform.KindX11, Reason: "no dialog program found on PATH"}
	if code := f.run("Allow use of key k?"); code != int(lifecycle.ExitFailed) || f.starts != 0 {
		t.Fatalf("no dialog program: exit %d after %d dialogs", code, f.starts)
	}
}

// A notice shows the prompt until the program is ended, and then exits 0;
// it is refused where nobody would see it, and its failure is exit 6.
func TestNotice(t *testing.T) {
	f := newFixture(t)
	f.env[hintEnv] = hintNone
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if code := f.p.run(ctx, []string{"Confirm user presence for key ED25519-SK"}); code != 0 {
		t.Fatalf("notice: exit %d, %s", code, f.stderr.String())
	}
	if len(f.noticed) != 1 || f.noticed[0] != "SSH: Confirm user presence for key ED25519-SK" || f.starts != 0 {
		t.Fatalf("noticed %q with %d requests", f.noticed, f.starts)
	}

	f.session = platform.Session{Reason: "no display"}
	if code := f.run("Confirm user presence"); code != int(lifecycle.ExitHeadless) {
		t.Fatalf("headless notice: exit %d", code)
	}
	// A display without a dialog program cannot show it: exit 6, as a
	// confirmation's dialog there.
	f.session = platform.Session{Kind: platform.KindX11, Reason: "no dialog program found on PATH"}
	if code := f.run("Confirm user presence"); code != int(lifecycle.ExitFailed) {
		t.Fatalf("notice with no dialog program: exit %d", code)
	}
	f.session = platform.Session{CanAsk: true}
	f.p.notice = func(context.Context, string, string) error { return errors.New("no zenity") }
	if code := f.run("Confirm user presence"); code != int(lifecycle.ExitFailed) || !strings.Contains(f.stderr.String(), "no zenity") {
		t.Fatalf("failed notice: exit %d, %s", code, f.stderr.String())
	}
}

// The man page's text (Manual) names the variables the program reads and
// the default timeout it applies, so that neither can change unseen.
func TestManualNamesTheSettings(t *testing.T) {
	for _, want := range []string{hintEnv, hintConfirm, hintNone, rememberEnv, timeoutEnv,
		"(default\n" + strings.TrimSuffix(defaultTimeout.String(), "0s") + ")", "titled " + title + " with Allow and Deny"} {
		if !strings.Contains(Manual, want) {
			t.Errorf("Manual does not say %q", want)
		}
	}
}

// The man page's example is the set-up docs/askpass.md gives and the
// end-to-end tests run (e2e.NewSSHAgent): SSH_ASKPASS, by its absolute
// path, in the agent's environment when it starts, then ssh-add -c. (It
// once set SSH_ASKPASS for ssh-add alone, which adds the key and leaves
// every use of it refused without a dialog.)
func TestManualExampleIsTheTestedSetUp(t *testing.T) {
	b, err := os.ReadFile("../docs/askpass.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(b), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var doc []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		line, _, _ = strings.Cut(line, "#")
		doc = append(doc, strings.TrimSpace(line))
	}
	var manual []string
	for _, line := range strings.Split(Manual, "\n") {
		if strings.HasPrefix(line, "  ") {
			manual = append(manual, strings.TrimSpace(line))
		}
	}
	if !slices.Equal(manual, doc) {
		t.Fatalf("the manual's example %q is not askpass.md's %q", manual, doc)
	}
	if len(doc) != 3 || doc[0] != `export SSH_ASKPASS="$(command -v ask-confirm-askpass)"` ||
		doc[1] != `eval "$(ssh-agent)"` || !strings.HasPrefix(doc[2], "ssh-add -c ") {
		t.Fatalf("the example %q does not set SSH_ASKPASS by its absolute path before the agent starts, then add a key with -c", doc)
	}
}

// A key's use is its owner's to confirm: with several people set up to
// approve other questions, the confirmation still asks one person, the
// first phone's, with no approvers.
func TestConfirmKeepsOnePersonWithSeveralSetUp(t *testing.T) {
	f := newFixture(t)
	s := remote.Settings{Config: remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker",
		AnswerToken: "tk_answer", Name: "alice", Approvers: []remote.Approver{{Name: "bob", Topic: "requests-bob"}}}, Mode: remote.ModeAlso}
	if err := remote.Save(f.p.config.RemoteFile, s); err != nil {
		t.Fatal(err)
	}
	f.env[hintEnv] = hintConfirm
	if code := f.run("Allow use of key /home/u/.ssh/id_ed25519?"); code != 0 || f.stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
	}
	recs, err := store.New(f.paths.DB).List()
	if err != nil || len(recs) != 1 || recs[0].Approvers != nil || recs[0].Approvals != 0 {
		t.Fatalf("the confirmation's record: %+v, %v", recs, err)
	}
}
