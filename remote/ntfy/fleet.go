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
//	a request:    rec=open fleet=FLEET req=ID content=C closes=UNIX claim=MAC(identity, C, ID, closes) [who=W] mac=MAC(identity, content, ID, closes)
//	its answer:   rec=answer fleet=FLEET req=ID choice=CHOICE mac=MAC(identity, ID, choice, closes)
//	its end:      rec=end|taken|cancel|supersede fleet=FLEET req=ID mac=MAC(identity, ID)
//	its told:     rec=told fleet=FLEET req=ID by=NONCE mac=MAC(identity, ID, nonce)
//	the setup:    fleet=FLEET
//
// with the tag keyTag(identity) on all but the last, which a machine that
// never asked filters the topic by (the server applies it), and fleetTag
// on all but the buttons', which a second remote setup looks for. A
// request asked with --key KEY also carries keyOnlyTag(KEY) on its
// records, and its identity, masked (who=W, whoField), so that a machine
// that knows the key alone (cancel KEY on a laptop that never asked) finds
// the request and verifies its records. A request's claim MAC (claim=)
// needs its identity, not its content: any machine of the question checks
// the claims of other content under the same key, the newest of which
// supersedes the others (claim).
//
// An approver removed from the setup (remote approver remove) is revoked
// fleet-wide (revoke.go): a record under revokeTag that voids the
// person's buttons on every request put on the phones before it.
//
// An answer given on a machine in a dialog or at a terminal (rec=answer)
// is read as a tap of the request, at the server's time of the record;
// a cancel or a supersede ends the request on every machine, as that;
// an end (the asker's expiry or withdrawal) makes the machines that
// joined it ask anew; told says a follow-up was sent to the phone, so
// that the phone gets one per request (tellOnce).

// fleetTag marks what a fleet writes on the reply topic of its own: a
// request's record and the setup's marker.
const fleetTag = "ask-confirm-fleet"

// keepAll keeps every message of a poll.
func keepAll(message) bool { return true }

// pollRecord reads the fleet's record of q's question on the reply topic,
// since since: the messages of its tag that q's fleet wrote (keep).
func (b *Backend) pollRecord(ctx context.Context, cl client, q *question, since string) ([]message, error) {
	return cl.poll(ctx, b.Config.ReplyTopic, since, q.keep(), keyTag(q.key, q.identity))
}

// keep returns what keeps, of a poll of q's tag, what the fleet of q
// wrote, each once: its records (a line that names this fleet, which only
// a machine that holds the secret can name, fleetID), and the taps that
// verify as a button of one of the fleet's requests of the question: q's
// own, the one it joined, the others it saw, and those whose record came
// earlier in the poll (a request is on record before its message reaches
// a phone, and a poll lists by time, then as stored). Anything else is
// passed over as it is read, however much of it the topic holds: whoever
// saw a notification holds the answer token and the question's tag, and
// may write any number of lines under it, or replay one button a thousand
// times, which counts as one tap.
func (q *question) keep() func(message) bool {
	known := map[string]int64{}
	q.mu.Lock()
	known[q.ownID], known[q.id] = q.ownCloses, q.closes
	for id, closes := range q.others {
		known[id] = closes
	}
	q.mu.Unlock()
	fleet := fleetID(q.key)
	seen := map[string]bool{}
	return func(m message) bool {
		f, ok := fields(m.Message)
		if !ok || seen[m.Message] {
			return false
		}
		switch {
		case f["fleet"] != "":
			if !macEqual(f["fleet"], fleet) {
				return false
			}
			if rec, ok := readOpen(q.key, q.identity, q.content, m); ok {
				known[rec.id] = rec.closes
			}
		case f["rec"] != "":
			return false
		default:
			closes, ok := known[f["req"]]
			if !ok || q.answerIn(f, f["req"], closes) == nil {
				return false
			}
		}
		seen[m.Message] = true
		return true
	}
}

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
	if bt.by != "" {
		// A person's button: their vote, and nobody else's.
		return mac(key, "ask-confirm/2 vote", identity, id, bt.choice, bt.label, strconv.FormatInt(closes, 10), bt.by)
	}
	return mac(key, "ask-confirm/2 reply", identity, id, bt.choice, bt.label, strconv.FormatInt(closes, 10))
}

// answerMAC is what a record of an answer given on a machine of the
// fleet (a dialog, a terminal) proves: that the fleet answered request id
// with bt, closing at closes. A deny is "deny" without a label, so that
// a choice without a Cancel button on the phone can record one.
func answerMAC(key []byte, identity, id string, bt *button, closes int64) string {
	label := bt.label
	if bt.choice == "deny" {
		label = ""
	}
	if bt.by != "" {
		return mac(key, "ask-confirm/2 vote answer", identity, id, bt.choice, label, strconv.FormatInt(closes, 10), bt.by)
	}
	return mac(key, "ask-confirm/2 answer", identity, id, bt.choice, label, strconv.FormatInt(closes, 10))
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
	// content is the record's content field (contentField).
	content string
}

// openBody is the record of request id, asked with identity and content,
// closing at closes, by the fleet of key.
func openBody(key []byte, identity, content, id string, closes int64, rkey string) string {
	c := contentField(key, content)
	body := replyPrefix + "rec=open fleet=" + fleetID(key) + " req=" + id + " content=" + c +
		" closes=" + strconv.FormatInt(closes, 10) + " claim=" + claimMAC(key, identity, c, id, closes)
	if rkey != "" {
		body += " who=" + whoField(key, rkey, id, identity)
	}
	return body + " mac=" + openMAC(key, identity, content, id, closes)
}

// contentField is what a request's record says of its content: a MAC,
// which tells two questions under one key apart, and nothing else.
func contentField(key []byte, content string) string {
	return mac(key, "ask-confirm/2 content", content)[:32]
}

// claimMAC is what a request's record proves to a machine that knows its
// identity, but not its content: that the fleet asked identity as request
// id, whose content field is c, closing at closes.
func claimMAC(key []byte, identity, c, id string, closes int64) string {
	return mac(key, "ask-confirm/2 claim", identity, c, id, strconv.FormatInt(closes, 10))
}

// keyOnlyTag is the tag the records of a request asked with --key rkey
// carry beside keyTag: a MAC of the key alone, which a machine that knows
// the key, not the rest of the request's identity (its approvers, the
// front end that asked), filters the reply topic by.
func keyOnlyTag(key []byte, rkey string) string {
	return "ack-" + mac(key, "ask-confirm/2 key", rkey)[:24]
}

// whoField is identity (hex), masked with a MAC of rkey and id: a machine
// that knows the key unmasks it (unmaskWho), and the server's cache does
// not show which question was asked.
func whoField(key []byte, rkey, id, identity string) string {
	return xorHex(identity, mac(key, "ask-confirm/2 who", rkey, id))
}

// unmaskWho is the identity a record's who=W field masks, for request id
// asked with --key rkey; ok is false for a field of another length.
func unmaskWho(key []byte, rkey, id, w string) (string, bool) {
	mask := mac(key, "ask-confirm/2 who", rkey, id)
	if len(w) != len(mask) {
		return "", false
	}
	out := xorHex(w, mask)
	return out, out != ""
}

// xorHex is a XOR b, two hex strings of one length; "" where either is
// not hex.
func xorHex(a, b string) string {
	x, err1 := hex.DecodeString(a)
	y, err2 := hex.DecodeString(b)
	if err1 != nil || err2 != nil || len(x) != len(y) {
		return ""
	}
	for i := range x {
		x[i] ^= y[i]
	}
	return hex.EncodeToString(x)
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
	if err != nil || !macEqual(f["content"], contentField(key, content)) ||
		!macEqual(f["mac"], openMAC(key, identity, content, f["req"], closes)) {
		return openRecord{}, false
	}
	return openRecord{id: f["req"], closes: closes, at: m.Time, content: f["content"]}, true
}

// readClaim returns the request m records, if it is a record of a request
// of identity, whatever its content, by the fleet of key, with its claim
// MAC. (A record written before claims were is none: it is read as
// readOpen reads it, by machines of its content.)
func readClaim(key []byte, identity string, m message) (openRecord, bool) {
	f, ok := fields(m.Message)
	if !ok || f["rec"] != "open" || !macEqual(f["fleet"], fleetID(key)) {
		return openRecord{}, false
	}
	closes, err := strconv.ParseInt(f["closes"], 10, 64)
	if err != nil || !macEqual(f["claim"], claimMAC(key, identity, f["content"], f["req"], closes)) {
		return openRecord{}, false
	}
	return openRecord{id: f["req"], closes: closes, at: m.Time, content: f["content"]}, true
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
	// recorded says it is a machine's record of an answer given there
	// (rec=answer), not a tap on the phone.
	recorded bool
}

// outcome is the one answer a request's taps give, whoever reads them,
// whenever, in whatever order they came: the button every tap names, or,
// where two taps name different answers, a deny (inDoubt). A tap's time
// says nothing of when it was given: ntfy stamps a message sent with
// X-Delay with the time it is due, and publishes it up to ten seconds
// later, so whoever saw a notification can publish one of its buttons
// dated before the person's answer, after every machine waiting then read
// it. Nor can any machine tell the order of two taps: a poll lists them
// as the server stored them, a stream as it sent them, and a person may
// tap on two phones. So no tap comes "first": one the person gave and one
// that differs from it deny, on every machine that reads both. It is nil
// for no taps.
func outcome(taps []tapped) *button {
	var first *button
	for _, t := range taps {
		switch {
		case first == nil:
			first = t.bt
		case !sameAnswer(first, t.bt):
			return inDoubt
		}
	}
	return first
}

// sameAnswer reports whether two buttons give the same answer: the same
// button, or two denies (the phone's Cancel, and a deny recorded on a
// machine, deniedElsewhere).
func sameAnswer(a, b *button) bool {
	return a == b || a.choice == "deny" && b.choice == "deny" && a.by == b.by
}

// inDoubt is what taps of two different answers give: a deny.
var inDoubt = &button{choice: "doubt"}

// question is one request as Ask puts it on the phone, or as it joined
// the fleet's: its buttons, and the id and closing time its taps name,
// which are the fleet's request's once joined.
type question struct {
	key               []byte // the fleet's secret, or nil
	identity, content string
	rkey              string // the request's --key, or ""
	buttons           []*button

	// people are a vote's approvers (votes.go), approvals how many
	// must approve, and approveFor how long an Approve-for button
	// approves for; people is nil for a request of one person.
	people     []person
	approvals  int
	approveFor time.Duration

	ownID     string // the request this machine puts on the phone
	ownCloses int64
	alone     bool // the fleet's record could not be read: no claim
	// tapAt is the server's time of the tap that gave the answer lookUp
	// collected.
	tapAt int64

	mu     sync.Mutex
	id     string
	closes int64
	join   bool
	// others are the fleet's other requests of the question seen open
	// (id to closing time): a tap on one of them answers q too (see).
	others map[string]int64
	// superseded are the requests of other content this machine wrote
	// superseded (supersedeID).
	superseded map[string]bool
	// revoked are the fleet's revocations (revoke.go), voter to time,
	// and askedAt the server's time of the record of the request q
	// waits for (0 for unknown): a revoked person's taps on it count for
	// nothing.
	revoked map[string]int64
	askedAt int64
	// lost says a newer question under the same key, claimed in the same
	// moment, superseded q's own before it reached the phone (claim).
	lost bool
}

func (q *question) supersededByNewer() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lost
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
		probe := q.probe(id, closes)
		out = append(out, probe.taps(ms, 0)...)
	}
	return out
}

// newQuestion is r as request id with buttons, closing at closes (Unix
// seconds, 0 for never), for the fleet of key (nil for none).
func newQuestion(key []byte, r dialog.Request, buttons []*button, id string, closes int64) *question {
	return &question{key: key, identity: r.Identity(), content: fleetContent(r), rkey: r.Key, buttons: buttons, ownID: id, ownCloses: closes, id: id, closes: closes}
}

// recordTags are the tags of the fleet's records of q's question: the
// fleet's, the question's, and, for a request asked with --key, the key's
// (keyOnlyTag).
func (q *question) recordTags() []string {
	tags := []string{fleetTag, keyTag(q.key, q.identity)}
	if q.rkey != "" {
		tags = append(tags, keyOnlyTag(q.key, q.rkey))
	}
	return tags
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
		if !ok || f["req"] != id || until != 0 && m.Time > until {
			continue
		}
		if bt := q.answerIn(f, id, closes); bt != nil {
			out = append(out, tapped{bt: bt, at: m.Time, id: m.ID, recorded: f["rec"] == "answer"})
		}
	}
	return out
}

// answerIn returns the button f, a line's fields, answers request id of
// q's question (closing at closes) with: a tap on it, or the fleet's
// record of an answer given on a machine (rec=answer), each with its
// MAC; nil for anything else.
func (q *question) answerIn(f map[string]string, id string, closes int64) *button {
	var found *button
	switch f["rec"] {
	case "":
		for _, bt := range q.buttons {
			// Every button is compared, whichever matches.
			if macEqual(f["mac"], replyMAC(q.key, q.identity, id, bt, closes)) {
				found = bt
			}
		}
	case "answer":
		for _, bt := range append(slices.Clone(q.buttons), deniedElsewhere) {
			if macEqual(f["mac"], answerMAC(q.key, q.identity, id, bt, closes)) && found == nil {
				found = bt
			}
		}
	}
	if found != nil && !sameVoter(f, found) {
		return nil
	}
	return found
}

// deniedElsewhere is the deny a machine recorded for a request whose
// buttons on the phone have no Cancel (a choice of three).
var deniedElsewhere = &button{choice: "deny"}

// buttonFor is the button of q that stands for a, an answer given on
// this machine other than on the phone, or nil for one no button can
// say.
func (q *question) buttonFor(a dialog.Answer) *button {
	if q.voting() {
		// A vote's answer is its people's: a vote given here came as
		// one (Backend.Votes), and an answer is no person's.
		return nil
	}
	if !a.Approved {
		for _, bt := range q.buttons {
			if bt.choice == "deny" {
				return bt
			}
		}
		return deniedElsewhere
	}
	for _, bt := range q.buttons {
		switch {
		case bt.choice == "approve" && a.For == 0 && len(a.Values) == 0,
			bt.choice == "approve-for" && a.For > 0,
			bt.choice == "option" && !a.Typed && len(a.Values) == 1 && a.Values[0] == bt.label:
			return bt
		}
	}
	return nil
}

// answerBody is the fleet's record that request id of q's question, closing
// at closes, was answered bt on a machine.
func answerBody(q *question, id string, closes int64, bt *button) string {
	return replyPrefix + "rec=answer fleet=" + fleetID(q.key) + " req=" + id + bt.voterField() + " choice=" + bt.choice + " mac=" + answerMAC(q.key, q.identity, id, bt, closes)
}

// lookUp reads the fleet's record of q on the server, in one poll of its
// tag, at the server's time now, when q's subscription sub opened. Where
// the fleet's latest answer to the same question, by its tap, is q's by
// the rule of collects (given while q waited, or within Remember, or
// within CollectWithin while no machine has taken it: a machine waiting
// for it when it came, or one that collected it since), it returns it,
// unless a request of the question was put on the phone after that tap.
// Where a request is still open (its closing time later than now, not
// ended, not tapped), q joins the first of them, as every machine picks
// it. Otherwise q is asked anew. A record that cannot be read asks anew
// too: at worst the phone shows the question twice.
func (b *Backend) lookUp(ctx context.Context, cl client, q *question, sub *subscription) (*button, bool) {
	now := sub.serverTime()
	ms, err := b.pollRecord(ctx, cl, q, "all")
	if err != nil {
		b.ignored(fmt.Sprintf("the fleet's record could not be read, so this request is asked anew: %v", err))
		// Nor is a claim written: the server is failing, and the time
		// left is the phone's message's.
		q.alone = true
		return nil, false
	}
	b.withRevocations(ctx, cl, q)
	var answer *button
	var answered openRecord
	var answeredAt int64
	var answeredBy string
	var taken bool
	var open []openRecord
	var cancelled openRecord
	var cancelledAt int64
	for _, m := range ms {
		rec, ok := readOpen(q.key, q.identity, q.content, m)
		if !ok {
			b.supersede(cl, q, m, now, ms)
			continue
		}
		if at := recordTime(q, rec.id, recCancel, ms); at != 0 {
			if rec.at > cancelled.at {
				cancelled, cancelledAt = rec, at
			}
			continue
		}
		probe := q.probe(rec.id, rec.closes)
		probe.askedAt = rec.at
		taps := probe.taps(ms, rec.closes)
		if bt := probe.decide(taps); bt != nil && !endedIn(q, rec.id, ms) {
			at, by := decidedBy(bt, taps)
			if answer == nil || at > answeredAt {
				// An answer given on a machine was taken there.
				answer, answered, answeredAt, answeredBy, taken = bt, rec, at, by, takenIn(q, rec.id, taps, ms)
			}
			continue
		}
		if rec.closes > now && !closedIn(q, rec, ms) {
			open = append(open, rec)
			q.see(rec)
		}
	}
	slices.SortStableFunc(open, byServerOrder)
	switch {
	case cancelledAt != 0 && (answer == nil || answered.at < cancelled.at) && (len(open) == 0 || open[0].at < cancelledAt) &&
		b.collects(ctx, sub, cancelledAt, "", false):
		// The newest request of the question was cancelled on a machine
		// of the fleet, within the time its outcome is collected: a
		// re-run ends cancelled too, rather than ask anew.
		q.mu.Lock()
		q.id, q.closes, q.join = cancelled.id, cancelled.closes, true
		q.mu.Unlock()
		return fleetCancelled, true
	case answer != nil && (len(open) == 0 || open[0].at < answeredAt) && b.collects(ctx, sub, answeredAt, answeredBy, taken):
		// The request answered is q's now, for its follow-up.
		q.mu.Lock()
		q.id, q.closes, q.join = answered.id, answered.closes, true
		q.mu.Unlock()
		q.tapAt = answeredAt
		return answer, true
	case len(open) > 0:
		q.mu.Lock()
		q.id, q.closes, q.join, q.askedAt = open[0].id, open[0].closes, true, open[0].at
		q.mu.Unlock()
	}
	return nil, false
}

// collects reports whether the answer a tap gave to a request of the
// question, at the server's time at, in the message id, is the answer of
// this one, whose subscription is sub. A tap the stream brought was given
// while this one waited. One given before is collected within Remember,
// or within CollectWithin while no machine has taken it, by the server's
// time the subscription opened. A tap of the second it opened, or of the
// second before (a hub gives its opening a second early), may be either:
// only the stream tells, which this process may read a moment after the
// poll that found the tap.
func (b *Backend) collects(ctx context.Context, sub *subscription, at int64, id string, taken bool) bool {
	now := sub.serverTime()
	if at > now+1 {
		return true
	}
	age := time.Duration(max(now-at, 0)) * time.Second
	if age < b.Remember || !taken && age < b.CollectWithin {
		return true
	}
	return at >= now-1 && id != "" && sub.cameOnStream(ctx, id, settleAfter)
}

// supersede writes, without waiting, that the request m records is
// superseded, where m is the fleet's record of an open request of q's
// identity (its key) with other content (its claim MAC verifies), still
// open at now by the server's time, neither ended nor taken (otherOpen): a
// newer question under the same key replaces it on every machine, which
// then ends it as superseded. A request answered and taken is left as it
// is: its re-run collects its answer.
func (b *Backend) supersede(cl client, q *question, m message, now int64, ms []message) {
	rec, ok := readClaim(q.key, q.identity, m)
	if !ok || macEqual(rec.content, contentField(q.key, q.content)) || rec.closes <= now || !otherOpen(q, rec.id, ms) {
		return
	}
	b.supersedeID(cl, q, rec.id)
}

// supersedeID writes, once, without waiting, that the fleet's request id
// of q's identity is superseded.
func (b *Backend) supersedeID(cl client, q *question, id string) {
	q.mu.Lock()
	if q.superseded == nil {
		q.superseded = map[string]bool{}
	}
	done := q.superseded[id]
	q.superseded[id] = true
	q.mu.Unlock()
	if done {
		return
	}
	b.followUps.Add(1)
	go func() {
		defer b.followUps.Done()
		b.record(cl, q, id, recSupersede)
	}()
}

// otherOpen reports whether ms say nothing of the end of request id of
// q's identity, one of another content, whose taps q cannot read (its
// buttons are another question's): not ended, not taken, not followed up.
func otherOpen(q *question, id string, ms []message) bool {
	return !endedIn(q, id, ms) && !recordedIn(q, id, "taken", ms) && toldBy(q, id, ms) == ""
}

// newest reads the fleet's claims of q's identity in ms, whatever their
// content, as every machine reads them once the second of q's own claim is
// over: of those still open when q's was stamped, the last, in the
// server's order (byServerOrder), is the newest question, which
// supersedes the others. It reports whether q's content is the newest's,
// and returns the open claims of other content. With no claim of q's own
// in ms, q is the newest.
func newest(q *question, ms []message) (bool, []openRecord) {
	own := contentField(q.key, q.content)
	var at int64
	var claims []openRecord
	for _, m := range ms {
		if rec, ok := readClaim(q.key, q.identity, m); ok {
			if rec.id == q.ownID {
				at = rec.at
			}
			claims = append(claims, rec)
		}
	}
	if at == 0 {
		return true, nil
	}
	var open, others []openRecord
	for _, rec := range claims {
		same := macEqual(rec.content, own)
		switch {
		case rec.id == q.ownID:
		case rec.closes <= at:
			continue
		case same && closedIn(q, rec, ms), !same && !otherOpen(q, rec.id, ms):
			continue
		}
		open = append(open, rec)
		if !same {
			others = append(others, rec)
		}
	}
	slices.SortStableFunc(open, byServerOrder)
	return macEqual(open[len(open)-1].content, own), others
}

// endedIn reports whether ms say that request id of q's question ended
// without a tap: as its asker left it, or cancelled or superseded on a
// machine of the fleet.
func endedIn(q *question, id string, ms []message) bool {
	return endingIn(q, id, ms) != ""
}

// Ways a fleet's request ends without an answer, as its record says:
// its asker left it (expired, withdrawn: the machines that joined it ask
// anew), or a machine cancelled it, or a newer question superseded it
// (every machine ends it so).
const (
	recEnd       = "end"
	recCancel    = "cancel"
	recSupersede = "supersede"
)

// endingIn is how ms say that request id of q's question ended without a
// tap: recCancel or recSupersede before recEnd, or "" for none.
func endingIn(q *question, id string, ms []message) string {
	for _, what := range []string{recCancel, recSupersede, recEnd} {
		if recordedIn(q, id, what, ms) {
			return what
		}
	}
	return ""
}

// recordTime is the server's time of the first of ms's records what of
// request id of q's question; 0 for none.
func recordTime(q *question, id, what string, ms []message) int64 {
	var at int64
	for _, m := range ms {
		if f, ok := fields(m.Message); ok && isRecord(q.key, q.identity, id, what, f) && (at == 0 || m.Time < at) {
			at = m.Time
		}
	}
	return at
}

// fleetCancelled is what a look-up collects of a request cancelled on a
// machine of the fleet: no answer, an end (lookUp).
var fleetCancelled = &button{choice: "deny"}

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

// takenIn reports whether a machine took the answer of request id, as
// ms, a poll of its tag, and taps, its taps among them, say: a machine's
// record that it took it, or an answer given on a machine (rec=answer),
// which that machine took.
func takenIn(q *question, id string, taps []tapped, ms []message) bool {
	return recordedIn(q, id, "taken", ms) || slices.ContainsFunc(taps, func(t tapped) bool { return t.recorded })
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
	// Every tap of the request, whenever it is dated (outcome).
	ms, ok := b.afterTheSecond(ctx, cl, q, "all")
	if !ok {
		return rp.b
	}
	taps := append(q.allTaps(ms), tapped{bt: rp.b, at: rp.at})
	return outcome(taps)
}

// afterTheSecond waits settleAfter, so that the server's second of a tap
// or a claim is over, then reads the fleet's record of q since since, as
// every machine reads it then. ok is false where ctx ended first or the
// poll failed.
func (b *Backend) afterTheSecond(ctx context.Context, cl client, q *question, since string) (ms []message, ok bool) {
	t := time.NewTimer(settleAfter)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, false
	}
	ms, err := b.pollRecord(ctx, cl, q, since)
	return ms, err == nil
}

// leave makes q its own request again, with a fresh id, after the one it
// joined ended, or was answered before q asked and is not q's to collect
// (collects). The request left is none of q's any more: its taps count
// for nothing (allTaps).
func (q *question) leave(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.askedAt = 0
	delete(q.others, q.id)
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

// endOf is how body says that q's request ended without a tap: cancelled
// or superseded on a machine of the fleet, or, for a request q joined,
// ended by its asker; "" for none.
func (q *question) endOf(body string) string {
	id, _, joined := q.current()
	if q.key == nil {
		return ""
	}
	f, ok := fields(body)
	if !ok {
		return ""
	}
	for _, what := range []string{recCancel, recSupersede, recEnd} {
		if (what != recEnd || joined) && isRecord(q.key, q.identity, id, what, f) {
			return what
		}
	}
	return ""
}

// verifiedRecord reports whether f, the fields of body, a line in the
// name of q's fleet about request id, q's current one, carries its MAC:
// the request's record, its end, cancel, supersede or taken, a follow-up's
// told, or an answer given on a machine.
func (q *question) verifiedRecord(f map[string]string, body, id string) bool {
	_, closes, _ := q.current()
	switch f["rec"] {
	case "open":
		_, ok := readOpen(q.key, q.identity, q.content, message{Message: body})
		return ok
	case recTold:
		return macEqual(f["mac"], mac(q.key, "ask-confirm/2 "+recTold, q.identity, id, f["by"]))
	case "answer":
		return q.answerIn(f, id, closes) != nil
	case "":
		// A setup's marker names no request.
		return true
	}
	return isRecord(q.key, q.identity, id, f["rec"], f)
}

// recordedAnswer returns the button of the fleet's record of an answer
// given on a machine (rec=answer) that body is, for q's request or one of
// the fleet's other requests of its question (see), which it then makes
// q's current one; nil for anything else.
func (q *question) recordedAnswer(body string) *button {
	f, ok := fields(body)
	if !ok || q.key == nil || f["rec"] != "answer" {
		return nil
	}
	id, closes, _ := q.current()
	if f["req"] == id {
		return q.answerIn(f, id, closes)
	}
	q.mu.Lock()
	closes, other := q.others[f["req"]]
	q.mu.Unlock()
	if !other {
		return nil
	}
	bt := q.answerIn(f, f["req"], closes)
	if bt != nil {
		q.mu.Lock()
		q.others[q.id] = q.closes
		delete(q.others, f["req"])
		q.id, q.closes = f["req"], closes
		q.mu.Unlock()
	}
	return bt
}

// record writes on the reply topic, for a fleet, that request id of q's
// question ended without a tap ("end") or that this machine took its
// answer ("taken").
func (b *Backend) record(cl client, q *question, id, what string) {
	if q.key == nil {
		return
	}
	b.publishRecord(cl, q, recordBody(q.key, q.identity, id, what), what)
}

// publishRecord writes body, the fleet's record what of q's request, on
// the reply topic, and reports to Lost one that could not be written. It
// reports whether it was.
func (b *Backend) publishRecord(cl client, q *question, body, what string) bool {
	m := message{Topic: b.Config.ReplyTopic, Message: body, Tags: q.recordTags()}
	ctx, cancel := context.WithTimeout(context.Background(), followUpWithin)
	defer cancel()
	_, err := cl.publish(ctx, m)
	if err != nil && b.Lost != nil {
		b.Lost(fmt.Sprintf("the fleet's record that this request %s could not be written within %s: %v", recordSays[what], followUpWithin, err))
	}
	return err == nil
}

// recordSays is what each of the fleet's records says of its request,
// for a record that could not be written.
var recordSays = map[string]string{
	recEnd:       "ended",
	"taken":      "was answered here",
	"answer":     "was answered on this machine",
	recCancel:    "was cancelled",
	recSupersede: "was superseded",
	recTold:      "was followed up on the phone",
}

// recTold is the record a machine writes as it sends a request's
// follow-up (tellOnce).
const recTold = "told"

// toldWait is how long a machine that did not put a request on the phone
// waits for the follow-up of the one that did, which is sent within a
// second or two of the request's end, before it sends one itself: that
// machine may be gone (a runner torn down).
const toldWait = 3 * time.Second

// toldBody is the record that a machine, by (a random nonce), sends the
// follow-up of request id of q's question.
func toldBody(q *question, id, by string) string {
	return replyPrefix + "rec=" + recTold + " fleet=" + fleetID(q.key) + " req=" + id + " by=" + by + " mac=" + mac(q.key, "ask-confirm/2 "+recTold, q.identity, id, by)
}

// toldBy returns who, by its nonce, the first of ms's told records of
// request id of q's question names, in the server's order; "" for none.
func toldBy(q *question, id string, ms []message) string {
	first, at := "", int64(0)
	for _, m := range ms {
		f, ok := fields(m.Message)
		if !ok || f["rec"] != recTold || f["req"] != id || !macEqual(f["mac"], mac(q.key, "ask-confirm/2 "+recTold, q.identity, id, f["by"])) {
			continue
		}
		// A poll lists by time, then as stored: the first of the
		// earliest second.
		if first == "" || m.Time < at {
			first, at = f["by"], m.Time
		}
	}
	return first
}

// tellOnce sends text, the follow-up of q's request, once fleet-wide. The
// machine that put the request on the phone (owner) tells at once, unless
// another machine's follow-up is on record already, and records that it
// tells. Any other waits toldWait, and tells only where no machine
// recorded a follow-up by then: it records its own, waits until the
// records of that second are in, and tells where its record is the first,
// as every machine reads them. A record that cannot be read or written
// sends nothing from a machine other than the owner: at worst, the phone
// is not followed up.
func (b *Backend) tellOnce(cl client, q *question, r dialog.Request, text string, owner bool) {
	id, _, _ := q.current()
	b.tellOnceAs(cl, q, r, text, owner, id)
}

// tellCollected sends text, the follow-up of the answer q collected from
// the fleet's record, once fleet-wide, before Ask hands the answer over: a
// machine that collects is most often a CI runner, torn down a second
// after its job's ask-confirm exits, long before tellOnce's wait for the
// asker's follow-up would be over. Nothing is sent where a follow-up is on
// record. The asker had that wait already where the tap is older than
// toldWait (by the server's clock, sub's): then no machine waits for it;
// otherwise this one waits out the rest.
func (b *Backend) tellCollected(ctx context.Context, cl client, q *question, r dialog.Request, text string, sub *subscription) {
	id, _, _ := q.current()
	pctx, cancel := context.WithTimeout(ctx, followUpWithin)
	ms, err := b.pollRecord(pctx, cl, q, "all")
	cancel()
	if err == nil && toldBy(q, id, ms) != "" {
		// Told already, by the asker or another machine that collected.
		return
	}
	if rest := time.Duration(q.tapAt-sub.serverTime())*time.Second + toldWait; rest > 0 {
		select {
		case <-time.After(rest):
		case <-ctx.Done():
			return
		}
	}
	b.tellAfter(cl, q, r, text, id)
}

// tellOnceAs is tellOnce with the told records written under id: a
// request's, or one of a vote's progress follow-ups.
func (b *Backend) tellOnceAs(cl client, q *question, r dialog.Request, text string, owner bool, id string) {
	by, err := newRequestID()
	if err != nil {
		by = "x"
	}
	if owner {
		// Bounded so that the follow-up itself is still sent, or
		// reported lost, within the holder's wait for it (10 s); a record
		// not read in time sends it all the same.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ms, err := b.pollRecord(ctx, cl, q, "all")
		cancel()
		if err == nil && toldBy(q, id, ms) != "" {
			return
		}
		b.followUps.Add(1)
		go func() {
			defer b.followUps.Done()
			b.publishRecord(cl, q, toldBody(q, id, by), recTold)
		}()
		b.followUp(cl, q, r, text)
		return
	}
	time.Sleep(toldWait)
	b.tellAfter(cl, q, r, text, id)
}

// tellAfter is tellOnce on a machine other than the owner, once the owner
// had its time to tell: it tells where no machine recorded a follow-up of
// id, and its own record is the first, as every machine reads them.
func (b *Backend) tellAfter(cl client, q *question, r dialog.Request, text, id string) {
	by, err := newRequestID()
	if err != nil {
		by = "x"
	}
	ctx, cancel := context.WithTimeout(context.Background(), followUpWithin)
	defer cancel()
	if ms, err := b.pollRecord(ctx, cl, q, "all"); err != nil || toldBy(q, id, ms) != "" {
		return
	}
	if !b.publishRecord(cl, q, toldBody(q, id, by), recTold) {
		return
	}
	time.Sleep(settleAfter)
	if ms, err := b.pollRecord(ctx, cl, q, "all"); err != nil || toldBy(q, id, ms) != by {
		return
	}
	b.followUp(cl, q, r, text)
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
	probe := q.probe(rec.id, rec.closes)
	probe.askedAt = rec.at
	return probe.decide(probe.taps(ms, 0)) != nil || endedIn(q, rec.id, ms)
}

// probe is q's question as request id, closing at closes: what reads
// that request's taps, with the revocations q read and, where known, the
// time of the request's record (probeAt).
func (q *question) probe(id string, closes int64) *question {
	q.mu.Lock()
	revoked, at := q.revoked, int64(0)
	if id == q.id {
		at = q.askedAt
	}
	q.mu.Unlock()
	return &question{revoked: revoked, askedAt: at, key: q.key, identity: q.identity, rkey: q.rkey, buttons: q.buttons, people: q.people, approvals: q.approvals, approveFor: q.approveFor, id: id, closes: closes}
}

// decidedBy is the tap that gave bt, their outcome (decide): the
// earliest tap, or a vote's deciding vote (a tap of its second). It
// returns the tap's time, and the ID of its message.
func decidedBy(bt *button, taps []tapped) (at int64, id string) {
	if len(bt.votes) > 0 {
		// An approval's deciding vote is its last; a deny's, its first
		// deny, which the votes list first (tally).
		at = bt.votes[len(bt.votes)-1].At.Unix()
		if bt.choice == "deny" {
			at = bt.votes[0].At.Unix()
		}
		for _, t := range taps {
			if t.at == at {
				id = t.id
			}
		}
		return at, id
	}
	first := taps[0]
	for _, t := range taps {
		if t.at < first.at {
			first = t
		}
	}
	return first.at, first.id
}
