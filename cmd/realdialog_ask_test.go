//go:build e2e && unix

package cmd_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Real dialogs for the questions beyond yes or no: choose (a zenity list)
// and input (a zenity entry), and the third button of approve-for.

var deployOptions = []string{"--option", "staging=the staging cluster", "--option", "production", "--option", "qa"}

func chooseArgs(title string, extra ...string) []string {
	args := append([]string{"choose", "--title", title, "--message", "Deploy to?"}, deployOptions...)
	return append(args, extra...)
}

// One option, picked with the keyboard as a person would (type to find,
// Enter): its label alone on stdout, exit 0.
func TestRealDialogChooseOne(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-choose")
	r := h.Start(chooseArgs(title)...)
	h.TypeInto(title, "prod", false)
	h.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	if o.Code != 0 || o.Stdout != "production\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the label; stderr %s", o.Code, o.Stdout, o.Stderr)
	}
	if !strings.Contains(o.Stderr, "chosen: production") {
		t.Fatalf("stderr %q", o.Stderr)
	}
	// The history names the choice: the labels are the question's own text.
	found := false
	for _, ev := range h.History() {
		if ev["event"] == "answered" {
			found = reflect.DeepEqual(ev["answer"], []any{"production"})
		}
	}
	if !found {
		t.Fatalf("no answered event with the label: %v", h.History())
	}
}

// Several options, ticked: each label on its own line, in the options'
// order, and the JSON answer is their list.
func TestRealDialogChooseSeveral(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-several")
	args := []string{"choose", "--multiple", "--no-origin", "--title", title, "--message", "Run which checks?",
		"--option", "lint", "--option", "unit", "--option", "e2e"}
	r := h.Start(args...)
	h.Tick(title, 0, 2)
	h.Click(title, "approve")
	o := r.Wait(30 * time.Second)
	if o.Code != 0 || o.Stdout != "lint\ne2e\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and two labels; stderr %s", o.Code, o.Stdout, o.Stderr)
	}
	o = h.Run(append(args, "--json")...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered || !reflect.DeepEqual(o.Res.Answer, []any{"lint", "e2e"}) {
		t.Fatalf("remembered answer: %+v", o.Res)
	}
}

func TestRealDialogChooseCancel(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-choose-cancel")
	r := h.Start(chooseArgs(title, "--json")...)
	h.Click(title, "cancel")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 1, lifecycle.StatusDenied)
	if o.Res.Answer != nil {
		t.Fatalf("a cancelled choice has an answer: %+v", o.Res)
	}
}

// Pending, then the person picks, then the same command collects the
// answer without a dialog; the same options in another order are another
// question, with a dialog of its own.
func TestRealDialogChoosePendingThenCollect(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-choose-pending")
	args := chooseArgs(title, "--json", "--wait", "2s")
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.SelectLastRow(title) // qa is the last row
	h.Key(title, "Return")
	h.AnsweredAt(o.Res.Key)
	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "qa" || !o.Res.Remembered {
		t.Fatalf("collected: %+v", o.Res)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs requested, want 1", n)
	}

	reordered := []string{"choose", "--json", "--wait", "2s", "--title", title, "--message", "Deploy to?",
		"--option", "qa", "--option", "staging=the staging cluster", "--option", "production"}
	o = h.Run(reordered...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.WaitWindow(title)
	h.Click(title, "cancel")
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs requested, want 2: the reordered list is another question", n)
	}
}

// Text typed into the entry comes out on stdout; the history holds its
// hash, never the text.
func TestRealDialogInputTyped(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-input")
	const text = "release v2.1 final"
	r := h.Start("input", "--title", title, "--message", "Name of the release?", "--default", "v2.0")
	h.TypeInto(title, text, true)
	h.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	if o.Code != 0 || o.Stdout != text+"\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and %q; stderr %s", o.Code, o.Stdout, text, o.Stderr)
	}
	raw, err := os.ReadFile(filepath.Join(h.Dir, "state", "ask-confirm", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), text) || !strings.Contains(string(raw), `"answer_sha256"`) {
		t.Fatalf("the history holds the text, or not its hash:\n%s", raw)
	}
}

// An empty answer is an answer: exit 0 and an empty line.
func TestRealDialogInputEmpty(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-input-empty")
	r := h.Start("input", "--json", "--title", title, "--message", "Any comment?", "--default", "none")
	h.TypeInto(title, "", true)
	h.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "" {
		t.Fatalf("answer %#v, want the empty text", o.Res.Answer)
	}
}

func TestRealDialogInputCancel(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-input-cancel")
	r := h.Start("input", "--title", title, "--message", "Name?")
	h.Key(title, "Escape")
	o := r.Wait(30 * time.Second)
	if o.Code != 1 || o.Stdout != "" {
		t.Fatalf("exit %d, stdout %q, want 1 and nothing", o.Code, o.Stdout)
	}
}

func TestRealDialogInputPendingThenCollect(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-input-pending")
	args := []string{"input", "--json", "--wait", "2s", "--title", title, "--message", "Tag name?"}
	o := h.Run(args...)
	h.Expect(o, 3, lifecycle.StatusPending)
	h.TypeInto(title, "v3", true)
	h.Key(title, "Return")
	h.AnsweredAt(o.Res.Key)
	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "v3" || !o.Res.Remembered {
		t.Fatalf("collected: %+v", o.Res)
	}
}

// The third button approves and keeps the approval for its period: the
// same request within it exits 0 without a dialog whatever --remember says,
// a different request shows its own, and after the period a dialog shows.
func TestRealDialogApproveFor(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-approve-for")
	// Without the origin line, the three buttons fill the dialog's width,
	// and the leftmost, approve-for, is at its left edge.
	args := []string{"--json", "--no-origin", "--remember", "0", "--collect-within", "0", "--approve-for", "15s", "--title", title, "--message", "Restart the web server?"}
	r := h.Start(args...)
	h.ClickApproveFor(title)
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.ApprovedUntil.IsZero() {
		t.Fatalf("no approved_until: %+v", o.Res)
	}
	o = h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered || h.DialogsRequested() != 1 {
		t.Fatalf("within the period: %+v after %d dialogs", o.Res, h.DialogsRequested())
	}

	other := append([]string{}, args...)
	other[len(other)-1] = "Restart the database?"
	r = h.Start(append(other, "--wait", "20s")...)
	h.Click(title, "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)

	e2e.SleepUntil(o.Res.ApprovedUntil.Add(200 * time.Millisecond))
	r = h.Start(args...)
	h.Click(title, "cancel")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 3 {
		t.Fatalf("%d dialogs requested, want 3", n)
	}
	found := false
	for _, ev := range h.History() {
		found = found || (ev["event"] == "answered" && ev["approved_for"] == "15s" && ev["outcome"] == "approved")
	}
	if !found {
		t.Fatalf("the history does not record the approval for 5s: %v", h.History())
	}
}

// --other: picking "Other…" asks for the person's own answer in a second
// window of the same request; the text is the answer, marked other, and
// Cancel in that window is no answer.
func TestRealDialogChooseOther(t *testing.T) {
	h := e2e.NewRealHarness(t)
	title := h.Title("RD-other")
	args := chooseArgs(title, "--json", "--other")
	r := h.Start(args...)
	h.SelectLastRow(title) // Other… is the last row
	h.PressUntilReplaced(title, "Return")
	h.TypeInto(title, "canary 5 percent", true)
	h.Key(title, "Return")
	o := r.Wait(30 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "canary 5 percent" || !o.Res.Other {
		t.Fatalf("answer %#v, other %v", o.Res.Answer, o.Res.Other)
	}
	raw, err := os.ReadFile(filepath.Join(h.Dir, "state", "ask-confirm", "history.jsonl"))
	e2e.Must(t, err)
	if strings.Contains(string(raw), "canary") {
		t.Fatalf("the history holds the typed text:\n%s", raw)
	}

	title = h.Title("RD-other-cancel")
	r = h.Start(chooseArgs(title, "--json", "--other")...)
	h.SelectLastRow(title) // Other… is the last row
	h.PressUntilReplaced(title, "Return")
	h.Key(title, "Escape")
	h.Expect(r.Wait(30*time.Second), 1, lifecycle.StatusDenied)
}
