package platform

import (
	"context"
	"runtime"
	"testing"
)

// Whatever this machine offers, Detect's answer hangs together: a refusal
// says why, and a session where a person can be asked names where.
func TestDetectIsConsistent(t *testing.T) {
	s := Detect()
	t.Logf("%+v", s)
	if s.CanAsk {
		if s.Reason != "" || s.Hint != "" || s.Kind == KindHeadless || s.Display == "" || s.Backend == "" {
			t.Errorf("Detect() = %+v: a session that can ask needs a kind, a display and a backend, and no reason", s)
		}
	} else if s.Reason == "" {
		t.Errorf("Detect() = %+v: a session that cannot ask needs a reason", s)
	}
}

func TestInspectAgreesWithDetect(t *testing.T) {
	r := Inspect(context.Background())
	t.Logf("%+v", r)
	s := Detect()
	if r.CanAsk != s.CanAsk || r.Kind != s.Kind || r.Backend != s.Backend {
		t.Errorf("Inspect() says %v/%s/%s, Detect() %v/%s/%s", r.CanAsk, r.Kind, r.Backend, s.CanAsk, s.Kind, s.Backend)
	}
	if r.OS != runtime.GOOS || r.Arch != runtime.GOARCH {
		t.Errorf("Inspect() reports %s/%s on %s/%s", r.OS, r.Arch, runtime.GOOS, runtime.GOARCH)
	}
	if r.Detach == "" {
		t.Error("Inspect() does not say how a holder is detached")
	}
}
