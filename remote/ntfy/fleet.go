package ntfy

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// A fleet is the machines that share one setup, and so one secret
// (remote.Config.Secret). Its shared record is the reply topic: beside the
// phone's replies, each machine that puts a request on the phone writes
// there that it is open, and the server's cache keeps it for every other
// machine to read. Every line a machine or a button writes there carries
// a MAC keyed by the secret, so that any machine of the fleet can verify
// it, and a holder of the answer token alone (whoever saw a request on the
// phone) can forge none.
//
// What is written, after replyPrefix:
//
//	a button:     req=ID cap=CAPABILITY mac=MAC(identity, ID, choice, closes)
//	a request:    rec=open fleet=FLEET req=ID content=C closes=UNIX mac=MAC(identity, content, ID, closes)
//	the setup:    fleet=FLEET
//
// with the tag keyTag(identity) on the first two, which a machine that
// never asked filters the topic by (the server applies it), and fleetTag
// on the last two, which a second remote setup looks for.

// fleetTag marks what a fleet writes on the reply topic of its own: a
// request's record and the setup's marker.
const fleetTag = "ask-confirm-fleet"

// mac is HMAC-SHA256 keyed by key over the parts, each length-prefixed so
// that no two lists of parts read alike, in hex.
func mac(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// macEqual compares two MACs in constant time.
func macEqual(a, b string) bool {
	return len(a) == len(b) && hmac.Equal([]byte(a), []byte(b))
}

// fleetID names the fleet of key: a MAC, so that only a machine that
// holds the secret can name it, and the secret stays unknown.
func fleetID(key []byte) string {
	return mac(key, "ask-confirm/2 fleet")[:32]
}

// keyTag is the tag a request of identity carries on the reply topic: a
// MAC too, so that the server's cache does not show which questions are
// asked.
func keyTag(key []byte, identity string) string {
	return "acq-" + mac(key, "ask-confirm/2 identity", identity)[:24]
}

// replyMAC is what button bt of request id proves: that the fleet made
// it, for this request and this choice, closing at closes.
func replyMAC(key []byte, identity, id string, bt *button, closes int64) string {
	return mac(key, "ask-confirm/2 reply", identity, id, bt.choice, bt.label, strconv.FormatInt(closes, 10))
}

// openMAC is what a request's record proves: that the fleet asked
// identity, with content, as request id, closing at closes.
func openMAC(key []byte, identity, content, id string, closes int64) string {
	return mac(key, "ask-confirm/2 open", identity, content, id, strconv.FormatInt(closes, 10))
}

// fields reads the NAME=VALUE fields of a line after replyPrefix: ok is
// false for a line without it, or with a field given twice, which no
// version writes.
func fields(body string) (f map[string]string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(body), replyPrefix)
	if !ok {
		return nil, false
	}
	f = map[string]string{}
	for _, field := range strings.Split(rest, " ") {
		name, value, _ := strings.Cut(field, "=")
		if _, twice := f[name]; twice {
			return nil, false
		}
		f[name] = value
	}
	return f, true
}

// openRecord is a request of the fleet as its record on the reply topic
// says: its id, when it closes (Unix seconds), and when the server took
// the record.
type openRecord struct {
	id     string
	closes int64
	at     int64
}

// openBody is the record of request id, asked with identity and content,
// closing at closes, by the fleet of key.
func openBody(key []byte, identity, content, id string, closes int64) string {
	return replyPrefix + "rec=open fleet=" + fleetID(key) + " req=" + id + " content=" + mac(key, "ask-confirm/2 content", content)[:32] +
		" closes=" + strconv.FormatInt(closes, 10) + " mac=" + openMAC(key, identity, content, id, closes)
}

// readOpen returns the request m records, if it is a record of a request
// of identity and content by the fleet of key: a record another fleet
// made, or for another question, is none.
func readOpen(key []byte, identity, content string, m message) (openRecord, bool) {
	f, ok := fields(m.Message)
	if !ok || f["rec"] != "open" || f["fleet"] != fleetID(key) {
		return openRecord{}, false
	}
	closes, err := strconv.ParseInt(f["closes"], 10, 64)
	if err != nil || !macEqual(f["content"], mac(key, "ask-confirm/2 content", content)[:32]) ||
		!macEqual(f["mac"], openMAC(key, identity, content, f["req"], closes)) {
		return openRecord{}, false
	}
	return openRecord{id: f["req"], closes: closes, at: m.Time}, true
}

// fleetMarker is what remote setup writes on the reply topic for the fleet
// of key, so that a setup with another secret notices the topics are
// taken.
func fleetMarker(key []byte) string {
	return replyPrefix + "fleet=" + fleetID(key)
}

// foreignFleet reports whether m is the mark of a fleet other than key's:
// a setup's marker or a request's record, with another fleet's name.
func foreignFleet(key []byte, m message) bool {
	f, ok := fields(m.Message)
	if !ok || f["fleet"] == "" {
		return false
	}
	return !macEqual(f["fleet"], fleetID(key))
}

// tapped is a verified tap: the button, and when the server took it.
type tapped struct {
	bt *button
	at int64
	id string
}

// outcome is the one answer a request's taps give, whoever reads them,
// in whatever order they came: the earliest tap by the server's time,
// unless taps of different buttons share its second, whose order nobody
// can tell for certain (a poll orders them as the server stored them, a
// stream by arrival, and a person may tap on two phones); then
// a deny (inDoubt). It is nil for no taps.
func outcome(taps []tapped) *button {
	if len(taps) == 0 {
		return nil
	}
	at := taps[0].at
	for _, t := range taps {
		at = min(at, t.at)
	}
	var first *button
	for _, t := range taps {
		if t.at != at {
			continue
		}
		if first != nil && t.bt != first {
			return inDoubt
		}
		first = t.bt
	}
	return first
}

// inDoubt is what taps of two buttons in one second give: a deny.
var inDoubt = &button{choice: "doubt"}

// question is one request as Ask puts it on the phone, or as it joined
// the fleet's: its buttons, and the id and closing time its taps name,
// which are the fleet's request's once joined.
type question struct {
	key               []byte // the fleet's secret, or nil
	identity, content string
	buttons           []*button

	ownID     string // the request this machine puts on the phone
	ownCloses int64
	alone     bool // the fleet's record could not be read: no claim

	mu     sync.Mutex
	id     string
	closes int64
	join   bool
	// others are the fleet's other requests of the question seen open
	// (id to closing time): a tap on one of them answers q too (see).
	others map[string]int64
}

// byServerOrder orders the fleet's records as a poll lists them: by the
// server's time, in whole seconds, then in the order the server stored
// them (ntfy's cache lists a topic by time, then row). A record stored
// later comes later within its second, so a claim a machine's poll did
// not see yet cannot come before one it saw in the same second. The sort
// is stable, and the poll's order is kept within a second.
func byServerOrder(a, b openRecord) int {
	return cmp.Compare(a.at, b.at)
}

// see notes rec, a request of q's question by another machine of the
// fleet, found open on the server. Two machines that ask at once agree on
// one request to put on the phone (claim), but where the server stores a
// claim late (a loaded server stamps a message's time before it stores
// it), a machine may not see the other's claim in time, and both requests
// reach the phone: a tap on either then answers both, so that no machine
// waits for a tap the person gave on the other.
func (q *question) see(rec openRecord) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if rec.id == q.ownID || rec.id == q.id {
		return
	}
	if q.others == nil {
		q.others = map[string]int64{}
	}
	q.others[rec.id] = rec.closes
}

// otherTap returns the button of a tap on request id, one of the fleet's
// other requests of q's question (see), that carries mac, and makes that
// request q's current one; nil for anything else.
func (q *question) otherTap(id, tapMAC string) *button {
	if q.key == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	closes, ok := q.others[id]
	if !ok {
		return nil
	}
	var found *button
	for _, bt := range q.buttons {
		// Every button is compared, whichever matches.
		if macEqual(tapMAC, replyMAC(q.key, q.identity, id, bt, closes)) {
			found = bt
		}
	}
	if found != nil {
		q.others[q.id] = q.closes
		delete(q.others, id)
		q.id, q.closes = id, closes
	}
	return found
}

// allTaps are the verified taps among ms of every request of q's question
// this machine knows of: its own, the one it joined, and the others it
// saw (see).
func (q *question) allTaps(ms []message) []tapped {
	q.mu.Lock()
	ids := map[string]int64{q.ownID: q.ownCloses, q.id: q.closes}
	for id, closes := range q.others {
		ids[id] = closes
	}
	q.mu.Unlock()
	var out []tapped
	for id, closes := range ids {
		probe := &question{key: q.key, identity: q.identity, buttons: q.buttons, id: id, closes: closes}
		out = append(out, probe.taps(ms, 0)...)
	}
	return out
}

// newQuestion is r as request id with buttons, closing at closes (Unix
// seconds, 0 for never), for the fleet of key (nil for none).
func newQuestion(key []byte, r dialog.Request, buttons []*button, id string, closes int64) *question {
	return &question{key: key, identity: r.Identity(), content: fleetContent(r), buttons: buttons, ownID: id, ownCloses: closes, id: id, closes: closes}
}

// fleetContent is what two machines' requests must share to be one
// request of the fleet: the same identity, and what the person sees. The
// scope is left out where a key is given: the key says the request is
// one, and the machines of a fleet (CI runners, a laptop and a
// devcontainer) seldom check a repository out at the same path. Without
// a key, the scope is the identity, and only machines asking from the
// same path share a request.
func fleetContent(r dialog.Request) string {
	if r.Key != "" {
		r.Scope = ""
	}
	return r.ContentHash()
}

func (q *question) current() (id string, closes int64, joined bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.id, q.closes, q.join
}

func (q *question) joined() bool {
	_, _, j := q.current()
	return j
}

// taps are the verified taps of q among ms, a poll of its tag, up to
// until (the server's time; 0 for any).
func (q *question) taps(ms []message, until int64) []tapped {
	id, closes, _ := q.current()
	var out []tapped
	for _, m := range ms {
		f, ok := fields(m.Message)
		if !ok || f["req"] != id || f["rec"] != "" || until != 0 && m.Time > until {
			continue
		}
		for _, bt := range q.buttons {
			if macEqual(f["mac"], replyMAC(q.key, q.identity, id, bt, closes)) {
				out = append(out, tapped{bt: bt, at: m.Time, id: m.ID})
			}
		}
	}
	return out
}

// lookUp reads the fleet's record of q on the server, in one poll of its
// tag, at the server's time now. Where the fleet's latest answer to the
// same question, by its tap, was given within Remember, or within
// CollectWithin while no machine has taken it (a machine waiting for it
// when it came, or one that collected it since), it returns the answer,
// unless a request of the question was put on the phone after that tap.
// Where a request is still open (its closing time later than now, not
// ended, not tapped), q joins the first of them, as every machine picks
// it. Otherwise q is asked anew. A record that cannot be read asks anew
// too: at worst the phone shows the question twice.
func (b *Backend) lookUp(ctx context.Context, cl client, q *question, now int64) (*button, bool) {
	ms, err := cl.poll(ctx, b.Config.ReplyTopic, "all", keyTag(q.key, q.identity))
	if err != nil {
		b.ignored(fmt.Sprintf("the fleet's record could not be read, so this request is asked anew: %v", err))
		// Nor is a claim written: the server is failing, and the time
		// left is the phone's message's.
		q.alone = true
		return nil, false
	}
	var answer *button
	var answeredAt int64
	var taken bool
	var open []openRecord
	for _, m := range ms {
		rec, ok := readOpen(q.key, q.identity, q.content, m)
		if !ok {
			continue
		}
		probe := &question{key: q.key, identity: q.identity, buttons: q.buttons, id: rec.id, closes: rec.closes}
		taps := probe.taps(ms, rec.closes)
		if bt := outcome(taps); bt != nil && !endedIn(q, rec.id, ms) {
			at := taps[0].at
			for _, t := range taps {
				at = min(at, t.at)
			}
			if answer == nil || at > answeredAt {
				answer, answeredAt, taken = bt, at, recordedIn(q, rec.id, "taken", ms)
			}
			continue
		}
		if rec.closes > now && !closedIn(q, rec, ms) {
			open = append(open, rec)
			q.see(rec)
		}
	}
	slices.SortStableFunc(open, byServerOrder)
	age := time.Duration(now-answeredAt) * time.Second
	switch {
	case answer != nil && (len(open) == 0 || open[0].at < answeredAt) && (age < b.Remember || !taken && age < b.CollectWithin):
		return answer, true
	case len(open) > 0:
		q.mu.Lock()
		q.id, q.closes, q.join = open[0].id, open[0].closes, true
		q.mu.Unlock()
	}
	return nil, false
}

// endedIn reports whether ms say that request id of q's question ended
// without a tap.
func endedIn(q *question, id string, ms []message) bool {
	return recordedIn(q, id, "end", ms)
}

// recordedIn reports whether ms hold the fleet's record what of request
// id of q's question.
func recordedIn(q *question, id, what string, ms []message) bool {
	for _, m := range ms {
		if f, ok := fields(m.Message); ok && isRecord(q.key, q.identity, id, what, f) {
			return true
		}
	}
	return false
}

// settleAfter is how long after a tap a machine waits before it reads
// the taps of its second from the server: a tap stamped in the same
// second was stamped less than a second after this one.
const settleAfter = 1250 * time.Millisecond

// settle returns the answer rp's request gives, as every machine of the
// fleet reads it: once the second of rp's tap is over, from a poll of the
// request's taps (outcome). Without a fleet, or where the poll fails, it
// is rp's own button.
func (b *Backend) settle(ctx context.Context, cl client, q *question, rp reply) *button {
	if q.key == nil {
		return rp.b
	}
	t := time.NewTimer(settleAfter)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return rp.b
	}
	ms, err := cl.poll(ctx, b.Config.ReplyTopic, strconv.FormatInt(rp.at-1, 10), keyTag(q.key, q.identity))
	if err != nil {
		return rp.b
	}
	taps := append(q.allTaps(ms), tapped{bt: rp.b, at: rp.at})
	return outcome(taps)
}

// leave makes q its own request again, with a fresh id, after the one it
// joined ended.
func (q *question) leave(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ownID = id
	q.id, q.closes, q.join = q.ownID, q.ownCloses, false
}

// recordBody is the line that says request id of identity ended without
// a tap ("end"), or that a machine took its answer ("taken").
func recordBody(key []byte, identity, id, what string) string {
	return replyPrefix + "rec=" + what + " fleet=" + fleetID(key) + " req=" + id + " mac=" + mac(key, "ask-confirm/2 "+what, identity, id)
}

// isRecord reports whether f, a line's fields, say that request id of
// identity ended ("end") or was taken ("taken"), with the fleet's MAC.
func isRecord(key []byte, identity, id, what string, f map[string]string) bool {
	return f["rec"] == what && f["req"] == id && macEqual(f["mac"], mac(key, "ask-confirm/2 "+what, identity, id))
}

// endOf reports whether body says that the request q joined ended
// without a tap.
func (q *question) endOf(body string) bool {
	id, _, joined := q.current()
	if !joined || q.key == nil {
		return false
	}
	f, ok := fields(body)
	return ok && isRecord(q.key, q.identity, id, "end", f)
}

// record writes on the reply topic, for a fleet, that request id of q's
// question ended without a tap ("end") or that this machine took its
// answer ("taken").
func (b *Backend) record(cl client, q *question, id, what string) {
	if q.key == nil {
		return
	}
	m := message{Topic: b.Config.ReplyTopic, Message: recordBody(q.key, q.identity, id, what), Tags: []string{fleetTag, keyTag(q.key, q.identity)}}
	ctx, cancel := context.WithTimeout(context.Background(), followUpWithin)
	defer cancel()
	if _, err := cl.publish(ctx, m); err != nil && b.Lost != nil {
		b.Lost(fmt.Sprintf("the fleet's record that this request %s could not be written within %s: %v", map[string]string{"end": "ended", "taken": "was answered here"}[what], followUpWithin, err))
	}
}

// took records, without waiting, that this machine took q's answer: a
// machine that asks the same question later collects it only within
// Remember of the tap.
func (b *Backend) took(cl client, q *question) {
	if q.key == nil {
		return
	}
	id, _, _ := q.current()
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		b.record(cl, q, id, "taken")
	}()
}

// firstOpen is the first, in the server's order (byServerOrder), of the
// fleet's requests of q's question in ms that are still open when q's own
// claim was stamped (its closing time later, not ended, not tapped), q's
// own among them. Nil where q's own is not there.
func firstOpen(q *question, ms []message) *openRecord {
	var now int64
	for _, m := range ms {
		if rec, ok := readOpen(q.key, q.identity, q.content, m); ok && rec.id == q.ownID {
			now = rec.at
		}
	}
	if now == 0 {
		return nil
	}
	var open []openRecord
	for _, m := range ms {
		rec, ok := readOpen(q.key, q.identity, q.content, m)
		if ok && (rec.id == q.ownID || rec.closes > now && !closedIn(q, rec, ms)) {
			open = append(open, rec)
			q.see(rec)
		}
	}
	slices.SortStableFunc(open, byServerOrder)
	return &open[0]
}

// closedIn reports whether ms say that rec's request ended, or was
// tapped.
func closedIn(q *question, rec openRecord, ms []message) bool {
	probe := &question{key: q.key, identity: q.identity, buttons: q.buttons, id: rec.id, closes: rec.closes}
	return len(probe.taps(ms, 0)) > 0 || endedIn(q, rec.id, ms)
}
