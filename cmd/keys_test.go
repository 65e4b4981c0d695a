//go:build unix

package cmd

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// A name that is both one request's --key and the start of another's
// identity names neither: status, cancel, forget and history --key refuse
// it with exit 2, and the hint gives both whole identities. Before, the
// first three picked the key's request silently and history mixed both
// requests' events.
func TestKeyThatIsAlsoAnIdentityPrefixIsRefused(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	other := cliRequest("Drop the cache?", cliWorkDir(t), "")
	f.seed(other, store.Approved, time.Second)
	key := other.Identity()[:8]
	keyed := cliRequest("Ship v2?", cliWorkDir(t), key)
	f.seed(keyed, store.Approved, time.Second)
	for _, id := range []string{other.Identity(), keyed.Identity()} {
		ev := store.Event{Time: cliNow, Event: "answered", Identity: id, Outcome: "approved"}
		must(t, store.AppendEvent(f.paths.History, ev))
	}

	for _, args := range [][]string{{"status", key}, {"cancel", key}, {"forget", key}, {"history", "--key", key}, {"history", "--json", "--key", key}} {
		r := f.runRaw(args...)
		if strings.Contains(r.stdout+r.stderr, "unknown request key") {
			t.Errorf("ask-confirm %q calls a known key unknown:\n%s%s", args, r.stdout, r.stderr)
		}
		if r.code != int(lifecycle.ExitUsage) {
			t.Errorf("ask-confirm %q exited %d, want 2\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
			continue
		}
		for _, want := range []string{
			"is both the --key of " + dialog.ShortIdentity(keyed.Identity()) + " and the start of the identity of " + dialog.ShortIdentity(other.Identity()),
			"hint: give the whole identity: " + keyed.Identity() + " for the --key, or " + other.Identity(),
		} {
			if !strings.Contains(r.stdout+r.stderr, want) {
				t.Errorf("ask-confirm %q says:\n%s%s\nwant %q", args, r.stdout, r.stderr, want)
			}
		}
	}
	// Nothing was forgotten, and each whole identity still names its own.
	for _, req := range []dialog.Request{other, keyed} {
		r := f.runRaw("status", req.Identity())
		f.expectCode(r, lifecycle.ExitApproved)
	}
}

// list names each request's way of asking and its --key, so that a key
// asked two ways (which names neither) can be told apart, and a hook's
// request, whose key the hook makes, can be named by it.
func TestListNamesTheWayAndTheKey(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	byDialog := cliRequest("Deploy?", cliWorkDir(t), "release")
	byTerminal := byDialog
	byTerminal.Via = "terminal"
	hookKey := "claude-code Bash 1f3a9c0d2e4b6a8c1f3a9c0d2e4b6a8c"
	byHook := cliRequest("Run: rm -rf build", cliWorkDir(t), hookKey)
	for _, req := range []dialog.Request{byDialog, byTerminal, byHook} {
		f.seed(req, store.Approved, time.Second)
	}
	_, err := f.store.Update(byTerminal.Identity(), func(rec *store.Record, _ bool) (bool, error) {
		rec.Channel = "terminal"
		return true, nil
	})
	must(t, err)

	r := f.runRaw("status", "release")
	f.expectCode(r, lifecycle.ExitUsage)
	ways := []string{dialog.ShortIdentity(byDialog.Identity()) + ": dialog, approved", dialog.ShortIdentity(byTerminal.Identity()) + ": terminal, approved"}
	slices.Sort(ways)
	if !strings.Contains(r.stderr, "hint: give the identity of the one you mean, or its first 4 or more characters, such as ") ||
		!strings.Contains(r.stderr, `--key "release" names 2 requests, asked other ways or of other approvers, each its own: `+strings.Join(ways, "; ")) || strings.Contains(r.stderr, "unknown request key") {
		t.Errorf("a key asked two ways says:\n%s\nwant the ways %s, and not that the key is unknown", r.stderr, ways)
	}

	r = f.runRaw("list")
	f.expectCode(r, lifecycle.ExitApproved)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "IDENTITY WAY STATUS AGE LEFT TITLE KEY" {
		t.Fatalf("list:\n%s", r.stdout)
	}
	rows := map[string]string{}
	for _, l := range lines[1:] {
		rows[strings.Fields(l)[0]] = strings.Join(strings.Fields(l), " ")
	}
	for _, c := range []struct {
		req       dialog.Request
		way, tail string
	}{
		{byDialog, "dialog", "release"},
		{byTerminal, "terminal", "release"},
		{byHook, "dialog", hookKey},
	} {
		row := rows[dialog.ShortIdentity(c.req.Identity())]
		if !strings.HasPrefix(row, dialog.ShortIdentity(c.req.Identity())+" "+c.way+" approved") || !strings.HasSuffix(row, " "+c.tail) {
			t.Errorf("list row %q, want way %s and key %q", row, c.way, c.tail)
		}
	}

	r = f.runRaw("list", "--json")
	var entries []lifecycle.Entry
	must(t, json.Unmarshal([]byte(r.stdout), &entries))
	got := map[string]lifecycle.Entry{}
	for _, e := range entries {
		got[e.Identity] = e
	}
	if e := got[byTerminal.Identity()]; e.Channel != "terminal" || e.Key != "release" {
		t.Errorf("list --json: the terminal's request is %+v", e)
	}
	if e := got[byDialog.Identity()]; e.Channel != "dialog" || e.Key != "release" {
		t.Errorf("list --json: the dialog's request is %+v", e)
	}

	// The hook's key, as list prints it, names its request.
	r = f.runRaw("status", hookKey)
	f.expectCode(r, lifecycle.ExitApproved)
}

// Two requests under one --key that differ only in their approvers: the
// key alone names neither, and the error names each by its identity with
// its approvers and status, and how to give one (issue 44, item 6: it
// read "dialog: 52470a23458e, dialog: c77967e1f918"). cancel, which acts
// only on an open request, takes the key for the one still open.
func TestKeyOfRequestsOfOtherApprovers(t *testing.T) {
	f := newCLIFixture(t)
	f.fixClock(cliNow)
	f.setPeople("only", "alice", "bob", "carol")
	var ids []string
	for _, who := range []string{"alice,bob", "alice,carol"} {
		r := f.run("--json", "--key", "r6", "--message", "Deploy?", "--approvers", who, "--wait", "0")
		f.expectCode(r, lifecycle.ExitPending)
		ids = append(ids, r.res.Key)
	}
	for _, cmd := range []string{"status", "cancel"} {
		r := f.runRaw(cmd, "r6")
		f.expectCode(r, lifecycle.ExitUsage)
		for i, who := range []string{"approvers alice and bob", "approvers alice and carol"} {
			if !strings.Contains(r.stderr, dialog.ShortIdentity(ids[i])+": phone, "+who+", 1 must approve, requested") {
				t.Errorf("%s r6 does not name %s with %s:\n%s", cmd, dialog.ShortIdentity(ids[i]), who, r.stderr)
			}
		}
		if !strings.Contains(r.stderr, "hint: give the identity of the one you mean, or its first 4 or more characters, such as ") {
			t.Errorf("%s r6 does not say how to give one:\n%s", cmd, r.stderr)
		}
	}
	// Each one's identity, as the error gives it, names it.
	if r := f.runRaw("status", dialog.ShortIdentity(ids[1])); r.code != int(lifecycle.ExitPending) {
		t.Errorf("status %s: exit %d %s%s", dialog.ShortIdentity(ids[1]), r.code, r.stdout, r.stderr)
	}
	// Once one has ended, the key names the other for cancel.
	_, err := f.store.Update(ids[0], func(rec *store.Record, _ bool) (bool, error) {
		rec.Status, rec.EndedAt = store.Denied, cliNow
		return true, nil
	})
	must(t, err)
	r := f.runRaw("cancel", "r6")
	f.expectCode(r, lifecycle.ExitApproved)
	if !strings.Contains(r.stdout, dialog.ShortIdentity(ids[1])) || f.record(ids[1]).Status != store.Cancelled || f.record(ids[0]).Status != store.Denied {
		t.Errorf("cancel r6 with one of its requests open: %s%s", r.stdout, r.stderr)
	}
	if r := f.runRaw("status", "r6"); r.code != int(lifecycle.ExitUsage) {
		t.Errorf("status r6 picked one of two requests: exit %d %s", r.code, r.stdout)
	}
}
