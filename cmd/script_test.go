//go:build e2e && unix

// The scripts check exact exit codes through sh, so they run on Unix.

package cmd_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScript runs the real binary (this test binary, installed as
// ask-confirm by TestMain) through the scripts in testdata/script, each in
// its own XDG tree and with no display, so nobody can ever be asked.
func TestScript(t *testing.T) {
	t.Parallel() // no display at all
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			vars := env.Vars[:0]
			for _, kv := range env.Vars {
				name, _, _ := strings.Cut(kv, "=")
				if name != "DISPLAY" && name != "WAYLAND_DISPLAY" {
					vars = append(vars, kv)
				}
			}
			env.Vars = vars
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			return nil
		},
	})
}
