package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// app is everything a command touches outside its own arguments. Main builds
// the real one; tests build theirs with a fake backend or clock. No field
// can be set from the command line or the environment.
type app struct {
	paths  store.Paths
	store  *store.Store
	stdout io.Writer
	stderr io.Writer
	// progress receives the waiting countdown; nil unless stderr is a
	// terminal, so scripts and log files never see it.
	progress io.Writer
	now      func() time.Time

	// backend shows the dialog inside a holder.
	backend dialog.Backend
	// detect tells whether a person can be asked here.
	detect func() platform.Session
	// startHolder starts a detached holder process.
	startHolder func(argv []string, lock platform.Lock) error
	// settle is how long a dialog program must keep running before its
	// window counts as shown: GNOME zenity maps its window 0.12 to 0.5 s
	// after exec, and gives up on a display it cannot open in about 0.14 s.
	settle time.Duration
	// humanAnswer is the earliest a person can have answered. The dialog
	// program ending sooner, with any exit code, failed to render: GNOME
	// zenity now and then dies by itself about 0.3 s after exec with the
	// exit code of Cancel, and no person can react to a window that fast.
	humanAnswer time.Duration
}

func newApp() *app {
	paths := store.DefaultPaths()
	a := &app{
		paths:       paths,
		store:       store.New(paths.DB),
		stdout:      os.Stdout,
		stderr:      os.Stderr,
		now:         time.Now,
		backend:     dialog.Zenity{},
		detect:      platform.Detect,
		startHolder: platform.StartDetached,
		settle:      150 * time.Millisecond,
		humanAnswer: 400 * time.Millisecond,
	}
	a.store.Warn = a.warn
	if term.IsTerminal(int(os.Stderr.Fd())) {
		a.progress = os.Stderr
	}
	return a
}

func (a *app) warn(err error) {
	fmt.Fprintf(a.stderr, msgWarning+"\n", err)
}

// logEvent appends one event to the audit history.
func (a *app) logEvent(event string, rec store.Record, outcome, reason string) error {
	dir, _ := os.Getwd()
	if rec.CallerDir != "" && dir == "/" {
		dir = rec.CallerDir
	}
	return store.AppendEvent(a.paths.History, store.Event{
		Time:        a.now().UTC(),
		Event:       event,
		Identity:    rec.Identity,
		Title:       rec.Title,
		MessageHash: rec.MessageHash,
		Outcome:     outcome,
		Reason:      reason,
		Attempt:     rec.Attempt,
		PID:         os.Getpid(),
		Dir:         dir,
	})
}

// logEventOrWarn is logEvent for events whose loss should not change the
// outcome: it reports a failure as a warning.
func (a *app) logEventOrWarn(event string, rec store.Record, outcome, reason string) {
	if err := a.logEvent(event, rec, outcome, reason); err != nil {
		a.warn(fmt.Errorf("recording %s in the history: %w", event, err))
	}
}

func messageHash(msg string) string {
	h := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(h[:])
}
