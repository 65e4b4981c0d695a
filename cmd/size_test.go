package cmd

import (
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/gosrc"
)

// TestRunHookFitsOnAScreen holds the hook command's main step under
// gosrc.MaxFuncLines lines (issue 36: it was 65, then 69).
func TestRunHookFitsOnAScreen(t *testing.T) {
	lines, err := gosrc.FuncLines("command_hook.go")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := lines["app.runHook"]
	if !ok {
		t.Fatal("command_hook.go declares no app.runHook")
	}
	if n >= gosrc.MaxFuncLines {
		t.Errorf("app.runHook spans %d lines; bring it under %d by naming its steps", n, gosrc.MaxFuncLines)
	}
}
