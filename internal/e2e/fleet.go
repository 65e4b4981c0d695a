//go:build e2e && unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// A fleet is machines that share one phone setup, each a harness of its
// own (its own HOME-like XDG tree, store, locks and holders), through the
// real binary, against the real ntfy server.

// Headless makes h's callers run where no dialog can be shown: no
// display, and (started by the test) no terminal.
func Headless(h *Harness) *Harness {
	h.Env = WithoutEnv(h.Env, "DISPLAY")
	return h
}

// ExportedFleet sets the phone up on a headless machine against s, and
// returns the setup as remote export prints it, for FleetMachine.
func ExportedFleet(t *testing.T, s *ntfytest.Server) string {
	t.Helper()
	setup := Headless(NewFakeHarness(t))
	setup.SetUpPhone(s, "only")
	exported := setup.Run("remote", "export")
	if exported.Code != 0 {
		t.Fatalf("remote export: exit %d %s", exported.Code, exported.Stderr)
	}
	return strings.TrimSpace(exported.Stdout)
}

// FleetMachine is a machine without a display given the setup exported
// from another, in ASK_CONFIRM_REMOTE, as a CI system hands a job a
// secret: no remote.json.
func FleetMachine(t *testing.T, setup string) *Harness {
	t.Helper()
	h := Headless(NewFakeHarness(t))
	h.Env = append(h.Env, "ASK_CONFIRM_REMOTE="+setup)
	return h
}

// TearDown ends a CI runner: its holders and their children killed with
// SIGKILL, its store, locks and history deleted.
func TearDown(t *testing.T, h *Harness) {
	t.Helper()
	recs, err := store.New(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db")).List()
	if err != nil || len(recs) == 0 {
		t.Fatalf("the runner's store: %v, %d records", err, len(recs))
	}
	for _, r := range recs {
		if r.HolderPID > 0 {
			// The holder leads its own process group, with the phone's
			// program in it: a runner's teardown kills them all.
			_ = syscall.Kill(-r.HolderPID, syscall.SIGKILL)
		}
	}
	// Killed, not yet gone: a holder may finish a write it was in.
	for _, r := range recs {
		if r.HolderPID > 0 {
			Eventually(t, 30*time.Second, "the runner's killed holder to be gone", func() bool { return !ProcessAlive(r.HolderPID) })
		}
	}
	for _, d := range []string{"cache", "state", "config"} {
		Must(t, os.RemoveAll(filepath.Join(h.Dir, d)))
	}
}

// AddPeople names the first phone of h's setup (its remote.json) after
// people[0], and adds the other people, each on their own topic, as
// remote setup --name and remote approver add record them. It returns
// the setup as it is then, one line of JSON, as remote export prints it.
func AddPeople(t *testing.T, h *Harness, people []ntfytest.Person) string {
	t.Helper()
	path := filepath.Join(h.Dir, "config", "ask-confirm", "remote.json")
	s, err := remote.Load(path)
	Must(t, err)
	s.Name = people[0].Name
	for _, p := range people[1:] {
		s.Approvers = append(s.Approvers, remote.Approver{Name: p.Name, Topic: p.Topic})
	}
	Must(t, remote.Save(path, s))
	b, err := os.ReadFile(path)
	Must(t, err)
	return strings.TrimSpace(string(b))
}

// Shown waits until h's history says its request is on the phone, or
// joined the fleet's request that is.
func Shown(t *testing.T, h *Harness) {
	t.Helper()
	Eventually(t, 30*time.Second, "the machine's request to be on the phone", func() bool {
		for _, e := range h.History() {
			if e["event"] == "shown" {
				return true
			}
		}
		return false
	})
}
