//go:build linux

package main

import (
	"encoding/json"
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
// both, for two setups in the same rounds: one without a fleet's secret
// (a setup made before fleets, which asks the phone alone) and one as
// remote setup writes it now, with a secret, whose request is the
// fleet's (a claim, and the wait for its second, before the phone).
func (b *bench) p9() error {
	ce, err := b.newEnv("p9")
	if err != nil {
		return err
	}
	t := &benchT{dir: filepath.Join(b.work, "p9")}
	return t.run(func() error { return b.phone(t, ce) })
}

// setUpPhone runs remote setup against s in env, as a person would, with
// the asking and answer tokens in files under dir, and server as the
// server's URL (s's own, or a proxy's in front of it).
func (b *bench) setUpPhone(s *ntfytest.Server, server, dir string, env []string) error {
	token, answer := filepath.Join(dir, "asker.token"), filepath.Join(dir, "answer.token")
	must(os.WriteFile(token, []byte(s.AskerToken), 0o600))
	must(os.WriteFile(answer, []byte(s.AnswerToken), 0o600))
	if _, code, err := timedRun(b.bin, []string{"remote", "setup", "--server", server, "--topic", s.Topic, "--reply-topic", s.ReplyTopic,
		"--token-file", token, "--answer-token-file", answer, "--mode", "fallback"}, dir, env); err != nil || code != 0 {
		return fmt.Errorf("remote setup: exit %d, %v", code, err)
	}
	return nil
}

// copySetup writes the setup in from's config home into to's, without
// its fleet's secret where noSecret: as a setup made before fleets.
func copySetup(from, to string, noSecret bool) error {
	b, err := os.ReadFile(filepath.Join(from, "ask-confirm", "remote.json"))
	if err != nil {
		return err
	}
	var setup map[string]any
	if err := json.Unmarshal(b, &setup); err != nil {
		return err
	}
	if _, ok := setup["secret"]; !ok {
		return fmt.Errorf("remote setup wrote no fleet's secret")
	}
	if noSecret {
		delete(setup, "secret")
	}
	if b, err = json.Marshal(setup); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(to, "ask-confirm"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(to, "ask-confirm", "remote.json"), b, 0o600)
}

// withConfig is env with XDG_CONFIG_HOME set to config.
func withConfig(env []string, config string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "XDG_CONFIG_HOME="+config)
}

// phoneSetup is one of P9's and P10's setups, and what it measured.
type phoneSetup struct {
	name, label       string
	env               []string
	budget9, budget10 float64 // ms over the reference
	published, tapped []float64
}

func (b *bench) phone(t *benchT, ce caseEnv) error {
	s := ntfytest.New(t)
	base := headlessEnv(ce.environ())
	fleetConfig, aloneConfig := filepath.Join(ce.dir, "..", "config"), filepath.Join(ce.dir, "..", "config-alone")
	if err := b.setUpPhone(s, s.URL, filepath.Join(ce.dir, ".."), withConfig(base, fleetConfig)); err != nil {
		return err
	}
	if err := copySetup(fleetConfig, aloneConfig, true); err != nil {
		return err
	}
	// A fleet's request waits for the second its claim was stamped in to
	// end (remote/ntfy's settleAfter, 1.25 s) before it reaches the phone,
	// and so does a tap before its outcome is sure: the budgets of a
	// fleet are a lone machine's plus that wait.
	setups := []*phoneSetup{
		{name: "alone", label: "without a fleet's secret", env: withConfig(base, aloneConfig), budget9: 50, budget10: 100},
		{name: "fleet", label: "with a fleet's secret", env: withConfig(base, fleetConfig), budget9: 50 + fleetSettle, budget10: 100 + fleetSettle},
	}
	// Subscribed after the setup, whose checks publish.
	phone := ntfytest.NewPhone(t, s)
	seen := 0
	// The reference: a message published with the asking token, from
	// just before the request to its arrival on the phone.
	roundTrip := func() (float64, error) {
		t0 := time.Now()
		if err := s.Publish(fmt.Sprintf("reference %d", seen)); err != nil {
			return 0, err
		}
		seen++
		return ms(phone.Await(seen).Received.Sub(t0)), nil
	}
	var ref []float64
	for i := range b.n.p9Pairs + 1 {
		for _, su := range setups {
			r, err := roundTrip()
			if err != nil {
				return err
			}
			message := fmt.Sprintf("phone %s %d", su.name, i)
			toPhone, tapToExit, err := b.askPhone(phone, &seen, ce.dir, su.env, message, []string{"--message", message, "--wait", "60s"})
			if err != nil {
				return fmt.Errorf("%s: %w", su.label, err)
			}
			if i == 0 {
				continue // warm-up
			}
			ref, su.published, su.tapped = append(ref, r), append(su.published, toPhone), append(su.tapped, tapToExit)
		}
	}
	sr := summarize(ref)
	for _, su := range setups {
		sp, st := summarize(su.published), summarize(su.tapped)
		for _, c := range []struct {
			name   string
			s      stats
			budget float64
		}{
			{"P9 request to message on the phone, " + su.label, sp, su.budget9},
			{"P10 phone's tap to caller exit, " + su.label, st, su.budget10},
		} {
			b.rows = append(b.rows, row{
				name: c.name, ours: fmtMs(c.s.median), ref: fmtMs(sr.median) + " (bare ntfy round trip)",
				delta:  fmt.Sprintf("×%.1f", c.s.median/sr.median),
				target: fmt.Sprintf("≤ reference + %.0f ms", c.budget), pass: c.s.median <= sr.median+c.budget,
			})
		}
	}
	b.note("### P9, P10 the phone\n")
	b.note("The real ntfy server on 127.0.0.1 with deny-all and its own accounts; the caller `ask-confirm --message 'phone N' --wait 60s` runs with no display, so the phone, set up with `remote setup --mode fallback`, is its only way of asking. Two setups, in the same rounds: the file remote setup wrote, with its fleet's secret, and a copy without the secret (a setup made before fleets, which asks the phone alone). A fleet's request waits for the second its claim was stamped in to end (%.0f ms) before it is put on the phone, and a tap for the second it was stamped in before its outcome is sure: the fleet's budgets are the lone machine's plus that wait. P9 is timed from the caller's start (its holder starts after it) to the message's arrival on the phone; P10 from the tap, made %s after the message arrived, as a person reads first, to the moment the caller was reaped. The reference is a message published with the asking token and received by the phone. %d rounds after one warm-up, each a reference then ours, for each setup.\n", fleetSettle, ntfytest.ReadingTime, sr.n/len(setups))
	for _, su := range setups {
		b.note("- P9 %s: %s", su.label, spread(summarize(su.published)))
		b.note("- P10 %s: %s", su.label, spread(summarize(su.tapped)))
	}
	b.note("- bare round trip: %s\n", spread(sr))
	return nil
}

// fleetSettle is how long a fleet's machine waits for the server's second
// its claim or a tap was stamped in to end (remote/ntfy's settleAfter).
const fleetSettle = 1250.0

// askPhone runs ask-confirm with args, which ask message on the phone
// alone, in dir with env, taps Approve once a person could have read it,
// and returns how long the request took from the caller's start to the
// phone and the tap to the caller's exit, in ms; seen counts the phone's
// messages.
func (b *bench) askPhone(phone *ntfytest.Phone, seen *int, dir string, env []string, message string, args []string) (toPhone, tapToExit float64, err error) {
	p, err := start(dir, env, b.bin, args...)
	if err != nil {
		return 0, 0, err
	}
	*seen++
	m := phone.Await(*seen)
	if !strings.HasPrefix(m.Message, message) {
		p.kill()
		return 0, 0, fmt.Errorf("the phone shows %q", m.Message)
	}
	// A person reads before tapping: ask-confirm takes no answer
	// sooner than one can be given.
	time.Sleep(time.Until(m.Received.Add(ntfytest.ReadingTime)))
	t1 := time.Now()
	if code := phone.Tap(m, "Approve"); code != http.StatusOK {
		p.kill()
		return 0, 0, fmt.Errorf("the tap got %d", code)
	}
	if !p.wait(10 * time.Second) {
		p.kill()
		return 0, 0, fmt.Errorf("the caller did not exit within 10 s of the tap")
	}
	if p.code != 0 {
		return 0, 0, fmt.Errorf("the caller exited %d after the tap on Approve", p.code)
	}
	*seen++
	phone.Await(*seen) // the follow-up
	return ms(m.Received.Sub(p.started)), ms(p.exitAt.Sub(t1)), nil
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
