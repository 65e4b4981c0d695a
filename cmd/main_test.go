package cmd

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/ask-confirm/ask-confirm/askpass"
)

// TestMain lets this test binary act as ask-confirm, ask-confirm-askpass
// and a scripted zenity: testscript installs copies of it under those names on PATH, so a
// holder re-executing "itself" runs Main, and a holder looking for zenity
// finds fakeZenity (unless a test puts the real one first).
func TestMain(m *testing.M) {
	testscript.Main(leakChecked{m}, testPrograms)
}

// testPrograms are the programs this test binary can be run as. The
// end-to-end layer (build tag e2e) adds the scripted zenity.
var testPrograms = map[string]func(){
	"ask-confirm":         func() { os.Exit(Main()) },
	"ask-confirm-askpass": func() { os.Exit(askpass.Main()) },
}

// afterTests run once the tests have, before the leak check.
var afterTests []func()

type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	for _, f := range afterTests {
		f()
	}
	if code != 0 {
		return code
	}
	// A wait for a lock that outlives its caller (a supersede that gave up
	// waiting) leaves one goroutine blocked on the lock by design.
	if err := goleak.Find(goleak.IgnoreAnyFunction("github.com/ask-confirm/ask-confirm/platform.awaitRelease")); err != nil {
		fmt.Fprintln(os.Stderr, "goroutine leak:", err)
		return 1
	}
	return 0
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
