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

// P12 asks three people, Alice, Bob and Carol, each on a phone of their
// own (internal/ntfytest's people: an account each that reads their
// topic alone), for a request all three must approve: the caller is
// `ask-confirm --approvals 3`, headless, with the setup remote setup
// wrote and the two others added to it. Each person taps Approve once
// their message arrived and a person could have read it, one after the
// other, each after the follow-up of the vote before; the time measured
// is the last vote's tap to the caller's exit. The reference is P10's: a
// message published with the asking token and received by a phone.

func (b *bench) p12() error {
	ce, err := b.newEnv("p12")
	if err != nil {
		return err
	}
	t := &benchT{dir: filepath.Join(b.work, "p12")}
	return t.run(func() error { return b.votes(t, ce) })
}

func (b *bench) votes(t *benchT, ce caseEnv) error {
	s, people := ntfytest.NewWithPeople(t, "Alice", "Bob", "Carol")
	base := headlessEnv(ce.environ())
	config := filepath.Join(ce.dir, "..", "config")
	env := withConfig(base, config)
	if err := b.setUpPhone(s, s.URL, filepath.Join(ce.dir, ".."), env); err != nil {
		return err
	}
	if err := addPeople(config, people); err != nil {
		return err
	}
	phones := make([]*ntfytest.Phone, len(people))
	seen := make([]int, len(people))
	for i, p := range people {
		phones[i] = ntfytest.NewPhoneOf(t, s, p)
	}
	roundTrip := func() (float64, error) {
		t0 := time.Now()
		if err := s.Publish("reference"); err != nil {
			return 0, err
		}
		seen[0]++
		return ms(phones[0].Await(seen[0]).Received.Sub(t0)), nil
	}
	var ref, last []float64
	for i := range b.n.p9Pairs + 1 {
		r, err := roundTrip()
		if err != nil {
			return err
		}
		message := fmt.Sprintf("vote %d", i)
		tapToExit, err := b.askThree(phones, seen, ce.dir, env, message)
		if err != nil {
			return err
		}
		if i == 0 {
			continue // warm-up
		}
		ref, last = append(ref, r), append(last, tapToExit)
	}
	sr, sl := summarize(ref), summarize(last)
	const budget = 100 + fleetSettle
	b.rows = append(b.rows, row{
		name: "P12 three approvers, last vote's tap to caller exit", ours: fmtMs(sl.median), ref: fmtMs(sr.median) + " (bare ntfy round trip)",
		delta:  fmt.Sprintf("×%.1f", sl.median/sr.median),
		target: fmt.Sprintf("≤ reference + %.0f ms", budget), pass: sl.median <= sr.median+budget,
	})
	b.note("### P12 three approvers\n")
	b.note("The real ntfy server on 127.0.0.1 with deny-all; Alice, Bob and Carol each have an account that reads their own topic alone, and the setup `remote setup` wrote (with its fleet's secret) names all three. The caller `ask-confirm --message 'vote N' --approvals 3 --wait 60s` runs with no display, so the three phones are its only way of asking. Each person taps Approve %s after their message arrived, in turn, each once every phone had the follow-up of the vote before; the time is from the last tap to the moment the caller was reaped. As P10 with a secret, the outcome waits for the second of the deciding vote to end (%.0f ms). The reference is a message published with the asking token and received by Alice's phone. %d rounds after one warm-up.\n", ntfytest.ReadingTime, fleetSettle, sl.n)
	b.note("- P12: %s", spread(sl))
	b.note("- bare round trip: %s\n", spread(sr))
	return nil
}

// addPeople names the first phone of the setup in config after people[0]
// and adds the others as its approvers, as remote approver add does.
func addPeople(config string, people []ntfytest.Person) error {
	path := filepath.Join(config, "ask-confirm", "remote.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var setup map[string]any
	if err := json.Unmarshal(raw, &setup); err != nil {
		return err
	}
	setup["name"] = people[0].Name
	var approvers []map[string]string
	for _, p := range people[1:] {
		approvers = append(approvers, map[string]string{"name": p.Name, "topic": p.Topic})
	}
	setup["approvers"] = approvers
	if raw, err = json.Marshal(setup); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o600)
}

// askThree runs a caller that needs all three phones' approvals, taps
// Approve on each in turn, and returns the last tap to the caller's exit,
// in ms; seen counts each phone's messages.
func (b *bench) askThree(phones []*ntfytest.Phone, seen []int, dir string, env []string, message string) (float64, error) {
	p, err := start(dir, env, b.bin, "--message", message, "--approvals", "3", "--wait", "60s")
	if err != nil {
		return 0, err
	}
	asked := make([]ntfytest.Message, len(phones))
	for i, ph := range phones {
		seen[i]++
		if asked[i] = ph.Await(seen[i]); !strings.HasPrefix(asked[i].Message, message) {
			p.kill()
			return 0, fmt.Errorf("phone %d shows %q", i, asked[i].Message)
		}
	}
	var t1 time.Time
	for i, ph := range phones {
		time.Sleep(time.Until(asked[i].Received.Add(ntfytest.ReadingTime)))
		t1 = time.Now()
		if code := ph.Tap(asked[i], "Approve"); code != http.StatusOK {
			p.kill()
			return 0, fmt.Errorf("the tap got %d", code)
		}
		// Every phone is told of the vote: its progress, or at the last
		// the outcome.
		for j, other := range phones {
			seen[j]++
			other.Await(seen[j])
		}
	}
	if !p.wait(10 * time.Second) {
		p.kill()
		return 0, fmt.Errorf("the caller did not exit within 10 s of the last tap")
	}
	if p.code != 0 {
		return 0, fmt.Errorf("the caller exited %d after three approvals", p.code)
	}
	return ms(p.exitAt.Sub(t1)), nil
}
