package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"
)

// The values of Settings.Mode: when the phone is asked.
const (
	ModeOff      = "off"      // never
	ModeAlso     = "also"     // beside the dialog or terminal; the first answer wins
	ModeFallback = "fallback" // only where nobody can be asked here
	ModeOnly     = "only"     // instead of the dialog or terminal
)

// Modes are the values of Settings.Mode, in the order the help gives them.
var Modes = []string{ModeOff, ModeAlso, ModeFallback, ModeOnly}

// Settings is the remote configuration on disk: where the phone is asked,
// and when by default.
type Settings struct {
	Config
	Mode string `json:"mode"`
}

// ErrNotConfigured is returned by Load when no phone is set up.
var ErrNotConfigured = errors.New("no phone is set up (ask-confirm remote setup)")

// Load reads the settings at path. A missing file is ErrNotConfigured; a
// file others may read, or that does not parse or check, is an error.
func Load(path string) (Settings, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, ErrNotConfigured
	}
	if err != nil {
		return Settings{}, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return Settings{}, fmt.Errorf("%s must be a regular file that only its owner can read (mode 0600): it holds the tokens", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Settings{}, err
	}
	var s Settings
	if err := json.Unmarshal(b, &s); err != nil {
		return Settings{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := s.Check(); err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Check reports what makes s unusable: its Config's faults or an unknown
// mode.
func (s Settings) Check() error {
	if err := s.Config.Check(); err != nil {
		return err
	}
	for _, m := range Modes {
		if s.Mode == m {
			return nil
		}
	}
	return fmt.Errorf("mode %q: want one of %s", s.Mode, strings.Join(Modes, ", "))
}

// Save writes s to path, readable by its owner alone, creating its
// directory (0700). It replaces the file whole: a reader never sees half.
func Save(path string, s Settings) error {
	if err := s.Check(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".remote-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Finding is one check of a setup: what was checked, and whether it holds.
type Finding struct {
	What   string `json:"what"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Verify checks a setup against its server, as the phone and the holder
// will use it: the server answers; the asking token reads the reply topic
// and not the request topic; the answer token reads neither topic;
// anonymous reads neither. With writes, it also checks that the asking
// token publishes to the request topic and the answer token writes the
// reply topic, and that neither anonymous nor the answer token can publish
// a request:
// the request topic then gets one line saying the setup was checked, and
// the reply topic lines no request answers to.
func Verify(ctx context.Context, c Config, hc *http.Client, writes bool) []Finding {
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second, CheckRedirect: noRedirect}
	}
	v := &verifier{ctx: ctx, hc: hc, c: c}
	status, err := do(ctx, hc, http.MethodGet, strings.TrimSuffix(c.Server, "/")+"/v1/health", "", "")
	v.expect("the server answers", true, status, err)
	if err != nil || status != http.StatusOK {
		return v.out
	}
	if writes {
		v.checkWrites()
	}
	v.checkReads()
	return v.out
}

// verifier checks one setup's access rules, and keeps what it found.
type verifier struct {
	ctx context.Context
	hc  *http.Client
	c   Config
	out []Finding
}

func (v *verifier) read(topic, token string) (int, error) {
	return do(v.ctx, v.hc, http.MethodGet, v.c.topicURL(topic)+"/json?poll=1&since=latest", token, "")
}

func (v *verifier) write(topic, token, body string) (int, error) {
	return do(v.ctx, v.hc, http.MethodPost, v.c.topicURL(topic), token, body)
}

// expect notes what, which must succeed (want) or be refused. A check that
// must succeed passes on success alone; one that must be refused passes
// only on ntfy's refusal (401 or 403), not on a network error or a proxy's
// 5xx, which would show nothing of the rule.
func (v *verifier) expect(what string, want bool, status int, err error) {
	ok := err == nil && status == http.StatusOK
	if !want {
		ok = err == nil && (status == http.StatusUnauthorized || status == http.StatusForbidden)
	}
	f := Finding{What: what, OK: ok}
	if !ok {
		f.Detail = detailOf(status, err)
	}
	v.out = append(v.out, f)
}

// checkWrites checks who may publish where: the request topic gets one
// line saying the setup was checked, and the reply topic lines no request
// answers to.
func (v *verifier) checkWrites() {
	c := v.c
	s, err := v.write(c.Topic, c.Token, "ask-confirm remote setup checked that it can reach this topic.")
	v.expect("the asking token publishes to "+c.Topic, true, s, err)
	s, err = v.write(c.ReplyTopic, c.AnswerToken, "ask-confirm remote setup: a check, no answer")
	v.expect("the answer token writes "+c.ReplyTopic, true, s, err)
	s, err = v.write(c.ReplyTopic, "", "ask-confirm remote setup: a check, no answer")
	v.expect("anonymous cannot write "+c.ReplyTopic, false, s, err)
	s, err = v.write(c.Topic, c.AnswerToken, "ask-confirm remote setup: this should have been refused")
	v.expect("the answer token cannot publish to "+c.Topic, false, s, err)
	s, err = v.write(c.Topic, "", "ask-confirm remote setup: this should have been refused")
	v.expect("anonymous cannot publish to "+c.Topic, false, s, err)
}

// checkReads checks who may read what.
func (v *verifier) checkReads() {
	c := v.c
	s, err := v.read(c.ReplyTopic, c.Token)
	v.expect("the asking token reads "+c.ReplyTopic, true, s, err)
	// The asking token is kept on the machine that asks, where whatever
	// runs as its user can read it: were it to read the requests, it could
	// read their buttons and answer in the person's place.
	s, err = v.read(c.Topic, c.Token)
	v.expect("the asking token cannot read "+c.Topic, false, s, err)
	s, err = v.read(c.Topic, c.AnswerToken)
	v.expect("the answer token cannot read "+c.Topic, false, s, err)
	s, err = v.read(c.ReplyTopic, c.AnswerToken)
	v.expect("the answer token cannot read "+c.ReplyTopic, false, s, err)
	s, err = v.read(c.Topic, "")
	v.expect("anonymous cannot read "+c.Topic, false, s, err)
	s, err = v.read(c.ReplyTopic, "")
	v.expect("anonymous cannot read "+c.ReplyTopic, false, s, err)
}

func detailOf(status int, err error) string {
	if err != nil {
		return err.Error()
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

// SubscribeLink is what the phone's ntfy app opens to subscribe to the
// request topic of c: an ntfy:// link, with secure=false for a plain-http
// (loopback) server.
func SubscribeLink(c Config) string {
	u, err := url.Parse(c.Server)
	if err != nil {
		return ""
	}
	link := "ntfy://" + u.Host + strings.TrimSuffix(u.Path, "/") + "/" + c.Topic
	if u.Scheme == "http" {
		link += "?secure=false"
	}
	return link
}

// DefaultPath is where the settings live: remote.json in ask-confirm's
// directory under the XDG config home. The XDG variables are read once,
// when the process starts.
func DefaultPath() string {
	return filepath.Join(xdg.ConfigHome, "ask-confirm", "remote.json")
}
