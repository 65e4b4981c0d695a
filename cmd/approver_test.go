//go:build unix

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// approverFixture is a CLI fixture with a phone set up for Alice, whose
// setup checks are recorded and answered by findings, and whose local
// user is named local.
type approverFixture struct {
	*cliFixture
	checked  []remote.VerifyArgs
	findings []remote.Finding
	local    string
	// revoked are the people the fleet was told of (revokeRemote),
	// whose answer is revokeErr.
	revoked   []string
	revokeErr error
}

func newApproverFixture(t *testing.T) *approverFixture {
	t.Helper()
	f := &approverFixture{cliFixture: newCLIFixture(t), local: "alice"}
	f.a.localName = func() string { return f.local }
	f.a.verifyRemote = func(_ context.Context, args remote.VerifyArgs) []remote.Finding {
		f.checked = append(f.checked, args)
		if f.findings != nil {
			return f.findings
		}
		return []remote.Finding{{What: "the server answers", OK: true}}
	}
	f.a.revokeRemote = func(_ context.Context, c remote.Config, name string) error {
		f.revoked = append(f.revoked, name)
		return f.revokeErr
	}
	f.save(aliceSetup())
	return f
}

// aliceSetup is a setup of one person, Alice, on the topic requests.
func aliceSetup() remote.Settings {
	return remote.Settings{Config: remote.Config{Server: "http://127.0.0.1:2586", Topic: "requests", ReplyTopic: "replies",
		Token: "tk_asker", AnswerToken: "tk_answerer", Name: "Alice"}, Mode: remote.ModeFallback}
}

func (f *approverFixture) save(s remote.Settings) {
	f.t.Helper()
	if err := remote.Save(f.a.remoteFile, s); err != nil {
		f.t.Fatal(err)
	}
}

func (f *approverFixture) saved() remote.Settings {
	f.t.Helper()
	s, err := remote.Load(f.a.remoteFile)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// remote approver add checks the new person's topic alone, writes
// included, records them, and says what to do on their phone and on the
// other machines of the fleet; list shows everyone, the first phone
// marked, and remove takes a person away.
func TestRemoteApproverAddListRemove(t *testing.T) {
	f := newApproverFixture(t)
	r := f.runRaw("remote", "approver", "add", "Bob", "--topic", "bob-requests")
	f.expectCode(r, 0)
	if len(f.checked) != 1 || !f.checked[0].Writes || f.checked[0].Person != "Bob" ||
		!reflect.DeepEqual(f.checked[0].Config.Approvers, []remote.Approver{{Name: "Bob", Topic: "bob-requests"}}) {
		t.Fatalf("add checked %+v; want Bob's topic alone, writes included", f.checked)
	}
	for _, want := range []string{"ok    the server answers", "added Bob to " + f.a.remoteFile + "; the people set up: Alice and Bob",
		"On Bob's phone", "ntfy://127.0.0.1:2586/bob-requests?secure=false", "ask-confirm remote test --approver Bob"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("add's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "hint: other machines of the fleet keep the setup they were given: run ask-confirm remote export here") {
		t.Errorf("add does not say what to run for the fleet:\n%s", r.stderr)
	}
	f.expectCode(f.runRaw("remote", "approver", "add", "Carol", "--topic", "carol-requests"), 0)
	if got, want := f.saved().People(), []remote.Approver{{Name: "Alice", Topic: "requests"}, {Name: "Bob", Topic: "bob-requests"}, {Name: "Carol", Topic: "carol-requests"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %+v, want %+v", got, want)
	}

	// The fleet's other machines get the people with the setup.
	r = f.runRaw("remote", "export")
	f.expectCode(r, 0)
	want := f.saved().People()
	t.Setenv(remote.SetupEnv, strings.TrimSpace(r.stdout))
	exported, err := remote.Load(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || len(want) != 3 || !reflect.DeepEqual(exported.People(), want) {
		t.Fatalf("remote export carries %+v (%v); want %+v", exported.People(), err, want)
	}
	t.Setenv(remote.SetupEnv, "")

	r = f.runRaw("remote", "approver", "list")
	f.expectCode(r, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "Alice requests first phone (remote setup)" ||
		strings.Join(strings.Fields(lines[2]), " ") != "Carol carol-requests" {
		t.Errorf("list:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, " \n") {
		t.Errorf("list pads a line with spaces at its end:\n%q", r.stdout)
	}
	if strings.Contains(r.stdout, "tk_") {
		t.Fatalf("list printed a token:\n%s", r.stdout)
	}
	r = f.runRaw("remote", "approver", "list", "--json")
	f.expectCode(r, 0)
	var people []approverEntry
	if err := json.Unmarshal([]byte(r.stdout), &people); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	if want := []approverEntry{{"Alice", "requests", true}, {"Bob", "bob-requests", false}, {"Carol", "carol-requests", false}}; !reflect.DeepEqual(people, want) {
		t.Errorf("list --json: %+v, want %+v", people, want)
	}

	r = f.runRaw("remote", "approver", "remove", "bob") // names compare without case
	f.expectCode(r, 0)
	if !strings.Contains(r.stdout, "removed Bob (topic bob-requests); the people set up: Alice and Carol") || !strings.Contains(r.stderr, "remote export") {
		t.Errorf("remove:\n%s%s", r.stdout, r.stderr)
	}
	if got, want := f.saved().People(), []remote.Approver{{Name: "Alice", Topic: "requests"}, {Name: "Carol", Topic: "carol-requests"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after remove, recorded %+v, want %+v", got, want)
	}
	if len(f.checked) != 2 {
		t.Errorf("remove checked the server: %+v", f.checked[2:])
	}
}

// What add and remove refuse, each with exit 2 and nothing recorded: a
// name that is not one, a person or topic set up already, a topic that
// fails its checks (with the access line that mends it), the first phone,
// a person who is not set up, a setup from ASK_CONFIRM_REMOTE.
func TestRemoteApproverRefusals(t *testing.T) {
	f := newApproverFixture(t)
	f.expectCode(f.runRaw("remote", "approver", "add", "Bob", "--topic", "bob-requests"), 0)
	before, err := os.ReadFile(f.a.remoteFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"add", "Carol"}, "--topic is required"},
		{[]string{"add", "Carol,Dave", "--topic", "c"}, "must not hold a comma"},
		{[]string{"add", strings.Repeat("é", 33), "--topic", "c"}, "at most 64 bytes"},
		{[]string{"add", "Car\x1bol", "--topic", "c"}, "printable"},
		{[]string{"add", " Carol", "--topic", "c"}, "must not start or end with a space"},
		{[]string{"add", "bob", "--topic", "other"}, "Bob is set up already (topic bob-requests)"},
		{[]string{"add", "ALICE", "--topic", "other"}, "Alice is set up already (topic requests)"},
		{[]string{"add", "Carol", "--topic", "bob-requests"}, "already the reply topic or another person's"},
		{[]string{"add", "Carol", "--topic", "requests"}, "already the reply topic or another person's"},
		{[]string{"add", "Carol", "--topic", "replies"}, "already the reply topic or another person's"},
		{[]string{"add", "Carol", "--topic", "carol/requests"}, "ntfy takes 1 to 64 letters"},
		{[]string{"remove", "Alice"}, "Alice is the first phone's person: requests is the setup's own topic"},
		{[]string{"remove", "Dave"}, "no person is set up as Dave; the people set up: Alice and Bob"},
		{[]string{"remove"}, "accepts 1 arg"},
	} {
		r := f.runRaw(append([]string{"remote", "approver"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%q: exit %d, want 2 saying %q\n%s", c.args, r.code, c.says, r.stderr)
		}
		if !strings.Contains(r.stderr, "hint: ") {
			t.Errorf("%q: no hint\n%s", c.args, r.stderr)
		}
	}
	if len(f.checked) != 1 {
		t.Errorf("a refused add checked the server: %+v", f.checked[1:])
	}

	f.findings = []remote.Finding{{What: "the server answers", OK: true},
		{What: "the asking token cannot read Carol's topic carol-requests", Detail: "OK (200)", Mend: "ntfy access ASKER carol-requests wo"}}
	r := f.runRaw("remote", "approver", "add", "Carol", "--topic", "carol-requests")
	if r.code != 2 || !strings.Contains(r.stdout, "FAIL  the asking token cannot read Carol's topic carol-requests") ||
		!strings.Contains(r.stderr, "error: 1 check(s) failed; nothing was recorded") || !strings.Contains(r.stderr, "hint: ntfy access ASKER carol-requests wo") {
		t.Errorf("add with a failed check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	f.findings = nil

	exported, err := remote.Export(f.saved())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(remote.SetupEnv, exported)
	for _, args := range [][]string{{"add", "Carol", "--topic", "carol-requests"}, {"remove", "Bob"}} {
		r := f.runRaw(append([]string{"remote", "approver"}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "comes from ASK_CONFIRM_REMOTE") || !strings.Contains(r.stderr, "hint: there, run ask-confirm remote approver, then ask-confirm remote export again") {
			t.Errorf("%q with the setup in %s: exit %d\n%s", args, remote.SetupEnv, r.code, r.stderr)
		}
	}
	if r := f.runRaw("remote", "approver", "list"); r.code != 0 || !strings.Contains(r.stdout, "bob-requests") {
		t.Errorf("list with the setup in %s: exit %d\n%s%s", remote.SetupEnv, r.code, r.stdout, r.stderr)
	}
	if after, _ := os.ReadFile(f.a.remoteFile); string(after) != string(before) {
		t.Errorf("a refused command changed the setup:\n%s\nwas\n%s", after, before)
	}
}

// One request asks at most dialog.MaxApprovers people: add refuses more.
func TestRemoteApproverAddBounded(t *testing.T) {
	f := newApproverFixture(t)
	s := aliceSetup()
	for i := 2; i <= 16; i++ {
		s.Approvers = append(s.Approvers, remote.Approver{Name: "P" + string(rune('a'+i)), Topic: "t" + string(rune('a'+i))})
	}
	f.save(s)
	r := f.runRaw("remote", "approver", "add", "Zed", "--topic", "zed")
	if r.code != 2 || !strings.Contains(r.stderr, "16 people are set up already") {
		t.Errorf("a 17th person: exit %d\n%s", r.code, r.stderr)
	}
}

// A setup made before named approvers has a first phone without a name:
// add gives it remote setup's default, the local user's name, and says
// so; with no local name to give, it refuses and says to run remote setup
// with --name.
func TestRemoteApproverAddNamesTheFirstPhone(t *testing.T) {
	f := newApproverFixture(t)
	s := aliceSetup()
	s.Name = ""
	f.save(s)
	r := f.runRaw("remote", "approver", "list")
	if f.expectCode(r, 0); !strings.Contains(r.stdout, "(no name)") {
		t.Errorf("list of an unnamed first phone:\n%s", r.stdout)
	}
	f.local = ""
	r = f.runRaw("remote", "approver", "add", "Bob", "--topic", "bob-requests")
	if r.code != 2 || !strings.Contains(r.stderr, "the first phone has no name") || !strings.Contains(r.stderr, "hint: run ask-confirm remote setup again with --name NAME") {
		t.Errorf("add with no name for the first phone: exit %d\n%s", r.code, r.stderr)
	}
	f.local = "alice"
	r = f.runRaw("remote", "approver", "add", "Bob", "--topic", "bob-requests")
	if f.expectCode(r, 0); !strings.Contains(r.stdout, "The first phone, on requests, is set up as alice, the local user's name") {
		t.Errorf("add naming the first phone:\n%s", r.stdout)
	}
	if got := f.saved(); got.Name != "alice" || len(got.Approvers) != 1 {
		t.Errorf("recorded %+v", got.Config)
	}
}

// remote setup records the first phone's person: --name, else the local
// user's name. Run again for the same server and topics it keeps the
// people added and the name; for others it starts afresh, naming the
// people it does not keep. A --name that is an approver's, or not a
// name, is refused.
func TestRemoteSetupName(t *testing.T) {
	f := newApproverFixture(t)
	must(t, os.Remove(f.a.remoteFile))
	dir := t.TempDir()
	token, answer := filepath.Join(dir, "asker.token"), filepath.Join(dir, "answer.token")
	must(t, os.WriteFile(token, []byte("tk_asker\n"), 0o600))
	must(t, os.WriteFile(answer, []byte("tk_answerer\n"), 0o600))
	setup := func(topic string, extra ...string) cliRun {
		return f.runRaw(append([]string{"remote", "setup", "--server", "http://127.0.0.1:2586", "--topic", topic, "--reply-topic", "replies",
			"--token-file", token, "--answer-token-file", answer}, extra...)...)
	}
	f.expectCode(setup("requests"), 0)
	if got := f.saved().Name; got != "alice" {
		t.Fatalf("setup without --name named the first phone %q, want the local user's alice", got)
	}
	f.expectCode(setup("requests", "--name", "Alice"), 0)
	f.expectCode(f.runRaw("remote", "approver", "add", "Bob", "--topic", "bob-requests"), 0)
	r := setup("requests")
	f.expectCode(r, 0)
	if got := f.saved(); got.Name != "Alice" || !reflect.DeepEqual(got.Approvers, []remote.Approver{{Name: "Bob", Topic: "bob-requests"}}) {
		t.Errorf("setup run again kept %+v", got.Config)
	}
	if !strings.Contains(r.stdout, "The people set up, kept from the same setup: Alice and Bob") {
		t.Errorf("setup run again does not name the people it kept:\n%s", r.stdout)
	}
	if c := f.checked[len(f.checked)-1]; len(c.Config.Approvers) != 1 || c.Person != "" {
		t.Errorf("setup run again checked %+v; want every person's topic", c)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--name", "bob"}, "--name bob is a person added with remote approver add (topic bob-requests)"},
		{[]string{"--name", "Al,ice"}, "--name: a person's name must not hold a comma"},
	} {
		r := setup("requests", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("setup %q: exit %d, want 2 saying %q\n%s", c.args, r.code, c.says, r.stderr)
		}
	}
	r = setup("other-requests")
	f.expectCode(r, 0)
	if got := f.saved(); got.Name != "alice" || len(got.Approvers) != 0 {
		t.Errorf("setup with another topic recorded %+v; want the local user alone", got.Config)
	}
	if !strings.Contains(r.stderr, "warning: the people added to the earlier setup are not kept, since its server or topics differ: Bob;") {
		t.Errorf("setup with another topic does not say whom it dropped:\n%s", r.stderr)
	}
}

// The limits docs/phone.md gives for the people set up are the code's.
func TestDocsApproverLimitsAreTheCodes(t *testing.T) {
	b, err := os.ReadFile("../docs/phone.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		fmt.Sprintf("A name is at most %d bytes of printable text", remote.MaxNameBytes),
		fmt.Sprintf("at most %d people", dialog.MaxApprovers),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/phone.md does not say %q", want)
		}
	}
}

// remote approver remove, for a setup with a fleet's secret, tells the
// fleet first that the person's buttons count no more (remote.RevokeOnFleet),
// and says so; where the fleet cannot be told, the person is not removed
// (exit 6, the setup as it was), since their buttons on open requests would
// still count on every machine. A setup without a secret tells no fleet.
func TestApproverRemoveRevokesOnTheFleet(t *testing.T) {
	f := newApproverFixture(t)
	s := aliceSetup()
	s.Secret = strings.Repeat("ab", 32)
	s.Approvers = []remote.Approver{{Name: "Bob", Topic: "bob-requests"}, {Name: "Carol", Topic: "carol-requests"}}
	f.save(s)

	f.revokeErr = errors.New("the server did not answer")
	r := f.runRaw("remote", "approver", "remove", "Bob")
	f.expectCode(r, lifecycle.ExitFailed)
	if !strings.Contains(r.stderr, "Bob is not removed") || !strings.Contains(r.stderr, "the server did not answer") {
		t.Errorf("remove with the fleet's server down:\n%s", r.stderr)
	}
	if got := f.saved().People(); len(got) != 3 {
		t.Fatalf("a remove the fleet was not told of changed the setup: %+v", got)
	}

	f.revokeErr = nil
	r = f.runRaw("remote", "approver", "remove", "bob")
	f.expectCode(r, 0)
	if !strings.Contains(r.stdout, "Bob's buttons on the requests open now count on no machine of the fleet") {
		t.Errorf("remove:\n%s", r.stdout)
	}
	if !slices.Equal(f.revoked, []string{"Bob", "Bob"}) {
		t.Errorf("the fleet was told of %v, want Bob each time, as the setup spells him", f.revoked)
	}

	s = aliceSetup()
	s.Approvers = []remote.Approver{{Name: "Bob", Topic: "bob-requests"}}
	f.save(s)
	f.revoked = nil
	f.expectCode(f.runRaw("remote", "approver", "remove", "Bob"), 0)
	if f.revoked != nil {
		t.Errorf("a setup without a fleet's secret told a fleet: %v", f.revoked)
	}
}
