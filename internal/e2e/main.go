//go:build e2e && unix

// Package e2e is the end-to-end test harness that every package's e2e
// tests share (build tag e2e): the real ask-confirm binary run as a
// caller would, in a private XDG tree; the real holder, store and locks; a
// scripted zenity the tests answer through files; real GNOME zenity on the
// X server and on the headless Wayland compositor that scripts/test starts,
// answered with xdotool or wtype; and MCP and agent-hook callers.
//
// A package's e2e tests are an external test package whose TestMain calls
// Main. The test binary then serves as ask-confirm, ask-confirm-askpass,
// ask-confirm-phone and the scripted zenity: testscript installs it under those names on PATH,
// so a holder that re-executes "itself" runs ask-confirm, and a holder
// looking for zenity finds the scripted one unless a test puts the real
// one first.
package e2e

import (
	"os"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/leakcheck"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ask-confirm/ask-confirm/askpass"
	"github.com/ask-confirm/ask-confirm/remote/ntfy"
)

// Main runs m's tests with this test binary installed as the programs the
// harness runs, then fails on a goroutine left running.
func Main(m *testing.M) {
	testscript.Main(leakcheck.Checked(m, removeMCPServer), map[string]func(){
		"ask-confirm":         testAskConfirm,
		"ask-confirm-askpass": func() { os.Exit(askpass.Main()) },
		"ask-confirm-phone":   func() { os.Exit(ntfy.Main()) },
		"zenity":              fakeZenity,
	})
}

// Must fails the test on an error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
