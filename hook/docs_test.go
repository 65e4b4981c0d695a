package hook

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/mdtable"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// deniesUnanswered reports what h's hook answers, for event, to a question
// nobody answered (r: pending at the end of the wait, or headless): true
// for a deny, false for a hand-back to the host's own prompt.
func deniesUnanswered(h Host, event string, r lifecycle.Result) bool {
	resp := Payload{Host: h, Event: event}.Respond(r, DefaultSettings(), NotStopped, time.Unix(1, 0))
	return strings.Contains(string(resp.Stdout), `"deny"`)
}

var (
	unansweredResult = lifecycle.Result{Status: lifecycle.StatusWithdrawn, ExitCode: lifecycle.ExitDenied}
	headlessResult   = lifecycle.Result{Status: lifecycle.StatusHeadless, ExitCode: lifecycle.ExitHeadless, Headless: true, Message: "nobody can be asked: no display"}
)

// Host.HandsBack, which help text and the docs are written from, is what
// Respond and Refuse do: a host that hands back gets no deny for a
// question nobody answered, in any of its events, and exit 1 for input
// that cannot be read; any other gets a deny, and exit 0 with a deny.
func TestHandsBackIsWhatTheHookDoes(t *testing.T) {
	for _, h := range Hosts() {
		for _, ev := range h.Events {
			for _, r := range []lifecycle.Result{unansweredResult, headlessResult} {
				if deniesUnanswered(h, ev, r) == h.HandsBack {
					t.Errorf("%s %s, %s: a deny is %v, but HandsBack is %v", h.Name, ev, r.Status, !h.HandsBack, h.HandsBack)
				}
			}
		}
		resp, refused := Refuse(h, errors.New("not JSON"))
		if refused == h.HandsBack || refused && (resp.Code != ExitAnswered || !strings.Contains(string(resp.Stdout), `"deny"`)) {
			t.Errorf("%s: unreadable input answered %v (%s, exit %d), but HandsBack is %v", h.Name, refused, resp.Stdout, resp.Code, h.HandsBack)
		}
	}
}

// agent-hooks.md says, host by host, how a question nobody answered ends:
// its tables must say deny exactly where the hook denies. (It once said
// every headless call was handed back, which Gemini CLI and Cursor never
// get.)
func TestDocsEndingsByHost(t *testing.T) {
	const doc = "../docs/agent-hooks.md"
	const heading = "## How each kind of ending goes, by host"
	header, err := mdtable.Header(doc, heading)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := mdtable.Rows(doc, heading)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, row := range rows {
		var r lifecycle.Result
		switch {
		case strings.HasPrefix(row[0], "nobody answers within"):
			r = unansweredResult
		case strings.HasPrefix(row[0], "no display"):
			r = headlessResult
		default:
			continue
		}
		for i, cell := range row[1:] {
			h := hostNamed(t, header[i+1])
			denies := deniesUnanswered(h, h.Events[0], r)
			if says := strings.Contains(cell, "denied"); says != denies {
				t.Errorf("%s, %q, %s: the doc says %q, but the hook denies: %v", doc, row[0], h.Agent, cell, denies)
			}
			checked++
		}
	}
	if checked != 2*len(Hosts()) {
		t.Fatalf("%s: checked %d cells of %q, want two rows of %d hosts", doc, checked, heading, len(Hosts()))
	}

	// What the host is told: a column per host and event.
	const told = "## What the host is told"
	header, err = mdtable.Header(doc, told)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = mdtable.Rows(doc, told)
	if err != nil {
		t.Fatal(err)
	}
	checked = 0
	for _, row := range rows {
		if !strings.HasPrefix(row[0], "nobody answered within") {
			continue
		}
		for i, cell := range row[1:] {
			for _, h := range Hosts() {
				if !strings.Contains(header[i+1], h.Agent) {
					continue
				}
				for _, ev := range h.Events {
					if mentionsEvent(header[i+1]) && !strings.Contains(header[i+1], ev) {
						continue
					}
					for _, r := range []lifecycle.Result{unansweredResult, headlessResult} {
						denies := deniesUnanswered(h, ev, r)
						if says := strings.Contains(cell, `"deny"`); says != denies {
							t.Errorf("%s, %q, %s %s: the doc says %q, but the hook denies: %v", doc, header[i+1], h.Agent, ev, cell, denies)
						}
					}
					checked++
				}
			}
		}
	}
	want := 0
	for _, h := range Hosts() {
		want += len(h.Events)
	}
	if checked != want {
		t.Fatalf("%s: checked %d host events in %q, want %d", doc, checked, told, want)
	}
}

// hostNamed is the host whose agent a table's header cell names.
func hostNamed(t *testing.T, cell string) Host {
	t.Helper()
	i := slices.IndexFunc(Hosts(), func(h Host) bool { return cell == h.Agent })
	if i < 0 {
		t.Fatalf("the column %q names no host", cell)
	}
	return Hosts()[i]
}

// mentionsEvent reports whether a header cell names a hook event.
func mentionsEvent(cell string) bool {
	for _, h := range Hosts() {
		for _, ev := range h.Events {
			if strings.Contains(cell, ev) {
				return true
			}
		}
	}
	return false
}

// agent-hooks.md gives the caps on each text the dialog shows as the code
// sets them.
func TestDocsShownCaps(t *testing.T) {
	b, err := os.ReadFile("../docs/agent-hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("A command longer than %s bytes once escaped is cut", thousands(maxShownBytes)),
		fmt.Sprintf("which are cut to %d bytes", maxSaidBytes),
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), want) {
			t.Errorf("docs/agent-hooks.md does not say %q", want)
		}
	}
}
