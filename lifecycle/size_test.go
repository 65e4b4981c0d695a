package lifecycle

import (
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/gosrc"
)

// TestShowFitsOnAScreen holds the holder's main step under
// gosrc.MaxFuncLines lines (issue 36: it was 62, then 76).
func TestShowFitsOnAScreen(t *testing.T) {
	lines, err := gosrc.FuncLines("holder.go")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := lines["Engine.show"]
	if !ok {
		t.Fatal("holder.go declares no Engine.show")
	}
	if n >= gosrc.MaxFuncLines {
		t.Errorf("Engine.show spans %d lines; bring it under %d by naming its steps", n, gosrc.MaxFuncLines)
	}
}
