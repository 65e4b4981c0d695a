//go:build !e2e || !unix

package cmd

import (
	"os"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/leakcheck"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ask-confirm/ask-confirm/askpass"
)

// TestMain lets this test binary act as ask-confirm and
// ask-confirm-askpass: testscript installs copies of it under those names
// on PATH, so a holder re-executing "itself" runs Main. The end-to-end
// layer's TestMain is e2e.Main (e2e_main_test.go), which adds a scripted
// zenity.
func TestMain(m *testing.M) {
	testscript.Main(leakcheck.Checked(m), testPrograms)
}

// testPrograms are the programs this test binary can be run as.
var testPrograms = map[string]func(){
	"ask-confirm":         func() { os.Exit(Main()) },
	"ask-confirm-askpass": func() { os.Exit(askpass.Main()) },
}
