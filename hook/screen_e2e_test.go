//go:build e2e && linux

package hook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/adversarial"
	"github.com/ask-confirm/ask-confirm/internal/e2e"
)

// What the person sees is what they approve: a prompt-injected agent
// writes the command the hook shows, and may shape it so that its end, the
// part that does the harm, falls outside what the dialog shows. These tests
// show each command of the adversarial corpus (internal/adversarial) in the
// real dialog, as Claude Code's PreToolUse hook, and read the screen with
// OCR: the command's tail word must be on the screen, the window within the
// screen and small enough for a 1024x768 one, and both buttons readable;
// then Escape must deny.

// The shapes that hid a command's tail when they were reported.
func TestScreenShowsTheTailOfReportedCommands(t *testing.T) {
	for _, c := range adversarial.IssueCases() {
		t.Run(c.Name, func(t *testing.T) { hookScreenShowsTheTail(t, c, 0, false) })
	}
}

// A bounded number of generated shapes, ASK_CONFIRM_CORPUS_CASES of the
// corpus of seed ASK_CONFIRM_CORPUS_SEED (adversarial.FromEnv).
func TestScreenShowsTheTailOfGeneratedCommands(t *testing.T) {
	seed, n, err := adversarial.FromEnv()
	e2e.Must(t, err)
	t.Logf("%d cases of the corpus of seed %d", n, seed)
	for _, c := range adversarial.Generate(seed, n) {
		t.Run(c.Name, func(t *testing.T) { hookScreenShowsTheTail(t, c, seed, true) })
	}
}

// hookScreenShowsTheTail shows c's command in the hook's dialog, reads the
// screen, and denies with Escape. What it finds wrong is reported together,
// with the case whole and what was read: the window is closed first, so
// that the next case has the screen to itself.
func hookScreenShowsTheTail(t *testing.T, c adversarial.Case, seed uint64, generated bool) {
	e2e.NeedOCR(t)
	h := e2e.NewRealHarness(t)
	h.HomeIsTheTestDir()
	call := e2e.NewHookCall(h, e2e.RealHookHosts[1], "SC-tail", c.Command)
	r := call.Start(h, "--wait", "60s")
	rd, problems := h.ReadAndDeny(c, call.Title, r, "Deny", "Allow")
	if v, reason := call.Verdict(t, r.Wait(30*time.Second)); v != "deny" {
		problems = append(problems, "after Escape the host was told "+v+" "+reason)
	}
	if len(problems) > 0 {
		t.Errorf("%s\n%s\n%s", strings.Join(problems, "\n"), e2e.CaseReport(c, seed, generated), rd.Report(t, t.Name()))
	}
}
