//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// P9 and P10 ask on the phone: the real ntfy server on 127.0.0.1
// (ASK_CONFIRM_NTFY, which scripts/bench finds) with its own accounts, and
// the phone as a client that reads the request topic and performs a
// button's action, as the ntfy apps do (internal/ntfytest). The caller
// runs where no dialog can be shown, so the phone is its only way of
// asking. The reference of both is the bare ntfy round trip in the same
// run: a message published and received by the phone.

// benchT is the stand-in for *testing.T that ntfytest needs: a failure
// ends the case with an error, and clean-ups run when the case ends.
type benchT struct {
	dir      string
	cleanups []func()
	failed   bool
}

// errBenchT carries a failure out of ntfytest, through panic.
type errBenchT struct{ msg string }

func (t *benchT) Helper()                           {}
func (t *benchT) Fatal(args ...any)                 { t.failed = true; panic(errBenchT{fmt.Sprint(args...)}) }
func (t *benchT) Fatalf(format string, args ...any) { t.Fatal(fmt.Sprintf(format, args...)) }
func (t *benchT) Skip(args ...any)                  { t.Fatal(args...) }
func (t *benchT) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchtool: "+format+"\n", args...)
}
func (t *benchT) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *benchT) Failed() bool     { return t.failed }

func (t *benchT) TempDir() string {
	d, err := os.MkdirTemp(t.dir, "ntfy")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run runs f, turning an ntfytest failure into an error, then the
// clean-ups, last first.
func (t *benchT) run(f func() error) (err error) {
	defer func() {
		for i := len(t.cleanups) - 1; i >= 0; i-- {
			t.cleanups[i]()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(errBenchT)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", e.msg)
		}
	}()
	return f()
}

// p9 measures P9 (request to message on the phone) and P10 (the phone's
// tap to the caller's exit), with the bare round trip as the reference of
// both.
func (b *bench) p9() error {
	ce, err := b.newEnv("p9")
	if err != nil {
		return err
	}
	t := &benchT{dir: filepath.Join(b.work, "p9")}
	return t.run(func() error { return b.phone(t, ce) })
}

func (b *bench) phone(t *benchT, ce caseEnv) error {
	s := ntfytest.New(t)
	env := headlessEnv(append(ce.environ(), "XDG_CONFIG_HOME="+filepath.Join(ce.dir, "..", "config")))
	token, answer := filepath.Join(ce.dir, "..", "asker.token"), filepath.Join(ce.dir, "..", "answer.token")
	must(os.WriteFile(token, []byte(s.AskerToken), 0o600))
	must(os.WriteFile(answer, []byte(s.AnswerToken), 0o600))
	if _, code, err := timedRun(b.bin, []string{"remote", "setup", "--server", s.URL, "--topic", s.Topic, "--reply-topic", s.ReplyTopic,
		"--token-file", token, "--answer-token-file", answer, "--mode", "fallback"}, ce.dir, env); err != nil || code != 0 {
		return fmt.Errorf("remote setup: exit %d, %v", code, err)
	}
	// Subscribed after the setup, whose checks publish.
	phone := ntfytest.NewPhone(t, s)
	seen := 0
	// The reference: a message published with the asking token, from
	// just before the request to its arrival on the phone.
	roundTrip := func() (float64, error) {
		t0 := time.Now()
		if err := publish(s, fmt.Sprintf("reference %d", seen)); err != nil {
			return 0, err
		}
		seen++
		return ms(phone.Await(seen).Received.Sub(t0)), nil
	}
	var published, tapped, ref []float64
	for i := range b.n.p9Pairs + 1 {
		r, err := roundTrip()
		if err != nil {
			return err
		}
		p, err := start(ce.dir, env, b.bin, "--message", fmt.Sprintf("phone %d", i), "--wait", "60s")
		if err != nil {
			return err
		}
		seen++
		m := phone.Await(seen)
		toPhone := m.Received.Sub(p.started)
		if !strings.HasPrefix(m.Message, fmt.Sprintf("phone %d", i)) {
			p.kill()
			return fmt.Errorf("the phone shows %q", m.Message)
		}
		// A person reads before tapping: ask-confirm takes no answer
		// sooner than one can be given.
		time.Sleep(time.Until(m.Received.Add(ntfytest.ReadingTime)))
		t1 := time.Now()
		if code := phone.Tap(m, "Approve"); code != http.StatusOK {
			p.kill()
			return fmt.Errorf("the tap got %d", code)
		}
		if !p.wait(10 * time.Second) {
			p.kill()
			return fmt.Errorf("the caller did not exit within 10 s of the tap")
		}
		if p.code != 0 {
			return fmt.Errorf("the caller exited %d after the tap on Approve", p.code)
		}
		seen++
		phone.Await(seen) // the follow-up
		if i == 0 {
			continue // warm-up
		}
		ref, published, tapped = append(ref, r), append(published, ms(toPhone)), append(tapped, ms(p.exitAt.Sub(t1)))
	}
	sr, sp, st := summarize(ref), summarize(published), summarize(tapped)
	for _, c := range []struct {
		name   string
		s      stats
		budget float64
	}{
		{"P9 request to message on the phone", sp, 50},
		{"P10 phone's tap to caller exit", st, 100},
	} {
		b.rows = append(b.rows, row{
			name: c.name, ours: fmtMs(c.s.median), ref: fmtMs(sr.median) + " (bare ntfy round trip)",
			delta:  fmt.Sprintf("×%.1f", c.s.median/sr.median),
			target: fmt.Sprintf("≤ reference + %.0f ms", c.budget), pass: c.s.median <= sr.median+c.budget,
		})
	}
	b.note("### P9, P10 the phone\n")
	b.note("The real ntfy server on 127.0.0.1 with deny-all and its own accounts; the caller `ask-confirm --message 'phone N' --wait 60s` runs with no display, so the phone, set up with `remote setup --mode fallback`, is its only way of asking. P9 is timed from the caller's start (its holder starts after it) to the message's arrival on the phone; P10 from the tap, made %s after the message arrived, as a person reads first, to the moment the caller was reaped. The reference is a message published with the asking token and received by the phone. %d rounds after one warm-up, each a reference then ours.\n", ntfytest.ReadingTime, sp.n)
	b.note("- P9 ours: %s", spread(sp))
	b.note("- P10 ours: %s", spread(st))
	b.note("- bare round trip: %s\n", spread(sr))
	return nil
}

// headlessEnv is env without a display: nobody can be asked here.
func headlessEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			out = append(out, kv)
		}
	}
	return out
}

// publish sends text to s's request topic with the asking token.
func publish(s *ntfytest.Server, text string) error {
	req, err := http.NewRequest(http.MethodPost, s.URL+"/"+s.Topic, strings.NewReader(text))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("publishing the reference: %s", resp.Status)
	}
	return nil
}
