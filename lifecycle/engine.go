// Package lifecycle is ask-confirm's request engine: the one place that
// knows how a request goes from asked to answered. It owns the pure
// decision table, the waiter, the detached holder that keeps the dialog
// open, liveness, and the statuses with their exit codes. It asks through
// dialog, keeps records through store and starts and tests holders through
// platform; it never imports a front end.
//
// It has two seams:
//
//   - Front ends (the command line in cmd, the MCP server in mcpserver) call
//     an Engine: Ask for a request, and Find, Status, Cancel, Entries,
//     Forget and GC for what is kept. They translate their caller's
//     contract and nothing more.
//   - Ways of asking a person are a dialog.Backend, which the holder calls
//     to put the request on screen (Config.Backend), or which a Channel
//     runs in the caller's own process (Call.Channel: an MCP client's
//     form, a prompt on the caller's terminal).
//
// The holder is the same program as its front end, started again with
// HolderArgs: every program that makes an Engine must call HolderMain first
// thing in main.
package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
	"github.com/ask-confirm/ask-confirm/store"
)

// Config is what an Engine touches outside a request. Zero fields take the
// real ones: the XDG paths, the clock, the zenity backend, the platform's
// session detection and detached start, and no warnings. No field can be
// set from a command line or the environment.
type Config struct {
	Paths store.Paths
	Now   func() time.Time
	// Backend shows the dialog inside a holder.
	Backend dialog.Backend
	// Detect tells whether a person can be asked here. An Engine calls it
	// at most once per request, and only when a dialog has to be shown.
	Detect func() platform.Session
	// StartHolder starts a detached holder process with argv.
	StartHolder func(argv []string, lock platform.Lock) error
	// Warn is told about problems that were worked around: a corrupt store
	// set aside, a history line that could not be written.
	Warn func(error)
	// StoreLockTimeout bounds how long one store operation waits for
	// another process's; zero is store.DefaultLockTimeout.
	StoreLockTimeout time.Duration
	// HumanAnswer is the earliest a person can have answered; zero is
	// DefaultHumanAnswer. A dialog program that ends sooner, or an answer
	// a Channel brings sooner, was never seen by a person: the request
	// fails and is shown again. Tests set it high to read any answer as
	// too soon, whatever the machine's load.
	HumanAnswer time.Duration
	// Settle is how long a dialog program must keep running before its
	// window counts as shown; zero is DefaultSettle.
	Settle time.Duration
	// RemoteFile is where the phone's settings are; empty is
	// remote.DefaultPath(). Where none are, the phone is never asked.
	RemoteFile string
	// Phone makes the way of asking on the phone; nil is the real one,
	// through ntfy.
	Phone PhoneBackend
	// LocalUser returns the names this machine's user may be set up
	// under as a person (remote setup --name): a request of several
	// approvers asks here only where one of them is, and counts the
	// answer here as that person's vote. Nil is the real ones: the login
	// name, then the full name (os/user).
	LocalUser func() []string
}

// Defaults of the engine's two render thresholds (Config.HumanAnswer and
// Config.Settle).
const (
	// DefaultHumanAnswer: GNOME zenity now and then dies by itself about
	// 0.3 s after exec with the exit code of Cancel, and no person can
	// react to a window that fast.
	DefaultHumanAnswer = 400 * time.Millisecond
	// defaultSettle: GNOME zenity maps its window 0.12 to 0.5 s after
	// exec, and gives up on a display it cannot open in about 0.14 s.
	defaultSettle = 150 * time.Millisecond
)

// Engine runs requests for one front end. It holds no open file between
// calls; many Engines, in many processes, share one store.
type Engine struct {
	paths       store.Paths
	store       *store.Store
	now         func() time.Time
	backend     dialog.Backend
	detect      func() platform.Session
	startHolder func(argv []string, lock platform.Lock) error
	warnf       func(error)
	// dir is the working directory events are recorded with; empty in a
	// holder, which records its caller's (Record.CallerDir).
	dir string
	// settle is how long a dialog program must keep running before its
	// window counts as shown (Config.Settle).
	settle time.Duration
	// holders counts the requests this engine shows through a Channel, in
	// this process; Drain waits for them.
	holders sync.WaitGroup
	// humanAnswer is the earliest a person can have answered
	// (Config.HumanAnswer). The dialog program ending sooner, with any
	// exit code, failed to render.
	humanAnswer time.Duration
	// remoteFile and phone are Config.RemoteFile and Config.Phone.
	remoteFile string
	phone      PhoneBackend
	// localUser is Config.LocalUser.
	localUser func() []string
}

// New returns an Engine with c's settings.
func New(c Config) *Engine {
	e := &Engine{
		paths:       c.Paths,
		now:         c.Now,
		backend:     c.Backend,
		detect:      c.Detect,
		startHolder: c.StartHolder,
		warnf:       c.Warn,
		settle:      c.Settle,
		humanAnswer: c.HumanAnswer,
		remoteFile:  c.RemoteFile,
		phone:       c.Phone,
		localUser:   c.LocalUser,
	}
	if e.localUser == nil {
		e.localUser = osUser
	}
	if e.remoteFile == "" {
		e.remoteFile = remote.DefaultPath()
	}
	if e.phone == nil {
		e.phone = ntfyPhone
	}
	if e.settle <= 0 {
		e.settle = defaultSettle
	}
	if e.humanAnswer <= 0 {
		e.humanAnswer = DefaultHumanAnswer
	}
	if e.paths == (store.Paths{}) {
		e.paths = store.DefaultPaths()
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.backend == nil {
		e.backend = dialog.Zenity{}
	}
	if e.detect == nil {
		e.detect = platform.Detect
	}
	if e.startHolder == nil {
		e.startHolder = startDetached
	}
	e.dir, _ = os.Getwd()
	e.store = store.New(e.paths.DB)
	if c.StoreLockTimeout > 0 {
		e.store = e.store.WithLockTimeout(c.StoreLockTimeout)
	}
	e.store.Warn = e.warn
	return e
}

// Drain waits until every request this engine shows through a Channel
// has ended: answered, expired, closed, or stopped by its Channel's
// Context.
func (e *Engine) Drain() { e.holders.Wait() }

// Paths returns where the engine keeps its files.
func (e *Engine) Paths() store.Paths { return e.paths }

// Now is the engine's clock.
func (e *Engine) Now() time.Time { return e.now() }

// HumanAnswer is the earliest a person can have answered
// (Config.HumanAnswer): a front end that relays a question itself reads an
// answer sooner than this after the question went out as no person's.
func (e *Engine) HumanAnswer() time.Duration { return e.humanAnswer }

func (e *Engine) warn(err error) {
	if e.warnf != nil {
		e.warnf(err)
	}
}

// StoreError is the result of a request the store could not serve: exit 8,
// with a hint about where the store lives, or, for a path that is not
// safe to keep answers in, what is wrong with which one.
func (e *Engine) StoreError(id string, err error) Result {
	var unsafe *store.UnsafePathError
	if errors.As(err, &unsafe) {
		pe := &PathError{unsafe}
		r := ErrorResult(id, ExitInternal, pe)
		r.Hint = pe.Hint()
		return r
	}
	var lost *historyLost
	if errors.As(err, &lost) {
		r := ErrorResult(id, ExitInternal, lost)
		r.Hint = fmt.Sprintf(hintHistoryLost, e.paths.History)
		return r
	}
	r := ErrorResult(id, ExitInternal, fmt.Errorf(msgStoreUnusable, err))
	r.Hint = fmt.Sprintf(hintStoreUnusable, e.failedDir(err))
	return r
}

// failedDir is the directory of ask-confirm's that err is about, for the
// hint: the state directory (the locks and the history) where the path
// err names is in it or on the way to it, the answers' (cache) directory
// where it is in that one or on the way to it alone, the path itself
// where it is on the way to both; and the answers' directory where err
// names no path.
func (e *Engine) failedDir(err error) string {
	cache, state := filepath.Dir(e.paths.DB), filepath.Dir(e.paths.History)
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return cache
	}
	p := filepath.Clean(pe.Path)
	aboveState, aboveCache := within(state, p) || within(e.paths.Locks, p), within(cache, p)
	switch {
	case within(p, cache):
		return cache
	case within(p, state), within(p, e.paths.Locks):
		return state
	case aboveState && aboveCache:
		return p
	case aboveState:
		return state
	}
	return cache
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// historyLost is the error of an approval the history could not hold
// (msgHistoryLost): none is asked for or handed out.
type historyLost struct{ err error }

func (h *historyLost) Error() string { return fmt.Errorf(msgHistoryLost, h.err).Error() }
func (h *historyLost) Unwrap() error { return h.err }

// PathError is the error of a run refused because one of ask-confirm's
// directories or files is a symbolic link, the wrong kind of file, or
// another user's: front ends exit ExitInternal for it, and print its Hint.
type PathError struct{ err *store.UnsafePathError }

// UnsafePath is the PathError of path, which is a directory when dir is
// true, refused for problem (PathProblem's reason): for a front end that
// checks the paths itself (doctor).
func UnsafePath(path, problem string, dir bool) error {
	return &PathError{&store.UnsafePathError{Path: path, Problem: problem, Dir: dir}}
}

func (e *PathError) Error() string { return fmt.Sprintf(msgUnsafePath, e.err.Path, e.err.Problem) }
func (e *PathError) Unwrap() error { return e.err }

// Hint says what to do about the path.
func (e *PathError) Hint() string { return fmt.Sprintf(hintUnsafePath, e.err.Path) }

// ProbeWrite says why a request could not make or write path (a
// directory when isDir), tried for real and undone (store.ProbeWrite), or
// nil where it could: for a front end that checks the files before a
// request writes them (doctor). StoreError turns its error into the
// request's.
func ProbeWrite(path string, isDir bool) error { return store.ProbeWrite(path, isDir) }

// checkPaths refuses to go on where one of the engine's directories or
// files is not safe to keep answers in (store.Paths.Check): every request,
// and every look at what is kept, starts with it, before any dialog is
// shown or lock made. The error is a *PathError.
func (e *Engine) checkPaths() error {
	err := e.paths.Check()
	var unsafe *store.UnsafePathError
	if errors.As(err, &unsafe) {
		return &PathError{unsafe}
	}
	return err
}

// logEvent appends one event to the audit history, as more adds to it.
func (e *Engine) logEvent(event string, rec store.Record, outcome, reason string, more ...func(*store.Event)) error {
	dir := e.dir
	if dir == "" {
		dir = rec.CallerDir
	}
	ev := store.Event{
		Time:        e.now().UTC(),
		Event:       event,
		Identity:    rec.Identity,
		Title:       rec.Title,
		MessageHash: rec.MessageHash,
		Outcome:     outcome,
		Reason:      OneLine(reason),
		Attempt:     rec.Attempt,
		PID:         os.Getpid(),
		Dir:         dir,
		Channel:     rec.Channel,
		Origin:      rec.Origin,
		Phone:       rec.Phone,
		AnsweredBy:  rec.AnsweredBy,
	}
	if rec.Status == store.Approved {
		// What the person answered: a choice's labels, which are the
		// question's own text, but of free text only its hash.
		switch {
		case rec.Kind == dialog.Choose && rec.Typed && len(rec.Answers) > 0:
			last := len(rec.Answers) - 1
			ev.Answer, ev.AnswerHash = rec.Answers[:last], messageHash(rec.Answers[last])
		case rec.Kind == dialog.Choose:
			ev.Answer = rec.Answers
		case rec.Kind == dialog.Input:
			ev.AnswerHash = messageHash(strings.Join(rec.Answers, "\n"))
		}
		if rec.ApprovedFor > 0 {
			ev.ApprovedFor = dialog.ShortDuration(rec.ApprovedFor)
		}
	}
	if len(rec.Approvers) > 0 {
		ev.Approvers, ev.Approvals = rec.Approvers, rec.Approvals
		if rec.Status.Final() {
			ev.ApprovedBy, ev.DeniedBy = tally(rec.Votes)
		}
	}
	for _, f := range more {
		f(&ev)
	}
	return store.AppendEvent(e.paths.History, ev)
}

// logEventOrWarn is logEvent for events whose loss should not change the
// outcome: it reports a failure as a warning.
func (e *Engine) logEventOrWarn(event string, rec store.Record, outcome, reason string, more ...func(*store.Event)) {
	if err := e.logEvent(event, rec, outcome, reason, more...); err != nil {
		e.warn(fmt.Errorf(msgRecordHistory, event, err))
	}
}

func messageHash(msg string) string {
	h := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(h[:])
}

// Stamped at build time by a release (go build -ldflags "-X
// github.com/ask-confirm/ask-confirm/lifecycle.version=v1.2.3 ..."); else
// Version reads what the Go toolchain recorded in the binary.
var version, commit, date string

// Version returns ask-confirm's version: the stamped one, or the module's
// (go install …@v1.2.3), or "(devel)" for a build from a checkout.
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// Build returns the commit the binary was built from and when it was
// committed: stamped by a release, or what the Go toolchain recorded from
// the checkout it built (vcs.revision and vcs.time, and "+dirty" for a
// checkout with changes); "" where neither says.
func Build() (rev, at string) {
	if commit != "" {
		return commit, date
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty && rev != "" {
		rev += "+dirty"
	}
	return rev, at
}
