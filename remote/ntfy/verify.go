package ntfy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/remote"
)

// verify checks a setup against its server, as the phone and the holder
// will use it: the server answers; the asking token reads the reply topic
// and not the request topic; the answer token reads neither topic;
// anonymous reads neither. With writes, it also checks that the asking
// token publishes to the request topic and the answer token writes the
// reply topic, and that neither anonymous nor the answer token can publish
// a request:
// the request topic then gets one line saying the setup was checked, and
// the reply topic lines no request answers to. Each failed check says
// what would mend it (remote.Finding.Mend).
//
// It also says how long the server keeps a message (remote.Finding.Keeps)
// where the server tells it: an answer can be collected from the server
// only that long.
//
// With writes and a fleet's secret (remote.Config.Secret), it also checks
// that the asking token writes the reply topic, where the fleet keeps its
// record, and that no other fleet's mark is on it (unless args.NewFleet),
// and, once every check holds, writes this fleet's marker there.
//
// Each person's request topic (remote.Config.People) is checked as the
// first phone's is, and a finding about it names its person where the
// setup has several. With args.Person, only that person's topic is
// checked, beside the server's answer: remote approver add checks the
// person it adds, and notifies nobody else.
func verify(ctx context.Context, args remote.VerifyArgs, hc *http.Client) []remote.Finding {
	c := args.Config
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect}
	}
	v := &verifier{ctx: ctx, hc: hc, c: c}
	status, err := do(ctx, hc, http.MethodGet, strings.TrimSuffix(c.Server, "/")+"/v1/health", "", "")
	v.expect("the server answers", true, status, err, "")
	if err != nil || status != http.StatusOK {
		return v.out
	}
	if args.Person != "" {
		p, ok := c.Person(args.Person)
		if !ok {
			v.out = append(v.out, remote.Finding{What: "the setup has a person named " + dialog.Literal(args.Person, false), Mend: "remote approver add NAME --topic TOPIC"})
			return v.out
		}
		if args.Writes {
			v.checkTopicWrites(p)
		}
		v.checkTopicReads(p)
		return v.out
	}
	if args.Writes {
		v.checkWrites()
	} else {
		v.checkAnswerTokenWrites()
	}
	v.checkReads()
	v.checkKeeps()
	if key := c.SecretKey(); args.Writes && key != nil {
		v.checkFleet(key, args.NewFleet)
	}
	return v.out
}

// checkFleet looks for another fleet's mark on the reply topic (a setup's
// marker or a request's record, made with another secret, still in the
// server's cache), and, where every check so far holds, writes this
// fleet's marker.
func (v *verifier) checkFleet(key []byte, newFleet bool) {
	c := v.c
	cl := client{c: c, http: v.hc}
	// Counted as read, and nothing kept: the topic may hold any number
	// of lines under the tag.
	foreign := 0
	_, err := cl.poll(v.ctx, c.ReplyTopic, "all", func(m message) bool {
		if foreignFleet(key, m) {
			foreign++
		}
		return false
	}, fleetTag)
	f := remote.Finding{What: "no other fleet uses " + c.ReplyTopic, OK: err == nil}
	switch {
	case err != nil:
		f.Detail = dialog.Literal(err.Error(), false)
		f.Mend = "check --server, and that the asking token reads " + c.ReplyTopic
	case foreign > 0 && newFleet:
		f.Detail = "another fleet's mark is there; --new-fleet starts a new one all the same"
	case foreign > 0:
		f.OK = false
		f.Detail = "a setup made with another secret uses these topics (its mark is in the server's cache)"
		f.Mend = "to join that fleet, run ask-confirm remote export on one of its machines and give its output to this one (as its remote.json, or in ASK_CONFIRM_REMOTE); to start a new fleet whose answers the other machines will not take, run remote setup again with --new-fleet"
	}
	v.out = append(v.out, f)
	for _, f := range v.out {
		if !f.OK {
			return
		}
	}
	_, err = cl.publish(v.ctx, message{Topic: c.ReplyTopic, Message: fleetMarker(key), Tags: []string{fleetTag}})
	marked := remote.Finding{What: "the fleet's marker is written to " + c.ReplyTopic, OK: err == nil}
	if err != nil {
		marked.Detail, marked.Mend = dialog.Literal(err.Error(), false), "ntfy access ASKER "+c.ReplyTopic+" rw"
	}
	v.out = append(v.out, marked)
}

// verifier checks one setup's access rules, and keeps what it found.
type verifier struct {
	ctx context.Context
	hc  *http.Client
	c   remote.Config
	out []remote.Finding
}

func (v *verifier) read(topic, token string) (int, error) {
	return do(v.ctx, v.hc, http.MethodGet, v.c.TopicURL(topic)+"/json?poll=1&since=latest", token, "")
}

func (v *verifier) write(topic, token, body string) (int, error) {
	return do(v.ctx, v.hc, http.MethodPost, v.c.TopicURL(topic), token, body)
}

// allowed is the status of try, a read or a write that must succeed: a
// 403 is tried again (forbiddenAgain), as ntfy refuses one of a burst now
// and then, so that a check does not report an access rule that holds as
// missing. A check that must be refused is tried once: its first 403 is
// its answer.
func (v *verifier) allowed(try func() (int, error)) (s int, err error) {
	whileForbidden(v.ctx, func() bool {
		s, err = try()
		return err == nil && s == http.StatusForbidden
	})
	return s, err
}

// expect notes what, which must succeed (want) or be refused. A check that
// must succeed passes on success alone; one that must be refused passes
// only on ntfy's refusal (401 or 403), not on a network error or a proxy's
// 5xx, which would show nothing of the rule. rule is the access line that
// makes the check hold, for a check the server's access rules failed.
func (v *verifier) expect(what string, want bool, status int, err error, rule string) {
	ok := err == nil && status == http.StatusOK
	if !want {
		ok = err == nil && (status == http.StatusUnauthorized || status == http.StatusForbidden)
	}
	f := remote.Finding{What: what, OK: ok, Needed: want}
	if !ok {
		f.Detail = detailOf(status, err)
		f.Mend = mendFor(want, status, err, rule)
	}
	v.out = append(v.out, f)
}

// mendFor says what would mend a failed check: the fault of the network
// or the server where there is one, and otherwise rule.
func mendFor(want bool, status int, err error, rule string) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "the server's name does not resolve here: check --server"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens at --server: start the ntfy server, or check the URL's host and port"
	case err != nil && os.IsTimeout(err):
		return "the server did not answer in time: check --server, the network, and the server's log"
	case err != nil:
		return "check --server, and that the ntfy server runs and is reached over https"
	case status == http.StatusUnauthorized && want:
		return "the server does not know this token: make one with ntfy token add USER, and give setup the file that holds it"
	case status == http.StatusNotFound:
		return "no ntfy server answers at this URL: check --server, with the path the server is served under"
	case status == http.StatusTooManyRequests:
		return "the server limits this machine's requests: wait a minute and run remote setup again"
	case status >= 500:
		return "the server failed: see its log"
	}
	return rule
}

// checkWrites checks who may publish where: the request topic gets one
// line saying the setup was checked, and the reply topic lines no request
// answers to.
func (v *verifier) checkWrites() {
	c := v.c
	people := c.People()
	v.checkPublish(people[0])
	s, err := v.allowed(func() (int, error) {
		return v.write(c.ReplyTopic, c.AnswerToken, "ask-confirm remote setup: a check, no answer")
	})
	v.expect("the answer token writes "+c.ReplyTopic, true, s, err, "ntfy access ANSWERER "+c.ReplyTopic+" wo")
	if c.Secret != "" {
		// The fleet keeps its record there.
		s, err = v.allowed(func() (int, error) {
			return v.write(c.ReplyTopic, c.Token, "ask-confirm remote setup: a check, no answer")
		})
		v.expect("the asking token writes "+c.ReplyTopic, true, s, err, "ntfy access ASKER "+c.ReplyTopic+" rw")
	}
	s, err = v.write(c.ReplyTopic, "", "ask-confirm remote setup: a check, no answer")
	v.expect("anonymous cannot write "+c.ReplyTopic, false, s, err, anonymousRule(c.ReplyTopic))
	v.checkNoPublish(people[0])
	for _, p := range people[1:] {
		v.checkTopicWrites(p)
	}
}

// topic names p's request topic in a finding: by itself where the setup
// has one person, as it always did, and as "Bob's topic bob-requests"
// where it has several.
func (v *verifier) topic(p remote.Approver) string {
	if len(v.c.Approvers) == 0 || p.Name == "" {
		return p.Topic
	}
	return dialog.Literal(p.Name, false) + "'s topic " + p.Topic
}

// checkTopicWrites checks who may publish to p's request topic: the
// asking token, and neither the answer token nor anonymous.
func (v *verifier) checkTopicWrites(p remote.Approver) {
	v.checkPublish(p)
	v.checkNoPublish(p)
}

// checkPublish checks that the asking token publishes to p's request
// topic: p's phone gets one line saying so.
func (v *verifier) checkPublish(p remote.Approver) {
	s, err := v.allowed(func() (int, error) {
		return v.write(p.Topic, v.c.Token, "ask-confirm remote setup checked that it can reach this topic.")
	})
	v.expect("the asking token publishes to "+v.topic(p), true, s, err, "ntfy access ASKER "+p.Topic+" wo")
}

// checkNoPublish checks that neither the answer token nor anonymous can
// publish to p's request topic: a request there would be no request of
// the asking machine.
func (v *verifier) checkNoPublish(p remote.Approver) {
	s, err := v.write(p.Topic, v.c.AnswerToken, "ask-confirm remote setup: this should have been refused")
	v.expect("the answer token cannot publish to "+v.topic(p), false, s, err, "ntfy access --reset ANSWERER "+p.Topic)
	s, err = v.write(p.Topic, "", "ask-confirm remote setup: this should have been refused")
	v.expect("anonymous cannot publish to "+v.topic(p), false, s, err, anonymousRule(p.Topic))
}

// checkReads checks who may read what.
func (v *verifier) checkReads() {
	c := v.c
	s, err := v.allowed(func() (int, error) { return v.read(c.ReplyTopic, c.Token) })
	v.expect("the asking token reads "+c.ReplyTopic, true, s, err, "ntfy access ASKER "+c.ReplyTopic+" rw")
	people := c.People()
	v.checkAskerCannotRead(people[0])
	v.checkAnswererCannotRead(people[0])
	s, err = v.read(c.ReplyTopic, c.AnswerToken)
	v.expect("the answer token cannot read "+c.ReplyTopic, false, s, err, "ntfy access ANSWERER "+c.ReplyTopic+" wo")
	v.checkAnonymousCannotRead(people[0])
	s, err = v.read(c.ReplyTopic, "")
	v.expect("anonymous cannot read "+c.ReplyTopic, false, s, err, anonymousRule(c.ReplyTopic))
	for _, p := range people[1:] {
		v.checkTopicReads(p)
	}
}

// checkTopicReads checks that nobody reads p's request topic but p's
// phone: not the asking token, not the answer token, not anonymous.
func (v *verifier) checkTopicReads(p remote.Approver) {
	v.checkAskerCannotRead(p)
	v.checkAnswererCannotRead(p)
	v.checkAnonymousCannotRead(p)
}

// checkAskerCannotRead checks that the asking token cannot read p's
// request topic. The asking token is kept on the machine that asks,
// where whatever runs as its user can read it: were it to read the
// requests, it could read their buttons and answer in the person's place.
func (v *verifier) checkAskerCannotRead(p remote.Approver) {
	s, err := v.read(p.Topic, v.c.Token)
	v.expect("the asking token cannot read "+v.topic(p), false, s, err, "ntfy access ASKER "+p.Topic+" wo")
}

// checkAnswererCannotRead checks that the answer token, which every
// request's message carries, cannot read p's request topic: with it,
// whoever holds one button would read every button.
func (v *verifier) checkAnswererCannotRead(p remote.Approver) {
	s, err := v.read(p.Topic, v.c.AnswerToken)
	v.expect("the answer token cannot read "+v.topic(p), false, s, err, "ntfy access --reset ANSWERER "+p.Topic)
}

func (v *verifier) checkAnonymousCannotRead(p remote.Approver) {
	s, err := v.read(p.Topic, "")
	v.expect("anonymous cannot read "+v.topic(p), false, s, err, anonymousRule(p.Topic))
}

// checkAnswerTokenWrites checks, publishing nothing (probeAnswerToken),
// that the answer token writes the reply topic: where it does not, every
// tap on the phone is refused, and a request waits out its timeout.
func (v *verifier) checkAnswerTokenWrites() {
	c := v.c
	p := probeAnswerToken(v.ctx, v.hc, c)
	f := remote.Finding{What: "the answer token writes " + c.ReplyTopic + " (tried without publishing)", OK: p.ok, Needed: true}
	if !p.ok {
		f.Detail = detailOf(p.status, p.err)
		if p.refused {
			f.Detail += ": every tap on the phone would be refused"
		}
		f.Mend = mendFor(true, p.status, p.err, "ntfy access ANSWERER "+c.ReplyTopic+" wo")
	}
	v.out = append(v.out, f)
}

// answerProbe is what probeAnswerToken found: ok where the server let the
// answer token write the reply topic, refused where it refused it (401 or
// 403), neither where it said neither (a network error, a proxy's
// answer), which status and err tell.
type answerProbe struct {
	ok, refused bool
	status      int
	err         error
	// said is what the server said, as serverSaid words it.
	said string
}

// badPriority is ntfy's code for a publish whose priority it does not
// know (400), which it checks only once the token may write the topic.
const badPriority = 40007

// probeAnswerToken tries whether c's answer token, which every button
// carries, may write c's reply topic, publishing nothing: ntfy checks the
// token's access before it reads the message, and refuses this one for
// its priority (badPriority) only once the token was let through. A 403
// is tried forbiddenAgain more times: ntfy answers it too for a moment
// when its accounts' database is busy.
func probeAnswerToken(ctx context.Context, hc *http.Client, c remote.Config) answerProbe {
	var p answerProbe
	whileForbidden(ctx, func() bool {
		var code int
		p.status, code, p.said, p.err = publishBadPriority(ctx, hc, c.TopicURL(c.ReplyTopic), c.AnswerToken)
		p.ok = p.err == nil && (p.status == http.StatusBadRequest && code == badPriority || p.status/100 == 2)
		p.refused = p.err == nil && (p.status == http.StatusUnauthorized || p.status == http.StatusForbidden)
		return p.status == http.StatusForbidden
	})
	return p
}

// publishBadPriority posts to u with token a message whose priority ntfy
// refuses, and returns the status, ntfy's error code and what the server
// said (serverSaid).
func publishBadPriority(ctx context.Context, hc *http.Client, u, token string) (status, code int, said string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("ask-confirm: a check of the answer token, refused by design"))
	if err != nil {
		return 0, 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Priority", "not-a-priority")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	var e struct {
		Code int `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	said = serverSaid(&http.Response{Status: resp.Status, Body: io.NopCloser(bytes.NewReader(body))})
	return resp.StatusCode, e.Code, said, nil
}

// checkKeeps asks the server how long it keeps a message that each token
// publishes, and notes the shorter, where both tell: the asking token
// writes the fleet's record, the answer token the phone's taps. ntfy
// (v2.0 and later) says it in its account's limits
// (messages_expiry_duration, in seconds: cache-duration, or the
// account's tier's), which are what it adds to a message's time for the
// moment it deletes it (the message's expires). A server that does not
// say, or a proxy in the way, makes no finding: how long it keeps is
// then unknown, not wrong.
func (v *verifier) checkKeeps() {
	keeps := time.Duration(-1)
	for _, token := range []string{v.c.Token, v.c.AnswerToken} {
		d, ok := v.keepsFor(token)
		if !ok {
			return
		}
		if keeps < 0 || d < keeps {
			keeps = d
		}
	}
	f := remote.Finding{What: "the server keeps messages for " + dialog.ShortDuration(keeps) + " (its cache-duration)", OK: true, Keeps: &keeps}
	if keeps == 0 {
		f.What = "the server keeps no message (its cache-duration is 0)"
	}
	v.out = append(v.out, f)
}

// keepsFor is how long the server keeps a message that token publishes,
// as its account's limits say, or false where they do not.
func (v *verifier) keepsFor(token string) (time.Duration, bool) {
	req, err := http.NewRequestWithContext(v.ctx, http.MethodGet, strings.TrimSuffix(v.c.Server, "/")+"/v1/account", nil)
	if err != nil {
		return 0, false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := v.hc.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var account struct {
		Limits *struct {
			MessagesExpiryDuration *int64 `json:"messages_expiry_duration"`
		} `json:"limits"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&account) != nil ||
		account.Limits == nil || account.Limits.MessagesExpiryDuration == nil || *account.Limits.MessagesExpiryDuration < 0 {
		return 0, false
	}
	return time.Duration(*account.Limits.MessagesExpiryDuration) * time.Second, true
}

// anonymousRule takes anonymous access to topic away.
func anonymousRule(topic string) string {
	return "ntfy access --reset everyone " + topic + ", with auth-default-access: deny-all in the server's server.yml"
}

func detailOf(status int, err error) string {
	if err != nil {
		return dialog.Literal(err.Error(), false)
	}
	return http.StatusText(status) + " (" + fmt.Sprint(status) + ")"
}

func do(ctx context.Context, hc *http.Client, method, u, token, body string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}
