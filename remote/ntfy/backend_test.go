package ntfy

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/padding"
	"github.com/ask-confirm/ask-confirm/remote"
)

// replyBody is what button bt of request id sends, without a fleet.
func replyBody(id string, bt *button) string {
	return (&question{id: id}).replyBody(bt)
}

// confirmRequest is a confirmation of message, as the tests ask it.
func confirmRequest(message string) dialog.Request {
	return dialog.Request{Kind: dialog.Confirm, Title: "Deploy", Message: message, OKLabel: "Approve", CancelLabel: "Cancel"}
}

// Only a reply that carries this request's id and one of its capabilities
// answers it; every other reply is reported with its reason, and a reply
// for another request (the reply topic is shared) is told apart from a
// forgery.
func TestMatch(t *testing.T) {
	var reasons []string
	b := &Backend{Ignored: func(r string) { reasons = append(reasons, r) }}
	const id = "0123456789abcdef"
	bs := []*button{{choice: "deny"}, {choice: "approve"}}
	bs[0].cap[0], bs[1].cap[0] = 1, 2
	if got := b.match(&question{id: id, buttons: bs}, replyBody(id, bs[1])); got != bs[1] {
		t.Fatalf("approve's capability matched %+v", got)
	}
	if got := b.match(&question{id: id, buttons: bs}, replyBody(id, bs[0])+"\n"); got != bs[0] {
		t.Fatalf("deny's capability matched %+v", got)
	}
	// A field this version does not know (a later one's MAC) is passed
	// over.
	if got := b.match(&question{id: id, buttons: bs}, replyBody(id, bs[1])+" mac=00ff"); got != bs[1] {
		t.Fatalf("a reply with one more field matched %+v", got)
	}
	other := &button{}
	other.cap[0] = 3
	capOf := func(bt *button) string { return hex.EncodeToString(bt.cap[:]) }
	for _, tc := range []struct{ body, reason string }{
		{"", ignoredNoCapability},
		{"approve", ignoredNoCapability},
		{oldReplyPrefix + capOf(bs[1]), ignoredOldFormat},
		{replyPrefix, ignoredNoCapability},
		{replyPrefix + "x", ignoredMalformed},
		{replyPrefix + "cap=" + capOf(bs[1]), ignoredMalformed},
		{replyPrefix + "req=" + id + " cap=zz", ignoredMalformed},
		{replyPrefix + "req=" + id + " cap=" + capOf(bs[1]) + "00", ignoredMalformed},
		{replyPrefix + "req=" + id + " req=" + id + " cap=" + capOf(bs[1]), ignoredMalformed},
		{replyPrefix + "req=" + id + " cap=" + capOf(bs[1]) + " cap=" + capOf(other), ignoredMalformed},
		{replyBody(id, other), ignoredForged},
		{replyBody("fedcba9876543210", bs[1]), remote.ReplyForAnother},
	} {
		reasons = nil
		if got := b.match(&question{id: id, buttons: bs}, tc.body); got != nil {
			t.Errorf("%q matched %+v", tc.body, got)
		}
		if len(reasons) != 1 || reasons[0] != tc.reason {
			t.Errorf("%q reported as %q, want %q", tc.body, reasons, tc.reason)
		}
	}
}

// No reply body, however made, crashes the asking side or answers with a
// capability that is not one of the request's buttons', or for another
// request.
func FuzzReply(f *testing.F) {
	const id = "0123456789abcdef"
	bs := []*button{{choice: "deny"}, {choice: "approve"}}
	bs[0].cap[0], bs[1].cap[15] = 1, 2
	f.Add(replyBody(id, bs[1]))
	f.Add(replyBody(id, bs[1]) + " mac=1")
	f.Add(replyPrefix + strings.Repeat("ab", 64))
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		b := &Backend{}
		got := b.match(&question{id: id, buttons: bs}, body)
		if got == nil {
			return
		}
		if !strings.Contains(strings.ToLower(body), "req="+id) || !strings.Contains(strings.ToLower(body), "cap="+hex.EncodeToString(got.cap[:])) {
			t.Fatalf("%q matched the button %s", body, got.choice)
		}
	})
}

// The phone's message shows a padded command whole, and one too long for
// ntfy keeps its head and its tail (who asks, when it closes), saying
// first that it is not all there.
func TestRequestShowsTheTail(t *testing.T) {
	b := &Backend{}
	for _, c := range padding.Cases {
		r := dialog.Request{Message: padding.Head + c.Pad + padding.Tail, OKLabel: "Allow", CancelLabel: "Deny", Origin: "Claude Code in ~/w"}
		m := b.request(r, &question{}, "t", nil, "").Message
		if !strings.HasPrefix(m, padding.Head) || !strings.Contains(m, padding.Tail+"\n\nAsked by Claude Code in ~/w") || len(m) > 200 {
			t.Errorf("%s: the phone's message is %d bytes:\n%.300q", c.Name, len(m), m)
		}
	}
	r := dialog.Request{Message: "Run this?\n" + strings.Repeat("x", 10000) + "\nrm -rf ~/important", OKLabel: "Allow", CancelLabel: "Deny", Origin: "Claude Code in ~/w"}
	m := b.request(r, &question{}, "t", nil, "").Message
	if len(m) > MaxMessageBytes || !strings.HasPrefix(m, "Too long to show whole") || !strings.HasSuffix(m, "rm -rf ~/important\n\nAsked by Claude Code in ~/w") {
		t.Errorf("a message too long for ntfy is not cut to its head and tail: %d bytes, %.200q … %q", len(m), m, m[max(0, len(m)-80):])
	}
}
