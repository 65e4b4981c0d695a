//go:build e2e && unix

package cmd_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/internal/helpexample"
	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
)

// phoneOn is a phone that reads topic with token, as a person's own
// account does: s's phone, pointed elsewhere.
func phoneOn(t *testing.T, s *ntfytest.Server, topic, token string) *ntfytest.Phone {
	t.Helper()
	view := *s
	view.Topic, view.PhoneToken = topic, token
	return ntfytest.NewPhone(t, &view)
}

// remote approver add, against the real server, records a person whose
// topic's access rules hold, and refuses one whose topic the asking token
// can read, with the line that mends it; doctor, and remote setup run
// again, check every person's topic; remote test --approver asks that
// person's phone.
func TestRemoteApproversAgainstTheServer(t *testing.T) {
	t.Parallel() // no display: the phones are test clients
	s := ntfytest.New(t, []string{"asker", "bob-requests", "wo"}, []string{"asker", "carol-requests", "rw"}, []string{"phone", "bob-requests", "ro"})
	h := e2e.NewFakeHarness(t)
	if o := h.RemoteSetup(s, s.AnswerToken, "--name", "Alice"); o.Code != 0 {
		t.Fatalf("setup: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	bob := phoneOn(t, s, "bob-requests", s.PhoneToken)

	o := h.Run("remote", "approver", "add", "Bob", "--topic", "bob-requests")
	if o.Code != 0 || !strings.Contains(o.Stdout, "ok    the asking token cannot read Bob's topic bob-requests") ||
		!strings.Contains(o.Stdout, "the people set up: Alice and Bob") || !strings.Contains(o.Stderr, "remote export") {
		t.Fatalf("add Bob: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	if m := bob.Await(1); !strings.Contains(m.Message, "checked that it can reach this topic") {
		t.Errorf("Bob's phone got %+v; want the line saying his topic was checked", m)
	}
	o = h.Run("remote", "approver", "add", "Carol", "--topic", "carol-requests")
	if o.Code != 2 || !strings.Contains(o.Stdout, "FAIL  the asking token cannot read Carol's topic carol-requests") ||
		!strings.Contains(o.Stderr, "hint: ntfy access ASKER carol-requests wo") {
		t.Fatalf("add Carol, whose topic the asking token reads: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	o = h.Run("remote", "approver", "list", "--json")
	var people []map[string]any
	if err := json.Unmarshal([]byte(o.Stdout), &people); o.Code != 0 || err != nil || len(people) != 2 || people[1]["name"] != "Bob" {
		t.Fatalf("list after a refused add: exit %d %v\n%s", o.Code, err, o.Stdout)
	}

	if _, rep := e2e.DoctorJSON(h); rep["remote"].(map[string]any)["problems"] != nil {
		t.Fatalf("doctor with Bob's topic right: %v", rep["remote"])
	}
	s.Access("asker", "bob-requests", "rw")
	_, rep := e2e.DoctorJSON(h)
	if problems := fmt.Sprint(rep["remote"].(map[string]any)["problems"]); !strings.Contains(problems, "the asking token cannot read Bob's topic bob-requests") ||
		!strings.Contains(problems, "to mend: ntfy access ASKER bob-requests wo") {
		t.Fatalf("doctor with Bob's topic readable by the asking token: %v", rep["remote"])
	}
	o = h.RemoteSetup(s, s.AnswerToken)
	if o.Code != 2 || !strings.Contains(o.Stdout, "FAIL  the asking token cannot read Bob's topic bob-requests") {
		t.Fatalf("setup run again with Bob's topic readable by the asking token: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	s.Access("asker", "bob-requests", "wo")
	o = h.RemoteSetup(s, s.AnswerToken)
	if o.Code != 0 || !strings.Contains(o.Stdout, "ok    the asking token publishes to Bob's topic bob-requests") || !strings.Contains(o.Stdout, "kept from the same setup: Alice and Bob") {
		t.Fatalf("setup run again: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	bob.Await(3) // the lines of both checks, the failed one's too

	r := h.Start("remote", "test", "--approver", "bob", "--wait", "1m")
	m := bob.Await(4)
	if m.Title != "ask-confirm remote test" {
		t.Fatalf("Bob's phone shows %+v", m)
	}
	bob.Tap(m, "Approve")
	if o := r.Wait(90 * time.Second); o.Code != 0 || !strings.Contains(o.Stdout, "sent a test request to bob-requests") {
		t.Fatalf("remote test --approver bob, approved: exit %d\n%s%s", o.Code, o.Stdout, o.Stderr)
	}
	if o := h.Run("remote", "test", "--approver", "Dave"); o.Code != 2 || !strings.Contains(o.Stderr, "no person is set up as Dave; the people set up: Alice and Bob") {
		t.Fatalf("remote test --approver Dave: exit %d\n%s", o.Code, o.Stderr)
	}
}

// severalApproversBlocks are the code blocks of docs/phone.md's section
// "Several approvers", in order.
func severalApproversBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/phone.md")
	e2e.Must(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Several approvers\n")
	if !ok {
		t.Fatal("docs/phone.md has no section Several approvers")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	parts := strings.Split(section, "```")
	for i := 1; i < len(parts); i += 2 {
		_, body, _ := strings.Cut(parts[i], "\n")
		blocks = append(blocks, body)
	}
	return blocks
}

// docs/phone.md's setup of three people is the tested one: its ntfy lines,
// run as written by a shell on a server with no accounts, and then its
// ask-confirm lines (against that server), set up Alice, Bob and Carol,
// each of whom reads their own topic and nobody else's.
func TestDocsSeveralApproversSetUp(t *testing.T) {
	t.Parallel() // no display: the phone is a test client
	blocks := severalApproversBlocks(t)
	if len(blocks) < 2 {
		t.Fatalf("docs/phone.md's Several approvers has %d code blocks; want the server's lines, then the asking machine's", len(blocks))
	}
	s := ntfytest.NewBare(t)
	h := e2e.NewFakeHarness(t)
	bin := filepath.Join(h.Dir, "ntfy-bin")
	e2e.Must(t, os.Mkdir(bin, 0o700))
	e2e.Must(t, os.Symlink(s.Bin(), filepath.Join(bin, "ntfy")))
	sh := exec.Command("sh", "-e", "-c", blocks[0])
	sh.Dir = h.Work
	sh.Env = append(s.CLIEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the server's lines: %v\n%s", err, out)
	}
	tokens := map[string]string{}
	for _, who := range []string{"alice", "bob", "carol"} {
		// Tokens for the test's phones; the people sign in with their
		// passwords.
		cmd := exec.Command(s.Bin(), "token", "add", who)
		cmd.Env = s.CLIEnv()
		out, err := cmd.CombinedOutput()
		e2e.Must(t, err)
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, "tk_") {
				tokens[who] = f
			}
		}
	}
	// A token added while the server runs can be refused for a while.
	s.Stop()
	s.Start()

	lines := strings.ReplaceAll(blocks[1], "\\\n", " ")
	commands, err := helpexample.Commands(lines, "ask-confirm")
	e2e.Must(t, err)
	var bob *ntfytest.Phone
	for _, args := range commands {
		for i, a := range args {
			if a == "https://ntfy.example.org" {
				args[i] = s.URL
			}
		}
		if len(args) > 1 && args[0] == "remote" && args[1] == "test" {
			if bob == nil {
				bob = phoneOn(t, s, "ask-bob", tokens["bob"])
			}
			r := h.Start(append(args, "--wait", "1m")...)
			m := bob.Await(1)
			bob.Tap(m, "Approve")
			if o := r.Wait(90 * time.Second); o.Code != 0 {
				t.Fatalf("ask-confirm %q, approved on Bob's phone: exit %d\n%s%s", args, o.Code, o.Stdout, o.Stderr)
			}
			continue
		}
		if o := h.Run(args...); o.Code != 0 {
			t.Fatalf("ask-confirm %q: exit %d\n%s%s", args, o.Code, o.Stdout, o.Stderr)
		}
	}
	o := h.Run("remote", "approver", "list", "--json")
	var people []map[string]any
	e2e.Must(t, json.Unmarshal([]byte(o.Stdout), &people))
	if got := fmt.Sprint(people); got != "[map[first_phone:true name:Alice topic:ask-alice] map[first_phone:false name:Bob topic:ask-bob] map[first_phone:false name:Carol topic:ask-carol]]" {
		t.Fatalf("the docs' commands set up %s", got)
	}
	if _, rep := e2e.DoctorJSON(h); rep["remote"].(map[string]any)["problems"] != nil {
		t.Fatalf("doctor after the docs' setup: %v", rep["remote"])
	}
	for who, token := range tokens {
		for _, topic := range []string{"ask-alice", "ask-bob", "ask-carol", "ask-replies"} {
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+topic+"/json?poll=1", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			e2e.Must(t, err)
			resp.Body.Close()
			if allowed, want := resp.StatusCode == http.StatusOK, topic == "ask-"+who; allowed != want {
				t.Errorf("%s reading %s: %s", who, topic, resp.Status)
			}
		}
	}
}
