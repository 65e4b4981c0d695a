package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/adrg/xdg"

	"github.com/ask-confirm/ask-confirm/platform"
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

// SetupEnv names the variable that holds a whole setup, as remote export
// prints it: where it is set, Load reads it instead of the file. It is
// how a CI system hands a job its secrets, so a job joins the fleet
// without a file on disk. TakeEnv moves it out of the environment.
const SetupEnv = "ASK_CONFIRM_REMOTE"

// handoffEnv names the variable through which ask-confirm mcp tells the
// program it runs in its place where to read the setup it hands over
// (Handoff): a descriptor's number, never the setup.
const handoffEnv = "ASK_CONFIRM_REMOTE_FD"

// maxGiven bounds a setup read from a pipe: a setup with every approver
// there can be is a few kilobytes.
const maxGiven = 1 << 20

// given is the setup this process was given, kept in memory: taken out of
// SetupEnv (TakeEnv), or handed over by the process that started it
// (Give, TakeEnv). err says why a setup handed over could not be read.
var given struct {
	sync.Mutex
	setup string
	ok    bool
	err   error
}

// TakeEnv moves the setup out of this process's environment into its
// memory, where Load, FromEnv and Given read it: from SetupEnv, or from
// the pipe through which the program that ran this one in its place
// handed it over (Handoff). It unsets both variables, so that no process
// this one starts (a holder, the phone's program and its hub, a dialog
// program, whatever those run) inherits the tokens and the fleet's
// secret. Every program that may start another calls it first thing:
// lifecycle.HolderMain does. Calling it again keeps what it took.
func TakeEnv() {
	data, handed, err := platform.ReadHandoff(handoffEnv)
	v, set := os.LookupEnv(SetupEnv)
	if set {
		_ = os.Unsetenv(SetupEnv)
	}
	given.Lock()
	defer given.Unlock()
	switch {
	case set && strings.TrimSpace(v) != "":
		given.setup, given.ok, given.err = v, true, nil
	case handed:
		given.setup, given.ok, given.err = string(data), true, err
	}
}

// Give makes the setup read from r, as SetupEnv would hold it, the one
// Load reads: a holder's, which its caller handed over on the holder's
// stdin (Given). Where r is empty or cannot be read, Load returns that
// error rather than the file's setup.
func Give(r io.Reader) {
	b, err := io.ReadAll(io.LimitReader(r, maxGiven))
	if err == nil && strings.TrimSpace(string(b)) == "" {
		err = errors.New("the setup was not handed over")
	}
	given.Lock()
	defer given.Unlock()
	given.setup, given.ok, given.err = string(b), true, err
}

// Given returns the setup TakeEnv or Give keeps in memory, as SetupEnv
// held it, for a process this one starts to be handed (Give): false where
// none is kept, and the settings are the file's.
func Given() (string, bool) {
	given.Lock()
	defer given.Unlock()
	return given.setup, given.ok && given.err == nil
}

// Handoff is Given as platform.Exec hands it to the program it runs in
// this one's place, whose TakeEnv reads it: nothing where none is kept.
func Handoff() platform.Handoff {
	setup, ok := Given()
	if !ok {
		return platform.Handoff{}
	}
	return platform.Handoff{Env: handoffEnv, Data: []byte(setup)}
}

// Environ is this process's environment without SetupEnv, for a program
// it starts: a process that never called TakeEnv (a test's) hands the
// setup on no more than one that did.
func Environ() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, SetupEnv+"=") && !strings.HasPrefix(kv, handoffEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// givenSetup is the setup Load reads in place of the file: the one kept
// in memory (TakeEnv, Give), else, in a process that never called
// TakeEnv (a test's), SetupEnv where it is set and not empty.
func givenSetup() (setup string, ok bool, err error) {
	given.Lock()
	defer given.Unlock()
	if given.ok {
		return given.setup, true, given.err
	}
	if v, set := os.LookupEnv(SetupEnv); set && strings.TrimSpace(v) != "" {
		return v, true, nil
	}
	return "", false, nil
}

// Load reads the settings: from the setup given in SetupEnv (or handed
// over by the process that started this one, TakeEnv and Give) where
// there is one, else from the file at path. A missing file is
// ErrNotConfigured; a file others may read, or a setup that does not
// parse or check, is an error, which never quotes the setup: it holds the
// tokens and the secret.
func Load(path string) (Settings, error) {
	if v, ok, err := givenSetup(); ok {
		if err != nil {
			return Settings{}, fmt.Errorf("%s: %w", SetupEnv, err)
		}
		s, err := parseSettings([]byte(v))
		if err != nil {
			return Settings{}, fmt.Errorf("%s: %w", SetupEnv, err)
		}
		return s, nil
	}
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
	s, err := parseSettings(b)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// FromEnv reports whether Load reads the settings from SetupEnv (or from
// a setup handed over in its place) rather than the file.
func FromEnv() bool {
	_, ok, _ := givenSetup()
	return ok
}

// parseSettings reads a setup's JSON and checks it. Its errors say what
// is wrong without quoting the text: a syntax error would show the bytes
// around it, which may be a token's.
func parseSettings(b []byte) (Settings, error) {
	var s Settings
	if err := json.Unmarshal(b, &s); err != nil {
		return Settings{}, errors.New("not a setup as remote setup writes it and remote export prints it (JSON)")
	}
	if err := s.Check(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Export is s as remote export prints it and SetupEnv takes it: the
// settings file's content, on one line.
func Export(s Settings) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	return string(b), nil
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
	// Mend is what would make a failed check hold: the ntfy access line,
	// or what to look at where the network or the server failed.
	Mend string `json:"mend,omitempty"`
	// Needed says the phone cannot ask without what was checked (the
	// server answers, a token does what asking needs), as opposed to a
	// check that what should be refused is (an access rule that keeps
	// others out): a request asked on the phone fails where a needed
	// check fails, and goes on where only the others do.
	Needed bool `json:"needed,omitempty"`
	// Keeps is how long the server keeps a message, for the finding that
	// says so, where the server told it (ntfy's cache-duration): an
	// answer can be collected from the server only that long after it
	// was given.
	Keeps *time.Duration `json:"keeps,omitempty"`
}

// Keeps is how long the server keeps a message, as one of findings says,
// or false where none does.
func Keeps(findings []Finding) (time.Duration, bool) {
	for _, f := range findings {
		if f.Keeps != nil {
			return *f.Keeps, true
		}
	}
	return 0, false
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

// PrivateFile reports a regular file that holds a token and whose mode
// lets others read it. A pipe (--token-file <(pass show ntfy)) is read
// once and gone, and is not judged; nor are Windows' file modes, which say
// nothing of who may read.
func PrivateFile(fi fs.FileInfo) error {
	if fi.Mode().IsRegular() && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("others may read it (mode %04o), and it holds a token", fi.Mode().Perm())
	}
	return nil
}
