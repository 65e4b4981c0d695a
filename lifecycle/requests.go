package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/store"
)

// What is kept: the requests in the store, as operators and front ends look
// at them and tidy them. Nothing here can approve anything.

// ErrUnknownKey is returned (wrapped) when a key names no stored request,
// or more than one.
var ErrUnknownKey = errors.New("unknown request key")

// minPrefix is the shortest identity prefix accepted, as with git's short
// hashes.
const minPrefix = 4

// matches reports whether key names the request with identity id: the
// identity itself, the --key it was asked with, or a prefix of at least
// minPrefix characters.
func matches(key, keyID, id string) bool {
	return id == key || id == keyID || (len(key) >= minPrefix && strings.HasPrefix(id, strings.ToLower(key)))
}

// Find returns the one stored request that key names: its identity, the
// --key it was asked with, or a unique prefix of its identity. A key that
// names none or several is an error wrapping ErrUnknownKey. That includes
// a --key asked through more than one Channel (a dialog and the terminal,
// say): each way has its own record, perhaps with another question and
// answer, and none of them is the one a caller meant more than the others.
func (e *Engine) Find(key string) (Stored, error) {
	rec, err := e.find(key, false)
	return storedOf(rec), err
}

// FindOpen is Find for a command that acts only on an open request
// (cancel): where key is the --key of several requests, asked other ways
// or of other approvers, of which one alone is open, it names that one,
// since the others have ended and nothing can close them.
func (e *Engine) FindOpen(key string) (Stored, error) {
	rec, err := e.find(key, true)
	return storedOf(rec), err
}

// find is Find, for the engine's own use; open is FindOpen's rule.
func (e *Engine) find(key string, open bool) (store.Record, error) {
	if err := e.checkPaths(); err != nil {
		return store.Record{}, err
	}
	recs, err := e.store.List()
	if err != nil {
		return store.Record{}, err
	}
	keyID := dialog.Request{Key: key}.Identity()
	var keyed, found []store.Record
	for _, r := range recs {
		switch {
		case r.Identity == key:
			return r, nil
		case r.Identity == keyID || r.Identity == keyedVia(key, r.Channel) || len(r.Approvers) > 0 && keyOf(r) == key:
			// A request of several approvers has them in its identity,
			// --key or not: the record's request says its key.
			keyed = append(keyed, r)
		case matches(key, keyID, r.Identity):
			found = append(found, r)
		}
	}
	if open && len(keyed) > 1 {
		var opened []store.Record
		for _, r := range keyed {
			if !r.Status.Final() {
				opened = append(opened, r)
			}
		}
		if len(opened) == 1 {
			keyed = opened
		}
	}
	if len(keyed) > 1 {
		return store.Record{}, manyKeyed(key, keyed)
	}
	if len(keyed) == 1 && len(found) > 0 {
		return store.Record{}, ambiguousKey(key, []string{keyed[0].Identity}, identities(found))
	}
	switch {
	case len(keyed) == 1:
		return keyed[0], nil
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && key != "" && len(key) < minPrefix && isHex(key):
		return store.Record{}, fmt.Errorf("%w: "+msgTooShort, ErrUnknownKey, key, minPrefix)
	case len(found) == 0:
		return store.Record{}, fmt.Errorf("%w: "+msgNoMatch, ErrUnknownKey, key)
	default:
		return store.Record{}, fmt.Errorf("%w: "+msgAmbiguous, ErrUnknownKey, key, len(found))
	}
}

// manyKeyed is the error of key, the --key of each of recs: requests
// asked other ways, or of other approvers, each its own with its own
// question and answer, none of which a caller meant more than the others.
// It names each by its identity, with what tells it apart (its way, its
// approvers) and its status, and says how to give one.
func manyKeyed(key string, recs []store.Record) error {
	recs = slices.Clone(recs)
	sort.Slice(recs, func(i, j int) bool { return recs[i].Identity < recs[j].Identity })
	each := make([]string, len(recs))
	for i, r := range recs {
		what := WayOf(r.Channel, r.Phone)
		if len(r.Approvers) > 0 {
			what += fmt.Sprintf(msgKeyedApprovers, dialog.Names(r.Approvers), r.Approvals)
		}
		each[i] = fmt.Sprintf(msgKeyedOne, dialog.ShortIdentity(r.Identity), what, r.Status)
	}
	return &KeyError{fmt.Sprintf(msgKeyMany, key, len(recs), strings.Join(each, "; ")), fmt.Sprintf(hintKeyMany, dialog.ShortIdentity(recs[0].Identity))}
}

// isHex reports whether s could begin an identity: hexadecimal digits.
func isHex(s string) bool {
	return strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// KeyError is the error, wrapping ErrUnknownKey, of a key that names
// several requests in ways a person must choose between: the key is
// known, but names no one request. Its Hint says how to name each.
type KeyError struct {
	msg  string
	hint string
}

func (e *KeyError) Error() string { return e.msg }
func (e *KeyError) Unwrap() error { return ErrUnknownKey }

// Hint says how to name each request the key could mean.
func (e *KeyError) Hint() string { return e.hint }

// ambiguousKey is the error of key, which is the --key of the requests
// keyed and the start of the identities of the requests prefixed: which
// one a person meant cannot be told, so neither is picked.
func ambiguousKey(key string, keyed, prefixed []string) error {
	return &KeyError{
		fmt.Sprintf(msgKeyAndPrefix, key, shortList(keyed), shortList(prefixed)),
		fmt.Sprintf(hintKeyAndPrefix, keyed[0], prefixed[0]),
	}
}

func identities(recs []store.Record) []string {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.Identity
	}
	return ids
}

func shortList(ids []string) string {
	short := make([]string, len(ids))
	for i, id := range ids {
		short[i] = dialog.ShortIdentity(id)
	}
	sort.Strings(short)
	return strings.Join(short, ", ")
}

// WayOf names how a request is asked, from its record's (or an event's)
// channel and phone: the Channel's name, or "dialog" for none; "phone"
// for the phone alone; and "+phone" after the first where the phone asks
// beside it ("dialog+phone").
func WayOf(channel, phone string) string {
	way := channel
	switch {
	case phone == phoneOnly:
		return wayPhone
	case way == "":
		way = wayDialog
	}
	if phone == phoneAlso {
		way += "+" + wayPhone
	}
	return way
}

// keyedVia is the identity of a request asked with --key key through the
// Channel named channel, which the identity includes (dialog.Request.Via);
// "" when channel is empty, as keyID covers a dialog's.
func keyedVia(key, channel string) string {
	if channel == "" || key == "" {
		return ""
	}
	return dialog.Request{Key: key, Via: channel}.Identity()
}

// keyedApprovers reports whether ev is an event of a request of several
// approvers asked with --key key (by dialog, or through ev's channel):
// its approvers are part of its identity, and its events name them.
func keyedApprovers(key string, ev store.Event) bool {
	if len(ev.Approvers) == 0 || key == "" {
		return false
	}
	r := dialog.Request{Key: key, Approvers: ev.Approvers, Approvals: ev.Approvals}
	if r.Identity() == ev.Identity {
		return true
	}
	r.Via = ev.Channel
	return r.Via != "" && r.Identity() == ev.Identity
}

// All returns every stored request.
func (e *Engine) All() ([]Stored, error) {
	if err := e.checkPaths(); err != nil {
		return nil, err
	}
	recs, err := e.store.List()
	out := make([]Stored, len(recs))
	for i, r := range recs {
		out[i] = storedOf(r)
	}
	return out, err
}

// Stored is a stored request as a front end sees it: what Find and All
// return, and what StatusOf, EntryOf and Cancel act on. Its record stays
// the engine's.
type Stored struct {
	Identity string
	Title    string
	// Status is where the request is: requested, or how it ended
	// (approved, denied, cancelled and the rest of Result's statuses).
	Status string
	// Final is true once the request has ended.
	Final bool
	// Kind is what it asks: dialog.Confirm, dialog.Choose or dialog.Input.
	Kind string
	rec  store.Record
}

func storedOf(rec store.Record) Stored {
	return Stored{Identity: rec.Identity, Title: rec.Title, Status: string(rec.Status), Final: rec.Status.Final(), Kind: rec.Kind, rec: rec}
}

// keeping is the reuse rule rec was asked with.
func keeping(rec store.Record) reuse {
	return reuse{remember: rec.Remember, collectWithin: rec.CollectWithin}
}

// StatusOf returns what asking s's request again would report now, by
// the reuse rules it was asked with (its --remember and --collect-within:
// a run with other values may return what this says it would not, or the
// other way round). It collects nothing. An ended request whose outcome
// a run would not return (decide would ask again) is StatusStale, exit 3.
func (e *Engine) StatusOf(s Stored) Result { return e.statusOf(s.rec) }

func (e *Engine) statusOf(rec store.Record) Result {
	return resultOf(rec, e.lookedAt(rec))
}

// lookedAt is what an operator's look at rec (status, list) finds beside
// the record: the time, whether a holder asks it, and the reuse rules it
// was asked with, as a new run of it would be judged.
func (e *Engine) lookedAt(rec store.Record) facts {
	f := facts{now: e.now(), keep: keeping(rec)}
	if !rec.Status.Final() {
		f.alive, _ = platform.LockHeld(e.paths.LockFile(rec.Identity))
	}
	return f
}

// Entry is one stored request as list and status show it.
type Entry struct {
	Identity string `json:"identity"`
	// Key is the --key the request was asked with (a hook's is its host,
	// tool and a hash of the call), which status, cancel and forget take.
	Key   string `json:"key,omitempty"`
	Title string `json:"title"`
	// Channel names how the request is asked, as list's WAY column does
	// (WayOf): "dialog", "terminal", "elicitation" or "phone", with
	// "+phone" where the phone asks beside. Phone is how the phone takes
	// part: "also", "only", or absent for not at all.
	Channel string `json:"channel"`
	Phone   string `json:"phone,omitempty"`
	// Status is the status its record holds: requested or shown while
	// open, or how it ended. Outcome, ExitCode and Message are what status
	// says of it now (stateOf): its status word (pending, stale, or how it
	// ended), exit code and sentence; State and Note its state, and Until
	// and Window what bounds that.
	Status        string    `json:"status"`
	Outcome       string    `json:"outcome"`
	ExitCode      ExitCode  `json:"exit_code"`
	Message       string    `json:"message"`
	State         string    `json:"state"`
	Note          string    `json:"note,omitempty"`
	Until         time.Time `json:"until,omitzero"`
	Window        string    `json:"window,omitempty"`
	HolderAlive   bool      `json:"holder_alive"`
	Attempt       int       `json:"attempt"`
	Reason        string    `json:"reason,omitempty"`
	RequestedAt   time.Time `json:"requested_at"`
	ShownAt       time.Time `json:"shown_at,omitzero"`
	EndedAt       time.Time `json:"ended_at,omitzero"`
	Deadline      time.Time `json:"deadline"`
	RememberUntil time.Time `json:"remember_until,omitzero"`
	// ApprovedUntil is when an approval given with the approve-for button
	// stops being returned.
	ApprovedUntil time.Time `json:"approved_until,omitzero"`
	// Uncollected is true while no caller has received the answer; until
	// CollectUntil the next identical request receives it.
	Uncollected  bool      `json:"uncollected"`
	CollectUntil time.Time `json:"collect_until,omitzero"`
	AgeSeconds   float64   `json:"age_seconds"`
	LeftSeconds  float64   `json:"left_seconds"`
	// Approvers, Approvals, ApprovalsNeeded and Votes are a request of
	// several approvers' (Result's).
	Approvers       []string `json:"approvers,omitempty"`
	Approvals       *int     `json:"approvals,omitempty"`
	ApprovalsNeeded int      `json:"approvals_needed,omitempty"`
	Votes           []Vote   `json:"votes,omitempty"`
}

// Final reports whether the entry's request has ended.
func (en Entry) Final() bool { return store.Status(en.Status).Final() }

// PathProblem says why the store would refuse the file or directory fi
// (isDir) as its own, or "" when it would take it: the store's rule, for
// a front end that checks the files before the store opens them (doctor).
func PathProblem(fi os.FileInfo, isDir bool) string { return store.PathProblem(fi, isDir) }

// EntryOf describes s now: for an open request whether its holder lives
// and how long its dialog stays up; for an ended one how long its answer is
// kept.
func (e *Engine) EntryOf(s Stored) Entry { return e.entryOf(s.rec) }

func (e *Engine) entryOf(r store.Record) Entry {
	f := e.lookedAt(r)
	now := f.now
	st := stateOf(r, f)
	en := Entry{
		Identity:    r.Identity,
		Key:         keyOf(r),
		Title:       r.Title,
		Channel:     st.Way,
		Phone:       r.Phone,
		Status:      string(r.Status),
		Outcome:     st.Status,
		State:       st.Name,
		Note:        st.Note,
		ExitCode:    st.ExitCode,
		Message:     st.result(r, now).Message,
		Until:       st.Until,
		Window:      st.Window,
		HolderAlive: f.alive,
		Attempt:     r.Attempt,
		Reason:      OneLine(r.Reason),
		RequestedAt: r.RequestedAt,
		ShownAt:     r.ShownAt,
		EndedAt:     r.EndedAt,
		Deadline:    r.Deadline,
		AgeSeconds:  now.Sub(r.RequestedAt).Seconds(),
	}
	if len(r.Approvers) > 0 {
		var res Result
		withVotes(&res, r)
		en.Approvers, en.Approvals, en.ApprovalsNeeded, en.Votes = res.Approvers, res.Approvals, res.ApprovalsNeeded, res.Votes
	}
	if r.Status.Final() {
		en.RememberUntil = r.EndedAt.Add(r.Remember)
		if r.ApprovedFor > 0 && r.Status == store.Approved {
			en.ApprovedUntil = r.EndedAt.Add(r.ApprovedFor)
		}
		if r.Uncollected && r.Status.Answer() {
			en.Uncollected = true
			en.CollectUntil = r.EndedAt.Add(keeping(r).collectWithin)
		}
	}
	// What is left is of the state's window: the dialog's --timeout
	// while a holder asks, the window that keeps an outcome; nothing once
	// nothing asks or keeps it.
	if st.Name == StateOpen || st.Name == StateReaching || st.Name == StateKept {
		en.LeftSeconds = max(0, st.Until.Sub(now).Seconds())
	}
	return en
}

// keyOf is the --key r's request was asked with, read from the request
// it keeps; "" for none.
func keyOf(r store.Record) string {
	var req struct {
		Key string `json:"key"`
	}
	if json.Unmarshal(r.Request, &req) != nil {
		return ""
	}
	return req.Key
}

// Entries describes every stored request, oldest first.
func (e *Engine) Entries() ([]Entry, error) {
	if err := e.checkPaths(); err != nil {
		return nil, err
	}
	recs, err := e.store.List()
	if err != nil {
		return nil, err
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].RequestedAt.Before(recs[j].RequestedAt) })
	entries := make([]Entry, 0, len(recs))
	for _, r := range recs {
		entries = append(entries, e.entryOf(r))
	}
	return entries, nil
}

// CancelOutcome says what Cancel did.
type CancelOutcome int

const (
	// CancelledNow: the request was open and now ends cancelled.
	CancelledNow CancelOutcome = iota
	// AlreadyEnded: the request had ended before; nothing changed.
	AlreadyEnded
	// EndedOtherwise: the request ended some other way (the person
	// answered, or a newer request replaced it) before the cancel landed.
	EndedOtherwise
)

// Cancel closes the open dialog of s's request: the request can only end
// as a denial, and its waiters exit 1. It returns the request's outcome
// afterwards; for AlreadyEnded that is what asking again would give. A
// failure to cancel is a Result with ExitInternal, never an answer.
func (e *Engine) Cancel(s Stored) (Result, CancelOutcome) { return e.cancel(s.rec) }

func (e *Engine) cancel(rec store.Record) (Result, CancelOutcome) {
	if rec.Status.Final() {
		return e.statusOf(rec), AlreadyEnded
	}
	if err := e.closeRequest(rec, store.Cancelled); err != nil {
		return ErrorResult(rec.Identity, ExitInternal, fmt.Errorf(msgCancelFailed, dialog.ShortIdentity(rec.Identity), err)), CancelledNow
	}
	now, found, err := e.store.Get(rec.Identity)
	switch {
	case err != nil:
		return e.StoreError(rec.Identity, err), CancelledNow
	case !found:
		return ErrorResult(rec.Identity, ExitInternal, errors.New(msgCancelGone)), CancelledNow
	case now.Status != store.Cancelled || now.ContentHash != rec.ContentHash:
		return resultOf(now, facts{now: e.now(), own: true}), EndedOtherwise
	}
	return resultOf(now, facts{now: e.now(), own: true}), CancelledNow
}

// Forget drops the ended requests among ids, so the next identical request
// shows a dialog, and reports how many it dropped. Open requests are left
// alone: dropping one would let its next caller start a second dialog
// beside the first.
func (e *Engine) Forget(ids []string) (int, error) {
	if err := e.checkPaths(); err != nil {
		return 0, err
	}
	drop := map[string]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	return e.store.Delete(func(r store.Record) bool { return drop[r.Identity] && r.Status.Final() })
}

// GC removes ended requests whose answers are no longer kept, open ones
// past their deadline whose holder is gone (closing their orphaned
// dialogs), and lock files of identities with no open request; then it
// compacts the store when more than half of it is free.
func (e *Engine) GC() (records, locks int, compacted bool, err error) {
	if err := e.checkPaths(); err != nil {
		return 0, 0, false, err
	}
	now := e.now()
	records, err = e.store.Delete(func(r store.Record) bool {
		if r.Status.Final() {
			return !keeping(r).returns(r, now)
		}
		// An open request past its deadline whose holder is gone will
		// never be answered.
		alive, err := platform.LockHeld(e.paths.LockFile(r.Identity))
		if err != nil || alive || !now.After(r.Deadline) {
			return false
		}
		platform.KillOrphanedDialog(r.HolderPID)
		return true
	})
	if err != nil {
		return 0, 0, false, err
	}
	if locks, err = e.removeUnusedLocks(); err != nil {
		return records, locks, false, err
	}
	compacted, err = e.store.Compact(0.5)
	return records, locks, compacted, err
}

// removeUnusedLocks deletes lock and watch files of identities with no open
// request.
// It deletes a file only while holding its lock, and platform.TryLock
// checks that the file it locked is still the one at the path, so a caller
// racing with the deletion never ends up holding a lock on a removed file.
func (e *Engine) removeUnusedLocks() (int, error) {
	entries, err := os.ReadDir(e.paths.Locks)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range entries {
		id, ok := strings.CutSuffix(d.Name(), ".lock")
		if !ok {
			id, ok = strings.CutSuffix(d.Name(), ".watch")
		}
		if !ok {
			continue
		}
		rec, found, err := e.store.Get(id)
		if err != nil {
			return n, err
		}
		if found && !rec.Status.Final() {
			continue
		}
		path := filepath.Join(e.paths.Locks, d.Name())
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

// Events returns the audit history newer than since (0: all of it), of the
// request key names (its identity, --key or an identity prefix; "": every
// request), oldest first, and how many unreadable lines were skipped.
func (e *Engine) Events(since time.Duration, key string) (events []store.Event, bad int, err error) {
	if err := e.checkPaths(); err != nil {
		return nil, 0, err
	}
	all, bad, err := store.ReadEvents(e.paths.History)
	if err != nil {
		return nil, 0, err
	}
	keyID := dialog.Request{Key: key}.Identity()
	keyed := map[string]bool{}
	if key != "" {
		// A key that is both a --key and the start of another request's
		// identity names neither, as Find has it.
		prefixed := map[string]bool{}
		for _, ev := range all {
			switch {
			case ev.Identity == key:
			case ev.Identity == keyID || ev.Identity == keyedVia(key, ev.Channel) || keyedApprovers(key, ev):
				keyed[ev.Identity] = true
			case matches(key, keyID, ev.Identity):
				prefixed[ev.Identity] = true
			}
		}
		if len(keyed) > 0 && len(prefixed) > 0 {
			return nil, 0, ambiguousKey(key, slices.Sorted(maps.Keys(keyed)), slices.Sorted(maps.Keys(prefixed)))
		}
	}
	events = []store.Event{}
	for _, ev := range all {
		if since > 0 && ev.Time.Before(e.now().Add(-since)) {
			continue
		}
		if key != "" && !matches(key, keyID, ev.Identity) && !keyed[ev.Identity] {
			continue
		}
		// Written before reasons were kept to one line, a dialog
		// program's stderr would split the history's row.
		ev.Reason = OneLine(ev.Reason)
		events = append(events, ev)
	}
	return events, bad, nil
}
