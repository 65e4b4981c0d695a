//go:build e2e && unix

package cmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote/ntfy"
	"github.com/ask-confirm/ask-confirm/store"
)

// The person's phone here is ntfy's own web app (the client a person opens
// in a browser or installs as a PWA), served by the real ntfy server and
// driven in Debian's headless Chromium by scripts/webapp/phone.js
// (playwright-core from npm, pinned in scripts/webapp/package-lock.json):
// it signs in as the phone's account, subscribes to the request topic,
// reads each card as the person sees it and taps its buttons, against the
// real ask-confirm binary.

// TestPhoneWebApp asks four requests on the web app: Approve exits 0,
// Cancel exits 1, the request's own labels are its buttons, and a text
// over ntfy's limit shows its head, the cut and its tail; each card shows
// the title, the text and who asks, and each tap brings its follow-up
// card. A request that ended keeps its buttons there (the web app ignores
// an action's clear), and a tap on them then changes nothing.
func TestPhoneWebApp(t *testing.T) {
	t.Parallel() // no display
	tools := webAppTools(t)
	s := ntfytest.NewWith(t, []string{"--web-root", "/", "--enable-login"})
	h := headless(e2e.NewFakeHarness(t))
	// The scripted phone beside the browser reads what was published: the
	// card must show it.
	sent := phoneSetUp(t, h, s, "fallback")
	web := startWebPhone(t, tools, s)
	n := 0 // the messages published so far

	// ask runs ask-confirm --remote only with args, waits for its card on
	// the web app, and checks that the card shows the request as sent.
	ask := func(title string, args ...string) (*e2e.Running, webCard) {
		t.Helper()
		r := h.Start(append([]string{"--json", "--remote", "only", "--title", title, "--wait", "2m"}, args...)...)
		n++
		m := awaitSent(t, sent, n, r)
		card := web.Await(title, firstLine(m.Message))
		if card.Title != "❓ "+title || sameText(card.Body) != sameText(m.Message) || card.Priority != "Priority 5" {
			web.Fatalf("the card of %q shows the title %q, priority %q and the text\n%s\nwant the text\n%s", title, card.Title, card.Priority, card.Body, m.Message)
		}
		if last := lastLine(card.Body); !strings.HasPrefix(last, "Asked by ") {
			web.Fatalf("the card of %q does not end with who asks: its last line is %q", title, last)
		}
		return r, card
	}
	// followUp waits for the follow-up card of the request titled title,
	// which must show the emoji of its tag, start with prefix and have no
	// buttons.
	followUp := func(title, emoji, prefix string) {
		t.Helper()
		n++
		sent.Await(n)
		f := web.Await(title, prefix)
		if f.Title != emoji+" "+title || !strings.HasPrefix(f.Body, prefix) || len(f.Buttons) != 0 {
			web.Fatalf("the follow-up of %q shows %q, %q with buttons %v; want %q, %q... and none", title, f.Title, f.Body, f.Buttons, emoji+" "+title, prefix)
		}
	}

	// Approve.
	r, card := ask("Web approve", "--message", "Deploy build 41 to staging?")
	expectButtons(web, card, "CANCEL", "APPROVE")
	web.Tap(card, "Approve")
	o := r.Wait(90 * time.Second)
	h.Expect(o, 0, "approved")
	if o.Res.AnsweredBy != "phone" {
		t.Fatalf("approved on the web app, answered by %q: %s", o.Res.AnsweredBy, o.Stdout)
	}
	followUp("Web approve", "✅", "Approved on the phone at ")

	// Cancel; then the ended request's Approve, which the web app still
	// shows and performs, changes nothing.
	denyArgs := []string{"--message", "Drop the staging database?", "--remember", "10m"}
	r, card = ask("Web deny", denyArgs...)
	web.Tap(card, "Cancel")
	o = r.Wait(90 * time.Second)
	h.Expect(o, 1, "denied")
	followUp("Web deny", "❌", "Denied on the phone at ")
	stale := web.Await("Web deny", "Drop the staging database?")
	expectButtons(web, stale, "CANCEL ✔", "APPROVE")
	if shown := web.Tap(stale, "Approve"); shown != "APPROVE ✔" {
		web.Fatalf("the late tap on Approve shows %q, want APPROVE ✔ (ntfy took the reply)", shown)
	}
	lock := filepath.Join(h.Dir, "state", "ask-confirm", "locks", o.Res.Key+".lock")
	e2e.Eventually(t, 60*time.Second, "the holder to end", func() bool { held, err := platform.LockHeld(lock); return err == nil && !held })
	if rec := recordOf(t, h, o.Res.Key); rec.Status != "denied" {
		t.Fatalf("after a late tap on Approve, the denied request is %s", rec.Status)
	}
	again := h.Run(append([]string{"--json", "--remote", "only", "--title", "Web deny", "--wait", "2m"}, denyArgs...)...)
	h.Expect(again, 1, "denied")
	if !again.Res.Remembered {
		t.Fatalf("the same request again, after the late tap: %s", again.Stdout)
	}

	// The request's own labels, in capitals as the web app shows them.
	r, card = ask("Web labels", "--message", "Release v2.0 to everyone?", "--ok-label", "Ship it", "--cancel-label", "Hold")
	expectButtons(web, card, "HOLD", "SHIP IT")
	if card.Buttons[0].Label != "Hold" || card.Buttons[1].Label != "Ship it" {
		web.Fatalf("the buttons' labels are %v, want Hold and Ship it", card.Buttons)
	}
	web.Tap(card, "Ship it")
	h.Expect(r.Wait(90*time.Second), 0, "approved")
	followUp("Web labels", "✅", "Approved on the phone at ")

	// A text over ntfy's 4096 bytes, cut as the phone's text is: the card
	// (which shows what was sent, checked in ask) says first that it is
	// not all there, and keeps the head and the tail, the last word and
	// who asks included.
	var long strings.Builder
	steps := 0
	for long.Len() < 6000 {
		steps++
		fmt.Fprintf(&long, "step %03d: rsync the build output to the mirror and check it\n", steps)
	}
	long.WriteString("finally: rm -rf /srv/old-releases TAILWORD-rm")
	r, card = ask("Web long", "--message", long.String())
	if m := sent.Await(n); len(m.Message) > ntfy.MaxMessageBytes || strings.HasPrefix(card.Body, "step 001: ") ||
		!strings.Contains(card.Body, "\nstep 001: ") || strings.Count(card.Body, "\nstep ") >= steps ||
		!strings.Contains(card.Body, "\nfinally: rm -rf /srv/old-releases TAILWORD-rm\n") {
		web.Fatalf("the card of the long text (%d bytes sent) shows\n%s", len(m.Message), card.Body)
	}
	web.Tap(card, "Cancel")
	h.Expect(r.Wait(90*time.Second), 1, "denied")
	followUp("Web long", "❌", "Denied on the phone at ")
}

// awaitSent waits for the n-th message that the scripted phone received,
// the request r sent; a request that ends before it fails the test with
// what the caller said.
func awaitSent(t *testing.T, sent *ntfytest.Phone, n int, r *e2e.Running) ntfytest.Message {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for sent.Count() < n {
		select {
		case <-r.Done:
			if sent.Count() < n {
				t.Fatalf("ask-confirm ended (%v) before its request reached the phone\nstdout: %s\nstderr: %s",
					r.Err, r.Stdout.String(), r.Stderr.String())
			}
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the phone received %d messages in 90 s, waiting for %d", sent.Count(), n)
		}
	}
	return sent.Await(n)
}

// webTools is what the web app's test runs: node, Chromium, the
// node_modules directory that holds playwright-core, and the script.
type webTools struct{ node, chromium, modules, script string }

// webAppTools finds node, Debian's chromium (ASK_CONFIRM_CHROMIUM, else on
// PATH) and playwright-core (in ASK_CONFIRM_PLAYWRIGHT, the node_modules
// directory that scripts/test installs from scripts/webapp/package-lock.json,
// else scripts/webapp/node_modules after npm ci there). Where one is
// missing, the test fails when ASK_CONFIRM_E2E=require, as scripts/test
// sets, and skips otherwise.
func webAppTools(t *testing.T) webTools {
	t.Helper()
	var w webTools
	var missing []string
	var err error
	if w.node, err = exec.LookPath("node"); err != nil {
		missing = append(missing, "node (Node.js 20 or newer)")
	}
	if w.chromium = os.Getenv("ASK_CONFIRM_CHROMIUM"); w.chromium == "" {
		w.chromium, _ = exec.LookPath("chromium")
	}
	if _, err := os.Stat(w.chromium); w.chromium == "" || err != nil {
		missing = append(missing, "chromium (Debian's package)")
	}
	w.script, _ = filepath.Abs(filepath.Join("..", "scripts", "webapp", "phone.js"))
	if w.modules = os.Getenv("ASK_CONFIRM_PLAYWRIGHT"); w.modules == "" {
		w.modules, _ = filepath.Abs(filepath.Join("..", "scripts", "webapp", "node_modules"))
	}
	if _, err := os.Stat(filepath.Join(w.modules, "playwright-core", "package.json")); err != nil {
		missing = append(missing, "playwright-core from npm (in ASK_CONFIRM_PLAYWRIGHT)")
	}
	if len(missing) > 0 {
		msg := "the web app's test needs " + strings.Join(missing, ", ") + "; scripts/test installs them (chromium with apt-get, playwright-core with npm ci from scripts/webapp/package-lock.json)"
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return w
}

// webCard is a notification's card as the web app shows it: Buttons'
// Shown is what the person sees (ntfy shows labels in capitals), Label
// the text behind it; Text is the whole card.
type webCard struct {
	Date, Title, Body, Priority, Text string
	Buttons                           []struct{ Shown, Label string }
	// Seen is when the test was told of the card.
	Seen time.Time `json:"-"`
}

type webReply struct {
	ID    int
	OK    bool
	Event string
	Error string
	Shown string
	Card  *webCard
	Cards []webCard
}

// webPhone is one browser session of scripts/webapp/phone.js.
type webPhone struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	replies chan webReply
	stderr  lockedBuffer
	next    int
}

// startWebPhone starts the browser, signed in as s's phone account and
// subscribed to its request topic, and waits until messages sent now
// reach it. It stops with the test.
func startWebPhone(t *testing.T, tools webTools, s *ntfytest.Server) *webPhone {
	t.Helper()
	w := &webPhone{t: t, replies: make(chan webReply, 16)}
	w.cmd = exec.Command(tools.node, tools.script)
	// Chromium's profile, in TMPDIR, goes with the test's directory.
	w.cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "NODE_PATH="+tools.modules, "CHROMIUM="+tools.chromium,
		"PHONE_URL="+s.URL, "PHONE_USER=phone", "PHONE_PASSWORD="+ntfytest.Password, "PHONE_TOPIC="+s.Topic,
		"PHONE_TIMEOUT_MS=90000")
	// A process group of its own, killed whole if it does not end. (Chromium,
	// in a group of its own too, exits once its pipe to playwright closes.)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w.cmd.Stderr = &w.stderr
	var err error
	w.in, err = w.cmd.StdinPipe()
	e2e.Must(t, err)
	out, err := w.cmd.StdoutPipe()
	e2e.Must(t, err)
	e2e.Must(t, w.cmd.Start())
	go func() {
		defer close(w.replies)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var r webReply
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				w.stderr.Write(append([]byte("stdout: "), append(sc.Bytes(), '\n')...))
				continue
			}
			w.replies <- r
		}
	}()
	t.Cleanup(func() {
		// The end of its input ends the session; a browser that does not
		// close is killed.
		w.in.Close()
		drained := make(chan struct{})
		go func() {
			for range w.replies {
			}
			close(drained)
		}()
		select {
		case <-drained:
		case <-time.After(30 * time.Second):
			syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
			<-drained
		}
		w.cmd.Wait()
		if t.Failed() {
			// The web app's own 404s (its manifest, the en-US strings) and
			// 403s (its account's sync topic st_..., which the phone's
			// account may not read) come in every run.
			t.Logf("what phone.js and the web app said (404s and st_... 403s are usual):\n%s", w.stderr.tail(150))
		}
	})
	select {
	case r, ok := <-w.replies:
		if !ok || r.Event != "ready" {
			t.Fatalf("the web app did not start: %+v\n%s", r, w.stderr.tail(60))
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("the web app was not signed in and subscribed within 3 minutes\n%s", w.stderr.tail(60))
	}
	return w
}

// do sends one command and returns its answer; a failed command fails the
// test with every card the web app shows.
func (w *webPhone) do(cmd map[string]any) webReply {
	w.t.Helper()
	w.next++
	cmd["id"] = w.next
	b, _ := json.Marshal(cmd)
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		w.t.Fatalf("phone.js: %v\n%s", err, w.stderr.tail(60))
	}
	for {
		select {
		case r, ok := <-w.replies:
			if !ok {
				w.t.Fatalf("phone.js ended during %s\n%s", b, w.stderr.tail(60))
			}
			if r.ID != w.next {
				continue
			}
			if !r.OK {
				w.t.Fatalf("the web app, %s: %s\nthe cards it shows:\n%s", b, r.Error, cardsText(r.Cards))
			}
			return r
		case <-time.After(3 * time.Minute):
			w.t.Fatalf("phone.js did not answer %s within 3 minutes\n%s", b, w.stderr.tail(60))
		}
	}
}

// Await waits for the newest card whose text holds each of has.
func (w *webPhone) Await(has ...string) webCard {
	w.t.Helper()
	c := *w.do(map[string]any{"op": "await", "has": has}).Card
	c.Seen = time.Now()
	return c
}

// Tap taps the button labelled label of card, no sooner than
// ntfytest.ReadingTime after the card appeared, as a person reads first,
// and returns the button as the web app shows it once its request is done.
func (w *webPhone) Tap(card webCard, label string) string {
	w.t.Helper()
	time.Sleep(time.Until(card.Seen.Add(ntfytest.ReadingTime)))
	r := w.do(map[string]any{"op": "tap", "has": []string{card.Title, firstLine(card.Body)}, "label": label})
	if want := strings.ToUpper(label) + " ✔"; r.Shown != want {
		w.Fatalf("the tap on %s shows %q, want %q", label, r.Shown, want)
	}
	return r.Shown
}

// Fatalf fails the test, saying what the web app shows.
func (w *webPhone) Fatalf(format string, args ...any) {
	w.t.Helper()
	cards := w.do(map[string]any{"op": "cards"}).Cards
	w.t.Fatalf(format+"\nthe cards the web app shows:\n%s", append(args, cardsText(cards))...)
}

func cardsText(cards []webCard) string {
	var b strings.Builder
	for i, c := range cards {
		fmt.Fprintf(&b, "---- card %d of %d (newest first) ----\n%s\n", i+1, len(cards), c.Text)
	}
	return b.String()
}

// expectButtons checks the buttons of card as the person sees them.
func expectButtons(w *webPhone, card webCard, shown ...string) {
	w.t.Helper()
	var got []string
	for _, b := range card.Buttons {
		got = append(got, b.Shown)
	}
	if strings.Join(got, "|") != strings.Join(shown, "|") {
		w.Fatalf("the card %q has the buttons %q, want %q", card.Title, got, shown)
	}
}

// recordOf returns the store's record of the request key.
func recordOf(t *testing.T, h *e2e.Harness, key string) store.Record {
	t.Helper()
	recs, err := store.New(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db")).List()
	e2e.Must(t, err)
	for _, r := range recs {
		if r.Identity == key {
			return r
		}
	}
	t.Fatalf("no record of %s among %d", key, len(recs))
	return store.Record{}
}

// sameText is s as a paragraph of the web app shows it (white-space:
// pre-line): each line without the blanks around it, runs of blanks as
// one.
func sameText(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// lockedBuffer is a bytes.Buffer that the process's stderr and the test
// share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// tail is the last n lines written.
func (l *lockedBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimRight(l.b.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
