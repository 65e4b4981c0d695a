//go:build e2e && unix

package ntfy

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/ntfytest"
	"github.com/ask-confirm/ask-confirm/remote"
)

// threePeople is configOf(s) with three people: Alice on s's request
// topic, Bob and Carol on topics of their own.
func threePeople(s *ntfytest.Server) remote.Config {
	c := configOf(s)
	c.Name = "Alice"
	c.Approvers = []remote.Approver{{Name: "Bob", Topic: "bob-requests"}, {Name: "Carol", Topic: "carol-requests"}}
	return c
}

// failedFindings are the checks of found that failed, each as
// "what → mend".
func failedFindings(found []remote.Finding) []string {
	var failed []string
	for _, f := range found {
		if !f.OK {
			failed = append(failed, f.What+" → "+f.Mend)
		}
	}
	return failed
}

// A setup of three people is checked person by person, as the first
// phone is: the asking token writes every person's topic and reads none,
// the answer token and anonymous read none and write none. Each finding
// names its person, and a failed one the ntfy access line that mends it.
func TestVerifyChecksEachPersonsTopic(t *testing.T) {
	good := [][]string{{"asker", "bob-requests", "wo"}, {"asker", "carol-requests", "wo"}}
	t.Run("correct", func(t *testing.T) {
		s := ntfytest.New(t, good...)
		found := verify(context.Background(), remote.VerifyArgs{Config: threePeople(s), Writes: true}, nil)
		if failed := failedFindings(found); len(failed) > 0 {
			t.Fatalf("a correct setup of three people fails %q", failed)
		}
		var what []string
		for _, f := range found {
			what = append(what, f.What)
		}
		for _, person := range []string{"Alice's topic requests", "Bob's topic bob-requests", "Carol's topic carol-requests"} {
			for _, check := range []string{"the asking token publishes to ", "the asking token cannot read ", "the answer token cannot read ",
				"anonymous cannot read ", "the answer token cannot publish to ", "anonymous cannot publish to "} {
				if !slices.Contains(what, check+person) {
					t.Errorf("no finding says %q: %q", check+person, what)
				}
			}
		}
		// Read only, as doctor checks: every person's topic still.
		found = verify(context.Background(), remote.VerifyArgs{Config: threePeople(s)}, nil)
		if failed := failedFindings(found); len(failed) > 0 {
			t.Fatalf("a correct setup of three people, read only, fails %q", failed)
		}
		n := 0
		for _, f := range found {
			if strings.Contains(f.What, "Carol's topic") {
				n++
			}
		}
		if n != 3 {
			t.Errorf("reading only, %d findings name Carol's topic, want 3 (the asking token, the answer token and anonymous read none): %+v", n, found)
		}
	})
	t.Run("Bob's topic readable by the asking token", func(t *testing.T) {
		s := ntfytest.New(t, []string{"asker", "bob-requests", "rw"}, good[1])
		for _, writes := range []bool{true, false} {
			found := verify(context.Background(), remote.VerifyArgs{Config: threePeople(s), Writes: writes}, nil)
			want := []string{"the asking token cannot read Bob's topic bob-requests → ntfy access ASKER bob-requests wo"}
			if failed := failedFindings(found); !slices.Equal(failed, want) {
				t.Errorf("writes %v: failed %q, want %q", writes, failed, want)
			}
		}
	})
	// Open to everyone, in ntfy's words, is open to every account without
	// a rule of its own for the topic too.
	t.Run("Carol's topic open to everyone, not written by the asking token", func(t *testing.T) {
		s := ntfytest.New(t, good[0], []string{"everyone", "carol-requests", "ro"})
		found := verify(context.Background(), remote.VerifyArgs{Config: threePeople(s), Writes: true}, nil)
		want := []string{
			"the asking token publishes to Carol's topic carol-requests → ntfy access ASKER carol-requests wo",
			"the asking token cannot read Carol's topic carol-requests → ntfy access ASKER carol-requests wo",
			"the answer token cannot read Carol's topic carol-requests → ntfy access --reset ANSWERER carol-requests",
			"anonymous cannot read Carol's topic carol-requests → " + anonymousRule("carol-requests"),
		}
		if failed := failedFindings(found); !slices.Equal(failed, want) {
			t.Errorf("failed %q, want %q", failed, want)
		}
	})
}

// remote approver add checks the person it adds, and only them: their
// topic's findings, beside the server's answer, and no line on anyone
// else's topic.
func TestVerifyOnePerson(t *testing.T) {
	s := ntfytest.New(t, []string{"asker", "bob-requests", "wo"}, []string{"asker", "carol-requests", "rw"})
	c := threePeople(s)
	found := verify(context.Background(), remote.VerifyArgs{Config: c, Writes: true, Person: "bob"}, nil)
	if failed := failedFindings(found); len(failed) > 0 {
		t.Fatalf("Bob's correct topic fails %q", failed)
	}
	for _, f := range found[1:] {
		if !strings.Contains(f.What, "Bob's topic bob-requests") {
			t.Errorf("checking Bob alone found %q", f.What)
		}
	}
	if len(found) != 7 {
		t.Errorf("checking Bob: %d findings, want the server's and Bob's six: %+v", len(found), found)
	}
	found = verify(context.Background(), remote.VerifyArgs{Config: c, Writes: true, Person: "Carol"}, nil)
	want := []string{"the asking token cannot read Carol's topic carol-requests → ntfy access ASKER carol-requests wo"}
	if failed := failedFindings(found); !slices.Equal(failed, want) {
		t.Errorf("checking Carol: failed %q, want %q", failed, want)
	}
	found = verify(context.Background(), remote.VerifyArgs{Config: c, Writes: true, Person: "Dave"}, nil)
	if failed := failedFindings(found); len(failed) != 1 {
		t.Errorf("checking Dave, who is not set up: failed %q, want one", failed)
	}
	// A person checked alone is the only one notified: the server holds
	// nothing on Alice's topic, and Bob's line on his.
	if n := messagesOn(t, s, s.Topic); n != 0 {
		t.Errorf("checking Bob and Carol put %d messages on Alice's topic", n)
	}
	if n := messagesOn(t, s, "bob-requests"); n != 1 {
		t.Errorf("checking Bob put %d messages on his topic, want the one that says it was checked", n)
	}
}

// messagesOn is how many messages the server keeps on topic, read with
// the phone's account, given what it may read.
func messagesOn(t *testing.T, s *ntfytest.Server, topic string) int {
	t.Helper()
	s.Access("phone", topic, "ro")
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+topic+"/json?poll=1&since=all", nil)
	req.Header.Set("Authorization", "Bearer "+s.PhoneToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("reading %s: %v %s", topic, err, resp.Status)
	}
	return strings.Count(string(b), `"event":"message"`)
}
