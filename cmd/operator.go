package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// The operator commands look at and tidy what ask-confirm keeps: open
// requests and remembered answers. None of them can approve anything.

// errNoMatch is returned when no stored request matches an operator's KEY.
var errNoMatch = errors.New("no stored request matches")

// minPrefix is the shortest identity prefix accepted, as with git's short
// hashes.
const minPrefix = 4

// resolve finds the one record an operator means by arg: a full identity,
// the --key it was asked with, or a unique identity prefix.
func (a *app) resolve(arg string) (store.Record, error) {
	recs, err := a.store.List()
	if err != nil {
		return store.Record{}, err
	}
	keyID := dialog.Request{Key: arg}.Identity()
	var matches []store.Record
	for _, r := range recs {
		switch {
		case r.Identity == arg || r.Identity == keyID:
			return r, nil
		case len(arg) >= minPrefix && strings.HasPrefix(r.Identity, strings.ToLower(arg)):
			matches = append(matches, r)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return store.Record{}, &usageError{fmt.Errorf("%w %q; see ask-confirm list", errNoMatch, arg)}
	default:
		return store.Record{}, &usageError{fmt.Errorf("%q matches %d requests; give more of the identity", arg, len(matches))}
	}
}

// selectRecords returns the record named by args[0], or every record with
// --all.
func (a *app) selectRecords(args []string, all bool) ([]store.Record, error) {
	switch {
	case all && len(args) > 0:
		return nil, &usageError{errors.New("give a KEY or --all, not both")}
	case all:
		return a.store.List()
	case len(args) != 1:
		return nil, &usageError{errors.New("give the KEY of one request, or --all")}
	}
	r, err := a.resolve(args[0])
	if err != nil {
		return nil, err
	}
	return []store.Record{r}, nil
}

// entry is one request as list and status show it.
type entry struct {
	Identity      string    `json:"identity"`
	Title         string    `json:"title"`
	Status        string    `json:"status"`
	HolderAlive   bool      `json:"holder_alive"`
	Attempt       int       `json:"attempt"`
	Reason        string    `json:"reason,omitempty"`
	RequestedAt   time.Time `json:"requested_at"`
	ShownAt       time.Time `json:"shown_at,omitzero"`
	EndedAt       time.Time `json:"ended_at,omitzero"`
	Deadline      time.Time `json:"deadline"`
	RememberUntil time.Time `json:"remember_until,omitzero"`
	// Uncollected is true while no caller has received the answer; until
	// CollectUntil the next identical request receives it.
	Uncollected  bool      `json:"uncollected"`
	CollectUntil time.Time `json:"collect_until,omitzero"`
	AgeSeconds   float64   `json:"age_seconds"`
	LeftSeconds  float64   `json:"left_seconds"`
}

func (a *app) entryFor(r store.Record) entry {
	now := a.now()
	e := entry{
		Identity:    r.Identity,
		Title:       r.Title,
		Status:      string(r.Status),
		Attempt:     r.Attempt,
		Reason:      r.Reason,
		RequestedAt: r.RequestedAt,
		ShownAt:     r.ShownAt,
		EndedAt:     r.EndedAt,
		Deadline:    r.Deadline,
		AgeSeconds:  now.Sub(r.RequestedAt).Seconds(),
	}
	if r.Status.Final() {
		e.RememberUntil = r.EndedAt.Add(r.Remember)
		kept := e.RememberUntil
		if r.Uncollected && r.Status != store.Failed {
			e.Uncollected = true
			e.CollectUntil = r.EndedAt.Add(max(r.CollectWithin, r.Remember))
			kept = e.CollectUntil
		}
		e.LeftSeconds = max(0, kept.Sub(now).Seconds())
	} else {
		e.HolderAlive, _ = holderAlive(a.paths.LockFile(r.Identity))
		e.LeftSeconds = max(0, r.Deadline.Sub(now).Seconds())
	}
	return e
}

func newListCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List open requests and remembered answers",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			recs, err := a.store.List()
			if err != nil {
				return err
			}
			sort.Slice(recs, func(i, j int) bool { return recs[i].RequestedAt.Before(recs[j].RequestedAt) })
			entries := make([]entry, 0, len(recs))
			for _, r := range recs {
				entries = append(entries, a.entryFor(r))
			}
			if asJSON {
				return writeJSON(a.stdout, entries)
			}
			return a.printEntries(entries)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of requests")
	return c
}

func (a *app) printEntries(entries []entry) error {
	if len(entries) == 0 {
		_, err := fmt.Fprintln(a.stdout, "no open requests and no remembered answers")
		return err
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "IDENTITY\tSTATUS\tAGE\tLEFT\tTITLE")
	for _, e := range entries {
		status := e.Status
		if !store.Status(e.Status).Final() && !e.HolderAlive {
			status += " (holder gone)"
		}
		if e.Uncollected {
			status += " (uncollected)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Identity[:12], status,
			seconds(e.AgeSeconds), seconds(e.LeftSeconds), e.Title)
	}
	return w.Flush()
}

func seconds(s float64) string {
	return (time.Duration(s) * time.Second).Round(time.Second).String()
}

func newStatusCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status KEY",
		Short: "Show one request; exits with the code collecting it would give",
		Long: `Show one request. KEY is the identity (or a unique prefix of at least 4
characters, as ask-confirm list shows it) or the --key it was asked with.
The exit code is the one running the request again would give now: 0 only
for an approval that is still remembered, or that no caller has collected
yet within its --collect-within; 3 while the dialog is open or when asking
again would show a new dialog. Looking does not collect the answer.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			rec, err := a.resolve(args[0])
			if err != nil {
				return err
			}
			r := a.collectable(rec)
			uncollected := a.entryFor(rec).Uncollected
			if asJSON {
				err = writeJSON(a.stdout, struct {
					Result
					Title       string `json:"title"`
					Uncollected bool   `json:"uncollected"`
				}{r, rec.Title, uncollected})
			} else {
				msg := r.Message
				if uncollected {
					msg += "; " + msgUncollected
				}
				_, err = fmt.Fprintf(a.stdout, "%s  %s  %s\n", rec.Identity[:12], rec.Title, msg)
			}
			if err != nil {
				return err
			}
			return &exitError{r.ExitCode}
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the request as one JSON object")
	return c
}

// collectable returns what running rec's request again would report now,
// by the reuse rules rec was asked with. It collects nothing.
func (a *app) collectable(rec store.Record) Result {
	keep := reuse{remember: rec.Remember, collectWithin: rec.CollectWithin}
	if rec.Status.Final() && !keep.returns(rec, a.now()) {
		return Result{
			Status: StatusPending, ExitCode: ExitPending, Key: rec.Identity, Attempt: rec.Attempt,
			RequestedAt: rec.RequestedAt, ShouldRetry: true,
			Message: fmt.Sprintf(msgStale, rec.Status), RetryReason: msgStaleRetry,
		}
	}
	return fromRecord(rec, rec.Status.Final())
}

func newCancelCommand(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "cancel KEY | --all",
		Short: "Close open dialogs; their requests end cancelled and their callers exit 1",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			recs, err := a.selectRecords(args, all)
			if err != nil {
				return err
			}
			n := 0
			for _, r := range recs {
				if r.Status.Final() {
					if !all {
						fmt.Fprintf(a.stdout, "%s  %s  already %s\n", r.Identity[:12], r.Title, r.Status)
					}
					continue
				}
				if err := a.closeRequest(r, store.Cancelled, a.paths.LockFile(r.Identity)); err != nil {
					return fmt.Errorf("cancelling %s: %w", r.Identity[:12], err)
				}
				fmt.Fprintf(a.stdout, "%s  %s  cancelled\n", r.Identity[:12], r.Title)
				n++
			}
			if all && n == 0 {
				fmt.Fprintln(a.stdout, "no open dialogs")
			}
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "cancel every open request")
	return c
}

func newForgetCommand(a *app) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "forget KEY | --all",
		Short: "Drop remembered answers, so the next request shows a dialog",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			recs, err := a.selectRecords(args, all)
			if err != nil {
				return err
			}
			drop := map[string]bool{}
			for _, r := range recs {
				if !r.Status.Final() {
					// Dropping an open request would let its next caller
					// start a second dialog beside the first.
					fmt.Fprintf(a.stdout, "%s  %s  still open; use ask-confirm cancel\n", r.Identity[:12], r.Title)
					continue
				}
				drop[r.Identity] = true
			}
			n, err := a.store.Delete(func(r store.Record) bool { return drop[r.Identity] && r.Status.Final() })
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "forgot %d answer(s)\n", n)
			return err
		},
	}
	c.Flags().BoolVar(&all, "all", false, "forget every remembered answer")
	return c
}

func newGCCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Remove records past --remember (and, while uncollected, --collect-within) and unused lock files, and compact the store",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			now := a.now()
			n, err := a.store.Delete(func(r store.Record) bool {
				if r.Status.Final() {
					keep := reuse{remember: r.Remember, collectWithin: r.CollectWithin}
					return !keep.returns(r, now)
				}
				// An open request past its deadline whose holder is gone
				// will never be answered.
				alive, err := holderAlive(a.paths.LockFile(r.Identity))
				if err != nil || alive || !now.After(r.Deadline) {
					return false
				}
				platform.KillOrphanedDialog(r.HolderPID)
				return true
			})
			if err != nil {
				return err
			}
			locks, err := a.removeUnusedLocks()
			if err != nil {
				return err
			}
			compacted, err := a.store.Compact(0.5)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %d record(s) and %d lock file(s)", n, locks)
			if compacted {
				fmt.Fprint(a.stdout, "; compacted the store")
			}
			_, err = fmt.Fprintln(a.stdout)
			return err
		},
	}
}

// removeUnusedLocks deletes lock files of identities with no open request.
// It deletes a file only while holding its lock, and platform.TryLock
// checks that the file it locked is still the one at the path, so a caller
// racing with the deletion never ends up holding a lock on a removed file.
func (a *app) removeUnusedLocks() (int, error) {
	entries, err := os.ReadDir(a.paths.Locks)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok {
			continue
		}
		rec, found, err := a.store.Get(id)
		if err != nil {
			return n, err
		}
		if found && !rec.Status.Final() {
			continue
		}
		path := filepath.Join(a.paths.Locks, e.Name())
		l, ok, err := platform.TryLock(path)
		if err != nil || !ok {
			continue
		}
		if os.Remove(path) == nil {
			n++
		}
		l.Release()
	}
	return n, nil
}

func newHistoryCommand(a *app) *cobra.Command {
	var (
		since  time.Duration
		key    string
		asJSON bool
	)
	c := &cobra.Command{
		Use:   "history",
		Short: "Show the audit history: who was asked what, and what came of it",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			events, bad, err := store.ReadEvents(a.paths.History)
			if err != nil {
				return err
			}
			if bad > 0 {
				a.warn(fmt.Errorf("skipped %d unreadable line(s) in %s", bad, a.paths.History))
			}
			keyID := dialog.Request{Key: key}.Identity()
			var shown []store.Event
			for _, e := range events {
				if since > 0 && e.Time.Before(a.now().Add(-since)) {
					continue
				}
				if key != "" && e.Identity != key && e.Identity != keyID &&
					!(len(key) >= minPrefix && strings.HasPrefix(e.Identity, strings.ToLower(key))) {
					continue
				}
				shown = append(shown, e)
			}
			if asJSON {
				if shown == nil {
					shown = []store.Event{}
				}
				return writeJSON(a.stdout, shown)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			for _, e := range shown {
				outcome := e.Outcome
				if e.Reason != "" {
					outcome += " (" + e.Reason + ")"
				}
				id := e.Identity
				if len(id) > 12 {
					id = id[:12]
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format("2006-01-02 15:04:05"), e.Event, id, e.Title, outcome)
			}
			return w.Flush()
		},
	}
	c.Flags().DurationVar(&since, "since", 0, "only events newer than this (e.g. 1h)")
	c.Flags().StringVar(&key, "key", "", "only events of this request: identity, prefix or --key")
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of events")
	return c
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	return enc.Encode(v)
}
