package cmd

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"
)

// TestMain lets this test binary act as ask-confirm and as a scripted
// zenity: testscript installs copies of it under those names on PATH, so a
// holder re-executing "itself" runs Main, and a holder looking for zenity
// finds fakeZenity (unless a test puts the real one first).
func TestMain(m *testing.M) {
	testscript.Main(leakChecked{m}, map[string]func(){
		"ask-confirm": func() { os.Exit(Main()) },
		"zenity":      fakeZenity,
	})
}

type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	removeMCPServer()
	if code != 0 {
		return code
	}
	// waitForRelease leaves one goroutine blocked on a lock by design.
	if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/ask-confirm/ask-confirm/cmd.waitForRelease.func1")); err != nil {
		fmt.Fprintln(os.Stderr, "goroutine leak:", err)
		return 1
	}
	return 0
}
