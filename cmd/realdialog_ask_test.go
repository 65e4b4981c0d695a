//go:build e2e && unix

package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Real dialogs for the questions beyond yes or no: choose (a zenity list)
// and input (a zenity entry), and the third button of approve-for.

// typeInto focuses the dialog titled title once it is stable and types
// text (after selecting what is there, for an entry), without closing it.
func (h *harness) typeInto(title, text string, clear bool) {
	h.t.Helper()
	w := h.waitWindow(title)
	h.waitStable(w)
	xdoMu.Lock()
	defer xdoMu.Unlock()
	xdotool(h.t, "windowraise", w)
	xdotool(h.t, "windowfocus", "--sync", w)
	if clear {
		xdotool(h.t, "key", "ctrl+a", "BackSpace")
	}
	if text != "" {
		xdotool(h.t, "type", "--delay", "30", text)
	}
	h.acted = time.Now()
}

// tick clicks the check boxes of rows of the --multiple list titled title,
// counted from 0. The list starts under a one-line message (tests pass
// --no-origin): GTK 3 zenity draws the first row's box at (25, 46) of the
// window and a row every 24 px. A miss shows as a wrong answer.
func (h *harness) tick(title string, rows ...int) {
	h.t.Helper()
	h.tickFrom(title, 46, rows...)
}

// rowBelowOrigin is how much lower the first row of a list is with the
// origin line under a one-line message: a blank line and the line itself.
const rowBelowOrigin = 34

// tickFrom is tick for a list whose first row's box is first px below the
// top of the window.
func (h *harness) tickFrom(title string, first int, rows ...int) {
	h.t.Helper()
	w := h.waitWindow(title)
	h.waitStable(w)
	xdoMu.Lock()
	defer xdoMu.Unlock()
	geo := h.geometry(w)
	for _, row := range rows {
		x, y := geo["X"]+25, geo["Y"]+first+24*row
		xdotool(h.t, "mousemove", "--sync", "0", "0")
		xdotool(h.t, "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		xdotool(h.t, "click", "1")
		time.Sleep(150 * time.Millisecond)
	}
}

// clickApproveFor presses the leftmost of the three buttons, where GTK 3
// zenity puts the extra one ("Approve for 1h"), in a dialog no wider than
// its buttons, which then fill the bottom row.
func (h *harness) clickApproveFor(title string) {
	h.t.Helper()
	h.untilClosed(title, "clicking approve-for", func(w string) {
		geo := h.geometry(w)
		xdotool(h.t, "mousemove", "--sync", "0", "0")
		xdotool(h.t, "mousemove", "--sync", strconv.Itoa(geo["X"]+40), strconv.Itoa(geo["Y"]+geo["HEIGHT"]-22))
		h.acted = time.Now()
		xdotool(h.t, "click", "1")
	})
}

var deployOptions = []string{"--option", "staging=the staging cluster", "--option", "production", "--option", "qa"}

func chooseArgs(title string, extra ...string) []string {
	args := append([]string{"choose", "--title", title, "--message", "Deploy to?"}, deployOptions...)
	return append(args, extra...)
}

// One option, picked with the keyboard as a person would (type to find,
// Enter): its label alone on stdout, exit 0.
func TestRealDialogChooseOne(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-choose")
	r := h.start(chooseArgs(title)...)
	h.typeInto(title, "prod", false)
	h.key(title, "Return")
	o := r.wait(30 * time.Second)
	if o.code != 0 || o.stdout != "production\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and the label; stderr %s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "chosen: production") {
		t.Fatalf("stderr %q", o.stderr)
	}
	// The history names the choice: the labels are the question's own text.
	found := false
	for _, ev := range h.history() {
		if ev["event"] == "answered" {
			found = reflect.DeepEqual(ev["answer"], []any{"production"})
		}
	}
	if !found {
		t.Fatalf("no answered event with the label: %v", h.history())
	}
}

// Several options, ticked: each label on its own line, in the options'
// order, and the JSON answer is their list.
func TestRealDialogChooseSeveral(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-several")
	args := []string{"choose", "--multiple", "--no-origin", "--title", title, "--message", "Run which checks?",
		"--option", "lint", "--option", "unit", "--option", "e2e"}
	r := h.start(args...)
	h.tick(title, 0, 2)
	h.click(title, "approve")
	o := r.wait(30 * time.Second)
	if o.code != 0 || o.stdout != "lint\ne2e\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and two labels; stderr %s", o.code, o.stdout, o.stderr)
	}
	o = h.run(append(args, "--json")...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered || !reflect.DeepEqual(o.res.Answer, []any{"lint", "e2e"}) {
		t.Fatalf("remembered answer: %+v", o.res)
	}
}

func TestRealDialogChooseCancel(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-choose-cancel")
	r := h.start(chooseArgs(title, "--json")...)
	h.click(title, "cancel")
	o := r.wait(30 * time.Second)
	h.expect(o, 1, lifecycle.StatusDenied)
	if o.res.Answer != nil {
		t.Fatalf("a cancelled choice has an answer: %+v", o.res)
	}
}

// Pending, then the person picks, then the same command collects the
// answer without a dialog; the same options in another order are another
// question, with a dialog of its own.
func TestRealDialogChoosePendingThenCollect(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-choose-pending")
	args := chooseArgs(title, "--json", "--wait", "2s")
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.typeInto(title, "qa", false)
	h.key(title, "Return")
	h.answeredAt(o.res.Key)
	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Answer != "qa" || !o.res.Remembered {
		t.Fatalf("collected: %+v", o.res)
	}
	if n := h.dialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs requested, want 1", n)
	}

	reordered := []string{"choose", "--json", "--wait", "2s", "--title", title, "--message", "Deploy to?",
		"--option", "qa", "--option", "staging=the staging cluster", "--option", "production"}
	o = h.run(reordered...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.waitWindow(title)
	h.click(title, "cancel")
	if n := h.dialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs requested, want 2: the reordered list is another question", n)
	}
}

// Text typed into the entry comes out on stdout; the history holds its
// hash, never the text.
func TestRealDialogInputTyped(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-input")
	const text = "release v2.1 final"
	r := h.start("input", "--title", title, "--message", "Name of the release?", "--default", "v2.0")
	h.typeInto(title, text, true)
	h.key(title, "Return")
	o := r.wait(30 * time.Second)
	if o.code != 0 || o.stdout != text+"\n" {
		t.Fatalf("exit %d, stdout %q, want 0 and %q; stderr %s", o.code, o.stdout, text, o.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(h.dir, "state", "ask-confirm", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), text) || !strings.Contains(string(raw), `"answer_sha256"`) {
		t.Fatalf("the history holds the text, or not its hash:\n%s", raw)
	}
}

// An empty answer is an answer: exit 0 and an empty line.
func TestRealDialogInputEmpty(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-input-empty")
	r := h.start("input", "--json", "--title", title, "--message", "Any comment?", "--default", "none")
	h.typeInto(title, "", true)
	h.key(title, "Return")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Answer != "" {
		t.Fatalf("answer %#v, want the empty text", o.res.Answer)
	}
}

func TestRealDialogInputCancel(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-input-cancel")
	r := h.start("input", "--title", title, "--message", "Name?")
	h.key(title, "Escape")
	o := r.wait(30 * time.Second)
	if o.code != 1 || o.stdout != "" {
		t.Fatalf("exit %d, stdout %q, want 1 and nothing", o.code, o.stdout)
	}
}

func TestRealDialogInputPendingThenCollect(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-input-pending")
	args := []string{"input", "--json", "--wait", "2s", "--title", title, "--message", "Tag name?"}
	o := h.run(args...)
	h.expect(o, 3, lifecycle.StatusPending)
	h.typeInto(title, "v3", true)
	h.key(title, "Return")
	h.answeredAt(o.res.Key)
	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Answer != "v3" || !o.res.Remembered {
		t.Fatalf("collected: %+v", o.res)
	}
}

// The third button approves and keeps the approval for its period: the
// same request within it exits 0 without a dialog whatever --remember says,
// a different request shows its own, and after the period a dialog shows.
func TestRealDialogApproveFor(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-approve-for")
	// Without the origin line, the three buttons fill the dialog's width,
	// and the leftmost, approve-for, is at its left edge.
	args := []string{"--json", "--no-origin", "--remember", "0", "--collect-within", "0", "--approve-for", "15s", "--title", title, "--message", "Restart the web server?"}
	r := h.start(args...)
	h.clickApproveFor(title)
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.ApprovedUntil.IsZero() {
		t.Fatalf("no approved_until: %+v", o.res)
	}
	o = h.run(args...)
	h.expect(o, 0, lifecycle.StatusApproved)
	if !o.res.Remembered || h.dialogsRequested() != 1 {
		t.Fatalf("within the period: %+v after %d dialogs", o.res, h.dialogsRequested())
	}

	other := append([]string{}, args...)
	other[len(other)-1] = "Restart the database?"
	r = h.start(append(other, "--wait", "20s")...)
	h.click(title, "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)

	sleepUntil(o.res.ApprovedUntil.Add(200 * time.Millisecond))
	r = h.start(args...)
	h.click(title, "cancel")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
	if n := h.dialogsRequested(); n != 3 {
		t.Fatalf("%d dialogs requested, want 3", n)
	}
	found := false
	for _, ev := range h.history() {
		found = found || (ev["event"] == "answered" && ev["approved_for"] == "15s" && ev["outcome"] == "approved")
	}
	if !found {
		t.Fatalf("the history does not record the approval for 5s: %v", h.history())
	}
}

// --other: picking "Other…" asks for the person's own answer in a second
// window of the same request; the text is the answer, marked other, and
// Cancel in that window is no answer.
func TestRealDialogChooseOther(t *testing.T) {
	h := newRealHarness(t)
	title := h.title("RD-other")
	args := chooseArgs(title, "--json", "--other")
	r := h.start(args...)
	h.typeInto(title, "Other", false)
	h.key(title, "Return")
	h.typeInto(title, "canary 5 percent", true)
	h.key(title, "Return")
	o := r.wait(30 * time.Second)
	h.expect(o, 0, lifecycle.StatusApproved)
	if o.res.Answer != "canary 5 percent" || !o.res.Other {
		t.Fatalf("answer %#v, other %v", o.res.Answer, o.res.Other)
	}
	raw, err := os.ReadFile(filepath.Join(h.dir, "state", "ask-confirm", "history.jsonl"))
	must(t, err)
	if strings.Contains(string(raw), "canary") {
		t.Fatalf("the history holds the typed text:\n%s", raw)
	}

	title = h.title("RD-other-cancel")
	r = h.start(chooseArgs(title, "--json", "--other")...)
	h.typeInto(title, "Other", false)
	h.key(title, "Return")
	h.key(title, "Escape")
	h.expect(r.wait(30*time.Second), 1, lifecycle.StatusDenied)
}
