// Package remote asks a person on their phone, through a self-hosted ntfy
// server (github.com/binwiederhier/ntfy): a message with Deny and Approve
// buttons goes to a request topic the phone's ntfy app subscribes to, and
// a tap makes the phone itself send the HTTP request the button carries to
// a reply topic the asking side reads, so the asking machine needs no
// inbound port. Backend is the dialog.Backend that does it.
//
// Whether a reply is genuine comes from two things: the server's access
// rules (only the answer token, which the buttons carry, can write the
// reply topic, and it can read nothing), and a capability in each button,
// 128 random bits made for one request and one choice, which the asking
// side compares in constant time. An ntfy message says nothing of who
// published it.
package remote

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Config is where the phone is asked: an ntfy server, the two topics and
// the two tokens.
type Config struct {
	// Server is the ntfy server's base URL. It must be https, except on a
	// loopback address.
	Server string `json:"server"`
	// Topic is where requests are published, and what the phone
	// subscribes to.
	Topic string `json:"topic"`
	// ReplyTopic is where the buttons send their answer, and what the
	// asking side reads.
	ReplyTopic string `json:"reply_topic"`
	// Token is the asking side's: it publishes to Topic and reads
	// ReplyTopic.
	Token string `json:"token"`
	// AnswerToken is carried by the buttons: it writes ReplyTopic, and
	// nothing else.
	AnswerToken string `json:"answer_token"`
	// Secret is the fleet's secret, hex: SecretBytes random bytes made by
	// remote setup (NewSecret) and shared by every machine that holds a
	// copy of the setup. It keys the MAC that every reply and every record
	// on ReplyTopic carries, so that any machine of the fleet can verify
	// an answer it did not ask for. Empty in a setup made before fleets:
	// then only the machine that asked can tell its replies, as before.
	Secret string `json:"secret,omitempty"`
	// Name is the person whose phone subscribes to Topic, as remote
	// setup's --name recorded it; empty in a setup made before named
	// approvers.
	Name string `json:"name,omitempty"`
	// Approvers are the other people asked, each on a phone of their own
	// (remote approver add): a yes/no question may need several of them
	// (dialog.Request.Approvers).
	Approvers []Approver `json:"approvers,omitempty"`
}

// Approver is a person asked on a phone of their own: their name, and the
// request topic their phone's account reads. The asking token writes it;
// the reply topic is the setup's, which every button writes.
type Approver struct {
	Name  string `json:"name"`
	Topic string `json:"topic"`
}

// People are everyone set up: the first phone (Name, Topic), then
// Approvers, in the order they were added.
func (c Config) People() []Approver {
	return append([]Approver{{Name: c.Name, Topic: c.Topic}}, c.Approvers...)
}

// Person returns the person set up under name, compared without case.
func (c Config) Person(name string) (Approver, bool) {
	for _, p := range c.People() {
		if p.Name != "" && strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Approver{}, false
}

// MaxNameBytes bounds a person's name: it is shown in every follow-up.
const MaxNameBytes = 64

// CheckName reports what makes name unusable as a person's: empty, over
// MaxNameBytes, not UTF-8, a character that is not printable, a comma
// (--approvers separates names with one) or space at either end.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("a person's name must not be empty")
	case len(name) > MaxNameBytes:
		return fmt.Errorf("a person's name is at most %d bytes; this one is %d", MaxNameBytes, len(name))
	case !utf8.ValidString(name):
		return errors.New("a person's name must be UTF-8")
	case strings.TrimSpace(name) != name:
		return errors.New("a person's name must not start or end with a space")
	case strings.Contains(name, ","):
		return errors.New("a person's name must not hold a comma: --approvers separates names with one")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) && r != ' ' {
			return fmt.Errorf("a person's name must be printable text; this one holds U+%04X", r)
		}
	}
	return nil
}

// SecretBytes is the size of a fleet's secret: 256 bits.
const SecretBytes = 32

// NewSecret makes a fleet's secret from crypto/rand.
func NewSecret() (string, error) {
	var b [SecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making the fleet's secret: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// SecretKey is c's secret as bytes, or nil where c has none.
func (c Config) SecretKey() []byte {
	b, err := hex.DecodeString(c.Secret)
	if err != nil || len(b) < SecretBytes {
		return nil
	}
	return b
}

// topicName reports whether s is what ntfy accepts as a topic: 1 to 64
// of A-Z, a-z, 0-9, - and _. Not a regular expression: compiling
// ^[-_A-Za-z0-9]{1,64}$ when the package loads cost every run of
// ask-confirm 0.25 to 0.3 ms, a tenth of a remembered answer.
func topicName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ErrInsecure is returned by Check for a server reached over plain HTTP
// anywhere but on the machine itself: its tokens and answers would travel
// in the clear. The machine itself is a literal loopback address: a name,
// localhost included, is whatever /etc/hosts or DNS make of it.
var ErrInsecure = errors.New("the ntfy server must be reached over https (http is allowed only to a loopback address: http://127.0.0.1 or http://[::1], not a name)")

// ErrUserinfo is returned by Check for a server URL with a user name or
// password in it: the URL is written into every button, and so into the
// phone's message and the server's cache.
var ErrUserinfo = errors.New("the server URL must not hold a user name or password: it is written into every button the phone receives; the tokens are what ask-confirm signs in with")

// Check reports what makes c unusable: a server URL that is not http(s),
// or that holds a user name or password (ErrUserinfo), plain http beyond
// a loopback address (ErrInsecure), a topic ntfy would refuse, one topic
// for both directions, or a token missing.
func (c Config) Check() error {
	u, err := url.Parse(c.Server)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.RawQuery != "" || u.Fragment != "" {
		// Not the URL itself: it may hold a password.
		return errors.New("the server is not an http or https URL")
	}
	if u.User != nil {
		return ErrUserinfo
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return ErrInsecure
	}
	for _, t := range []struct{ what, name string }{{"topic", c.Topic}, {"reply topic", c.ReplyTopic}} {
		if !topicName(t.name) {
			return fmt.Errorf("%s %q: ntfy takes 1 to 64 letters, digits, - and _", t.what, t.name)
		}
	}
	if c.Topic == c.ReplyTopic {
		return errors.New("the request topic and the reply topic must differ: the phone's account reads one, the buttons write the other")
	}
	if c.Token == "" || c.AnswerToken == "" {
		return errors.New("both tokens are needed: the asking side's and the answer token the buttons carry")
	}
	if c.Token == c.AnswerToken {
		return errors.New("the answer token must not be the asking side's token: whoever holds a button would then read every request")
	}
	if err := c.checkPeople(); err != nil {
		return err
	}
	if c.Secret != "" && c.SecretKey() == nil {
		// Not the secret itself: the error may reach a log.
		return fmt.Errorf("the fleet's secret must be at least %d random bytes in hex, as remote setup makes it", SecretBytes)
	}
	return nil
}

// checkPeople reports what makes c's people unusable: a name that is not
// one (CheckName), two people under one name, an approver without a name
// while the first phone has none, or a request topic that is not one,
// is the reply topic, or is another person's.
func (c Config) checkPeople() error {
	if c.Name != "" {
		if err := CheckName(c.Name); err != nil {
			return err
		}
	}
	if len(c.Approvers) > 0 && c.Name == "" {
		return errors.New("the first phone has no name, and a setup with several people needs one for each: remote setup --name NAME")
	}
	seen := map[string]bool{}
	topics := map[string]bool{c.Topic: true, c.ReplyTopic: true}
	for _, p := range c.Approvers {
		if err := CheckName(p.Name); err != nil {
			return err
		}
		if strings.EqualFold(p.Name, c.Name) || seen[strings.ToLower(p.Name)] {
			return fmt.Errorf("%q is set up twice: each person once, under one name", p.Name)
		}
		seen[strings.ToLower(p.Name)] = true
		if !topicName(p.Topic) {
			return fmt.Errorf("%s's topic %q: ntfy takes 1 to 64 letters, digits, - and _", p.Name, p.Topic)
		}
		if topics[p.Topic] {
			return fmt.Errorf("%s's topic %q is already the reply topic or another person's: each phone reads a topic of its own", p.Name, p.Topic)
		}
		topics[p.Topic] = true
	}
	return nil
}

// loopback reports whether host is a literal loopback address. A name is
// not trusted, however it reads: the resolver asks /etc/hosts, then DNS.
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// TopicURL is the URL of topic on c's server.
func (c Config) TopicURL(topic string) string {
	return strings.TrimSuffix(c.Server, "/") + "/" + topic
}
