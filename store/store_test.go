package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adrg/xdg"
)

// newTestStore returns a store whose file does not exist yet, in a directory
// that does not exist yet either, and the warnings it reports.
func newTestStore(t *testing.T) (*Store, *warnings) {
	t.Helper()
	s := New(filepath.Join(t.TempDir(), "cache", "answers.db"))
	w := &warnings{}
	s.Warn = w.add
	return s, w
}

type warnings struct {
	mu   sync.Mutex
	errs []error
}

func (w *warnings) add(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, err)
}

func (w *warnings) list() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]error(nil), w.errs...)
}

// put writes a record for id through Update and returns what was written.
func put(t testing.TB, s *Store, id string, edit func(r *Record)) Record {
	t.Helper()
	rec, err := s.Update(id, func(r *Record, _ bool) (bool, error) {
		edit(r)
		return true, nil
	})
	if err != nil {
		t.Fatalf("Update(%q): %v", id, err)
	}
	return rec
}

func mustGet(t *testing.T, s *Store, id string) (Record, bool) {
	t.Helper()
	rec, found, err := s.Get(id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return rec, found
}

func checkPerm(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return // Windows has no Unix permission bits to check.
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %#o, want %#o", path, got, want)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestGetMissingFile(t *testing.T) {
	s, w := newTestStore(t)
	rec, found, err := s.Get("id")
	if err != nil || found {
		t.Fatalf("Get on a missing store = (%+v, %v, %v), want not found and no error", rec, found, err)
	}
	if !reflect.DeepEqual(rec, Record{}) {
		t.Errorf("Get on a missing store returned a non-zero record %+v", rec)
	}
	recs, err := s.List()
	if err != nil || len(recs) != 0 {
		t.Fatalf("List on a missing store = (%v, %v), want nothing", recs, err)
	}
	// Reading must not create anything: not the file, not its directory.
	if _, err := os.Lstat(filepath.Dir(s.Path())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading created the store directory (Lstat: %v)", err)
	}
	if len(w.list()) != 0 {
		t.Errorf("warnings on a missing store: %v", w.list())
	}
}

func TestGetMissingRecord(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "present", func(r *Record) { r.Status = Shown })
	if rec, found := mustGet(t, s, "absent"); found {
		t.Errorf("Get(absent) found %+v", rec)
	}
	if _, found := mustGet(t, s, "present"); !found {
		t.Errorf("Get(present) did not find the record")
	}
}

func TestUpdateCreatesPrivateFile(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Requested })
	checkPerm(t, filepath.Dir(s.Path()), 0o700)
	checkPerm(t, s.Path(), 0o600)
	fi, err := os.Lstat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		t.Errorf("store is %v, want a regular file", fi.Mode())
	}
	// The file is built under a temporary name; nothing of that may remain.
	if names := dirNames(t, filepath.Dir(s.Path())); !reflect.DeepEqual(names, []string{"answers.db"}) {
		t.Errorf("store directory holds %q, want only answers.db", names)
	}
}

func TestUpdateRoundTrip(t *testing.T) {
	s, _ := newTestStore(t)
	at := time.Date(2025, 11, 22, 13, 19, 0, 123456789, time.UTC)
	want := Record{
		Identity:      "id",
		ContentHash:   strings.Repeat("c", 64),
		Title:         "Deploy ✓",
		Request:       []byte(`{"message":"Ship?"}`),
		Status:        Approved,
		Reason:        "clicked",
		Attempt:       2,
		HolderPID:     4242,
		RequestedAt:   at,
		ShownAt:       at.Add(time.Second),
		EndedAt:       at.Add(2 * time.Second),
		Deadline:      at.Add(5 * time.Minute),
		Remember:      time.Minute,
		MessageHash:   strings.Repeat("m", 64),
		CallerPID:     99,
		CallerDir:     "/home/user/repo",
		Version:       1,
		CancelRequest: Cancelled,
	}
	var sawFound bool
	got, err := s.Update("id", func(r *Record, found bool) (bool, error) {
		sawFound = found
		v := r.Version
		*r = want
		r.Version = v
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sawFound {
		t.Errorf("fn was told found = true for a new record")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Update returned\n%+v\nwant\n%+v", got, want)
	}
	read, found := mustGet(t, s, "id")
	if !found || !reflect.DeepEqual(read, want) {
		t.Errorf("Get = (%+v, %v), want\n%+v", read, found, want)
	}

	// The next Update sees what the last one wrote.
	_, err = s.Update("id", func(r *Record, found bool) (bool, error) {
		if !found {
			t.Errorf("fn was told found = false for an existing record")
		}
		if !reflect.DeepEqual(*r, want) {
			t.Errorf("fn got\n%+v\nwant\n%+v", *r, want)
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUpdateSetsIdentityAndVersion(t *testing.T) {
	s, _ := newTestStore(t)
	for want := uint64(1); want <= 5; want++ {
		rec := put(t, s, "id", func(r *Record) {
			r.Identity = "something else"
			r.Attempt++
		})
		if rec.Version != want || rec.Identity != "id" {
			t.Fatalf("write %d: Update returned Version %d Identity %q, want %d %q", want, rec.Version, rec.Identity, want, "id")
		}
		got, _ := mustGet(t, s, "id")
		if got.Version != want || got.Identity != "id" || got.Attempt != int(want) {
			t.Fatalf("write %d: stored Version %d Identity %q Attempt %d", want, got.Version, got.Identity, got.Attempt)
		}
	}
	// Versions are per record.
	if rec := put(t, s, "other", func(r *Record) {}); rec.Version != 1 {
		t.Errorf("first write of another record has Version %d, want 1", rec.Version)
	}
}

func TestUpdateWithoutWrite(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Shown })

	got, err := s.Update("id", func(r *Record, found bool) (bool, error) {
		r.Status = Approved
		r.Reason = "not written"
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Update returns the record as fn left it, but nothing was stored.
	if got.Status != Approved || got.Version != 1 {
		t.Errorf("Update returned Status %q Version %d, want fn's %q and the unchanged version 1", got.Status, got.Version, Approved)
	}
	stored, _ := mustGet(t, s, "id")
	if stored.Status != Shown || stored.Reason != "" || stored.Version != 1 {
		t.Errorf("write=false changed the stored record to %+v", stored)
	}

	if _, err := s.Update("new", func(r *Record, found bool) (bool, error) {
		r.Status = Approved
		return false, nil
	}); err != nil {
		t.Fatal(err)
	}
	if rec, found := mustGet(t, s, "new"); found {
		t.Errorf("write=false created a record: %+v", rec)
	}
}

func TestUpdateFnErrorAborts(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Shown })

	boom := errors.New("boom")
	_, err := s.Update("id", func(r *Record, found bool) (bool, error) {
		r.Status = Approved
		return true, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	stored, _ := mustGet(t, s, "id")
	if stored.Status != Shown || stored.Version != 1 {
		t.Errorf("a failed fn changed the record to %+v", stored)
	}

	if _, err := s.Update("new", func(r *Record, found bool) (bool, error) { return true, boom }); !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	if rec, found := mustGet(t, s, "new"); found {
		t.Errorf("a failed fn created a record: %+v", rec)
	}
}

func TestDelete(t *testing.T) {
	s, _ := newTestStore(t)
	statuses := map[string]Status{"a": Approved, "b": Denied, "c": Shown, "d": Denied, "e": Requested}
	for id, st := range statuses {
		put(t, s, id, func(r *Record) { r.Status = st })
	}
	var seen []string
	n, err := s.Delete(func(r Record) bool {
		seen = append(seen, r.Identity)
		return r.Status == Denied
	})
	if err != nil || n != 2 {
		t.Fatalf("Delete = (%d, %v), want (2, nil)", n, err)
	}
	if len(seen) != len(statuses) {
		t.Errorf("drop saw %d records, want %d", len(seen), len(statuses))
	}
	recs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.Identity)
	}
	if !reflect.DeepEqual(ids, []string{"a", "c", "e"}) {
		t.Errorf("after Delete, List has %q, want [a c e]", ids)
	}

	n, err = s.Delete(func(Record) bool { return false })
	if err != nil || n != 0 {
		t.Errorf("Delete(nothing) = (%d, %v), want (0, nil)", n, err)
	}
	n, err = s.Delete(func(Record) bool { return true })
	if err != nil || n != 3 {
		t.Errorf("Delete(everything) = (%d, %v), want (3, nil)", n, err)
	}
	if recs, _ := s.List(); len(recs) != 0 {
		t.Errorf("after deleting everything, List has %d records", len(recs))
	}
}

func TestListIsInIdentityOrder(t *testing.T) {
	s, _ := newTestStore(t)
	for _, id := range []string{"c", "a", "b"} {
		put(t, s, id, func(r *Record) { r.Title = "title " + id })
	}
	recs, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Identity+"="+r.Title)
	}
	if want := []string{"a=title a", "b=title b", "c=title c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}

func TestStatusFinal(t *testing.T) {
	tests := []struct {
		s     Status
		final bool
	}{
		{Requested, false},
		{Shown, false},
		{Approved, true},
		{Denied, true},
		{Expired, true},
		{Cancelled, true},
		{Superseded, true},
		{Failed, true},
		{"", false},
		{"APPROVED", false},
		{"pending", false},
	}
	for _, tt := range tests {
		if got := tt.s.Final(); got != tt.final {
			t.Errorf("Status(%q).Final() = %v, want %v", tt.s, got, tt.final)
		}
	}
}

func TestFreshAt(t *testing.T) {
	now := time.Date(2025, 11, 22, 12, 0, 0, 0, time.UTC)
	const remember = time.Minute
	tests := []struct {
		name   string
		status Status
		ended  time.Time
		rem    time.Duration
		fresh  bool
	}{
		{"approved just now", Approved, now, remember, true},
		{"approved within the window", Approved, now.Add(-30 * time.Second), remember, true},
		{"approved exactly at the window's end", Approved, now.Add(-remember), remember, true},
		{"approved a nanosecond too long ago", Approved, now.Add(-remember - time.Nanosecond), remember, false},
		{"approved an hour ago", Approved, now.Add(-time.Hour), remember, false},
		{"denied within the window", Denied, now.Add(-time.Second), remember, true},
		{"expired within the window", Expired, now.Add(-time.Second), remember, true},
		{"cancelled within the window", Cancelled, now.Add(-time.Second), remember, true},
		{"superseded within the window", Superseded, now.Add(-time.Second), remember, true},
		{"failed within the window", Failed, now.Add(-time.Second), remember, true},
		{"final without an end time", Approved, time.Time{}, remember, false},
		{"final without an end time and a huge window", Approved, time.Time{}, 1<<63 - 1, false},
		{"zero remember, ended now", Approved, now, 0, true},
		{"zero remember, ended before", Approved, now.Add(-time.Nanosecond), 0, false},
		{"requested, never fresh", Requested, now, remember, false},
		{"shown, never fresh", Shown, now.Add(-time.Second), remember, false},
		{"unknown status, never fresh", "bogus", now, remember, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Record{Status: tt.status, EndedAt: tt.ended}
			if got := r.FreshAt(now, tt.rem); got != tt.fresh {
				t.Errorf("FreshAt = %v, want %v", got, tt.fresh)
			}
		})
	}
}

// garbage returns n reproducible pseudo-random bytes.
func garbage(n int) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// writeStoreFile puts content at s's path, creating its directory as the
// store would.
func writeStoreFile(t *testing.T, s *Store, content []byte) {
	t.Helper()
	if err := EnsureDir(filepath.Dir(s.Path())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), content, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkSetAside checks that the store file is gone and that exactly one file
// named answers.db.corrupt-* holds the old content.
func checkSetAside(t *testing.T, s *Store, content []byte) {
	t.Helper()
	dir := filepath.Dir(s.Path())
	var aside []string
	for _, n := range dirNames(t, dir) {
		if strings.HasPrefix(n, filepath.Base(s.Path())+".corrupt-") {
			aside = append(aside, n)
		}
	}
	if len(aside) != 1 {
		t.Fatalf("directory holds %q, want exactly one answers.db.corrupt-* file", dirNames(t, dir))
	}
	kept, err := os.ReadFile(filepath.Join(dir, aside[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, content) {
		t.Errorf("the set-aside file holds %d bytes, not the %d corrupt bytes", len(kept), len(content))
	}
}

func checkCorruptWarning(t *testing.T, w *warnings) {
	t.Helper()
	errs := w.list()
	if len(errs) == 0 {
		t.Fatalf("no warning about the corrupt store")
	}
	for _, err := range errs {
		if !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("warning %q does not say the store was corrupt", err)
		}
	}
}

var corruptFiles = []struct {
	name    string
	content []byte
}{
	{"100 KiB of random bytes", garbage(100 << 10)},
	{"10 bytes", []byte("not a db!\n")},
	{"zero length", []byte{}},
	{"one page of zeros", make([]byte, 4096)},
	{"text", []byte(strings.Repeat("{\"status\":\"approved\"}\n", 1000))},
}

func TestCorruptStoreIsSetAsideByGet(t *testing.T) {
	for _, c := range corruptFiles {
		t.Run(c.name, func(t *testing.T) {
			s, w := newTestStore(t)
			writeStoreFile(t, s, c.content)

			rec, found, err := s.Get("id")
			if err != nil || found {
				t.Fatalf("Get on a corrupt store = (%+v, %v, %v), want not found and no error", rec, found, err)
			}
			checkCorruptWarning(t, w)
			checkSetAside(t, s, c.content)
			if _, err := os.Lstat(s.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the corrupt file is still at the store path (Lstat: %v)", err)
			}

			// The next write starts a fresh store.
			put(t, s, "id", func(r *Record) { r.Status = Shown })
			if got, found := mustGet(t, s, "id"); !found || got.Status != Shown || got.Version != 1 {
				t.Errorf("after the rebuild, Get = (%+v, %v)", got, found)
			}
			checkPerm(t, s.Path(), 0o600)
			checkSetAside(t, s, c.content)
		})
	}
}

func TestCorruptStoreIsSetAsideByUpdate(t *testing.T) {
	for _, c := range corruptFiles {
		t.Run(c.name, func(t *testing.T) {
			s, w := newTestStore(t)
			writeStoreFile(t, s, c.content)

			var calls int
			rec, err := s.Update("id", func(r *Record, found bool) (bool, error) {
				calls++
				if found {
					t.Errorf("fn was told found = true in a rebuilt store")
				}
				r.Status = Requested
				return true, nil
			})
			if err != nil {
				t.Fatalf("Update on a corrupt store: %v", err)
			}
			if calls != 1 || rec.Version != 1 {
				t.Errorf("fn ran %d times, Version %d; want 1 and 1", calls, rec.Version)
			}
			checkCorruptWarning(t, w)
			checkSetAside(t, s, c.content)
			if got, found := mustGet(t, s, "id"); !found || got.Status != Requested {
				t.Errorf("after the rebuild, Get = (%+v, %v)", got, found)
			}
		})
	}
}

// writeRaw stores value under id with bbolt directly, bypassing Record
// encoding.
func writeRaw(t *testing.T, path, id string, value []byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucket)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), value)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// undecodable records: not a known format at all, JSON whose fields have
// the wrong types, and fresh approvals in the binary form cut short or with
// a byte too many. All but the first decode partly; none of it may leak out.
var undecodable = map[string][]byte{
	"not JSON": []byte("\x00\x01garbage"),
	"wrong field type": []byte(fmt.Sprintf(`{"status":"approved","ended_at":%q,"content_hash":"h","attempt":"one"}`,
		time.Now().UTC().Format(time.RFC3339Nano))),
	"binary cut short":            freshApproval()[:len(freshApproval())-1],
	"binary with a byte too many": append(freshApproval(), 0),
}

func freshApproval() []byte {
	b, err := encodeRecord(&Record{Identity: "bad", Status: Approved, EndedAt: time.Now(), Remember: time.Hour})
	if err != nil {
		panic(err)
	}
	return b
}

func TestUndecodableRecordIsNeverReturned(t *testing.T) {
	for name, value := range undecodable {
		t.Run(name, func(t *testing.T) {
			s, w := newTestStore(t)
			put(t, s, "good", func(r *Record) { r.Status = Approved })
			writeRaw(t, s.Path(), "bad", value)
			content := readFile(t, s.Path())

			rec, found, err := s.Get("bad")
			if err != nil || found || !reflect.DeepEqual(rec, Record{}) {
				t.Fatalf("Get(bad) = (%+v, %v, %v), want a zero record, not found, no error", rec, found, err)
			}
			checkCorruptWarning(t, w)
			checkSetAside(t, s, content)
		})
	}
}

func TestUndecodableRecordEmptiesList(t *testing.T) {
	for name, value := range undecodable {
		t.Run(name, func(t *testing.T) {
			s, w := newTestStore(t)
			// "a" sorts before "bad", so it is read before the bad record.
			put(t, s, "a", func(r *Record) { r.Status = Approved })
			writeRaw(t, s.Path(), "bad", value)
			content := readFile(t, s.Path())

			recs, err := s.List()
			if err != nil || len(recs) != 0 {
				t.Fatalf("List = (%+v, %v), want nothing from a store that was set aside", recs, err)
			}
			checkCorruptWarning(t, w)
			checkSetAside(t, s, content)
		})
	}
}

func TestUndecodableRecordIsRebuiltByUpdate(t *testing.T) {
	s, w := newTestStore(t)
	put(t, s, "good", func(r *Record) { r.Status = Approved })
	writeRaw(t, s.Path(), "bad", []byte("{"))
	content := readFile(t, s.Path())

	var calls int
	rec, err := s.Update("bad", func(r *Record, found bool) (bool, error) {
		calls++
		if found || r.Status != "" {
			t.Errorf("fn got (%+v, found=%v) from an undecodable record", *r, found)
		}
		r.Status = Requested
		return true, nil
	})
	if err != nil || calls != 1 || rec.Version != 1 {
		t.Fatalf("Update = (%+v, %v) after %d calls, want Version 1 after 1 call", rec, err, calls)
	}
	checkCorruptWarning(t, w)
	checkSetAside(t, s, content)
	if _, found := mustGet(t, s, "good"); found {
		t.Errorf("a record of the set-aside store is still there")
	}
}

// When a corrupt file cannot be renamed, Update must fail rather than retry
// forever. The set-aside name is made too long for the file system.
func TestCorruptStoreThatCannotBeSetAside(t *testing.T) {
	dir := t.TempDir()
	s := New(filepath.Join(dir, strings.Repeat("a", 240)+".db"))
	w := &warnings{}
	s.Warn = w.add
	content := []byte("not a db!\n")
	writeStoreFile(t, s, content)

	done := make(chan error, 1)
	go func() {
		_, err := s.Update("id", func(r *Record, found bool) (bool, error) { return true, nil })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("Update = %v, want ErrCorrupt", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Update on a corrupt store that cannot be set aside did not return")
	}
	if len(w.list()) == 0 || !strings.Contains(w.list()[0].Error(), "could not be set aside") {
		t.Errorf("warnings = %v, want one saying the store could not be set aside", w.list())
	}

	rec, found, err := s.Get("id")
	if err != nil || found {
		t.Errorf("Get = (%+v, %v, %v), want not found and no error", rec, found, err)
	}
	if got := readFile(t, s.Path()); !bytes.Equal(got, content) {
		t.Errorf("the corrupt file was changed in place")
	}
}

func TestLockedStore(t *testing.T) {
	s, _ := newTestStore(t)
	put(t, s, "id", func(r *Record) { r.Status = Shown })

	// A read-write bbolt handle holds an exclusive lock until Close, as
	// another ask-confirm process in the middle of a write would.
	holder, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()

	// The store's own timeout is a minute, which an operation of short
	// that kept it would wait; one that waited DefaultLockTimeout would
	// take 5 s, and one with no timeout forever. short's returns after
	// about its 200 ms: well within slow however loaded the machine, as
	// the wait is timed by the clock and the work around it is a few
	// system calls.
	const own, slow = time.Minute, DefaultLockTimeout / 2
	s.lockTimeout = own
	short := s.WithLockTimeout(200 * time.Millisecond)
	if s.lockTimeout != own {
		t.Errorf("WithLockTimeout changed the original store's timeout to %v", s.lockTimeout)
	}
	ops := []struct {
		name string
		run  func() error
	}{
		{"Get", func() error { _, _, err := short.Get("id"); return err }},
		{"List", func() error { _, err := short.List(); return err }},
		{"Update", func() error {
			_, err := short.Update("id", func(r *Record, found bool) (bool, error) {
				t.Errorf("Update ran fn without the lock")
				return true, nil
			})
			return err
		}},
		{"Delete", func() error {
			_, err := short.Delete(func(Record) bool {
				t.Errorf("Delete ran drop without the lock")
				return true
			})
			return err
		}},
	}
	for _, op := range ops {
		start := time.Now()
		err := op.run()
		elapsed := time.Since(start)
		if !errors.Is(err, ErrLocked) {
			t.Errorf("%s on a locked store = %v, want ErrLocked", op.name, err)
		}
		if elapsed > slow {
			t.Fatalf("%s took %v with a 200ms lock timeout", op.name, elapsed)
		}
	}

	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if rec, found := mustGet(t, short, "id"); !found || rec.Status != Shown || rec.Version != 1 {
		t.Errorf("after the lock was released, Get = (%+v, %v); want the untouched record", rec, found)
	}
	put(t, short, "id", func(r *Record) { r.Status = Approved })
}

// writeProbe reports whether a file can be created in dir, which is how the
// test tells whether permission bits bind this process (they do not bind
// root).
func writeProbe(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

func TestUnwritableDirectory(t *testing.T) {
	base := t.TempDir()
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o700) })

	path := filepath.Join(ro, "answers.db")
	if writeProbe(ro) {
		// Root (or Windows) writes through mode 0500. Use a directory that
		// cannot be created at all: its parent is a regular file.
		t.Logf("permissions do not stop this process; using a path under a regular file")
		file := filepath.Join(base, "file")
		if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(file, "answers.db")
	}
	s := New(path)

	called := false
	_, err := s.Update("id", func(r *Record, found bool) (bool, error) {
		called = true
		return true, nil
	})
	if err == nil {
		t.Fatalf("Update in an unwritable place succeeded")
	}
	if called {
		t.Errorf("Update ran fn although the store could not be created")
	}
	if errors.Is(err, ErrLocked) || errors.Is(err, ErrCorrupt) {
		t.Errorf("Update = %v, misreported as a lock or corruption problem", err)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("a store file exists at %s", path)
	}
	// Reading must never pretend to have found something.
	if _, found, _ := s.Get("id"); found {
		t.Errorf("Get found a record in an unwritable place")
	}
}

func TestEnsureDir(t *testing.T) {
	t.Run("creates missing parents private", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "b", "c")
		if err := EnsureDir(dir); err != nil {
			t.Fatal(err)
		}
		checkPerm(t, dir, 0o700)
		checkPerm(t, filepath.Dir(dir), 0o700)
		// Idempotent.
		if err := EnsureDir(dir); err != nil {
			t.Fatalf("second EnsureDir: %v", err)
		}
	})

	t.Run("refuses a symlinked directory", func(t *testing.T) {
		base := t.TempDir()
		target := filepath.Join(base, "target")
		if err := os.Mkdir(target, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, 0o755); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(base, "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		err := EnsureDir(link)
		if !errors.Is(err, ErrUnsafeDir) {
			t.Fatalf("EnsureDir(symlink) = %v, want ErrUnsafeDir", err)
		}
		// The check comes before any change: the target is left alone.
		checkPerm(t, target, 0o755)
	})

	t.Run("refuses a regular file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := EnsureDir(file); err == nil {
			t.Fatalf("EnsureDir(regular file) = nil, want an error")
		}
		if got := string(readFile(t, file)); got != "keep" {
			t.Errorf("EnsureDir changed the file to %q", got)
		}
		checkPerm(t, file, 0o644)
	})

	for _, mode := range []fs.FileMode{0o755, 0o777, 0o750, 0o701} {
		t.Run(fmt.Sprintf("tightens %#o", mode), func(t *testing.T) {
			if runtime.GOOS == "windows" {
				t.Skip("Windows has no Unix permission bits")
			}
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			if err := EnsureDir(dir); err != nil {
				t.Fatal(err)
			}
			checkPerm(t, dir, 0o700)
		})
	}
}

func TestStorePathNotARegularFile(t *testing.T) {
	t.Run("symlink to a store", func(t *testing.T) {
		base := t.TempDir()
		real := New(filepath.Join(base, "real", "answers.db"))
		put(t, real, "id", func(r *Record) { r.Status = Shown })
		before := readFile(t, real.Path())

		link := filepath.Join(base, "link.db")
		if err := os.Symlink(real.Path(), link); err != nil {
			t.Fatal(err)
		}
		s := New(link)
		if _, found, err := s.Get("id"); !errors.Is(err, ErrUnsafeDir) || found {
			t.Errorf("Get through a symlink = (found %v, %v), want ErrUnsafeDir", found, err)
		}
		if _, err := s.Update("id", func(r *Record, found bool) (bool, error) {
			r.Status = Approved
			return true, nil
		}); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("Update through a symlink = %v, want ErrUnsafeDir", err)
		}
		if _, err := s.List(); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("List through a symlink = %v, want ErrUnsafeDir", err)
		}
		if after := readFile(t, real.Path()); !bytes.Equal(before, after) {
			t.Errorf("the symlink's target was modified")
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the symlink was replaced (%v, %v)", fi, err)
		}
	})

	t.Run("dangling symlink", func(t *testing.T) {
		base := t.TempDir()
		target := filepath.Join(base, "nowhere.db")
		link := filepath.Join(base, "answers.db")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		s := New(link)
		if _, found, err := s.Get("id"); err == nil || found {
			t.Errorf("Get through a dangling symlink = (found %v, %v), want an error", found, err)
		}
		if _, err := s.Update("id", func(r *Record, found bool) (bool, error) { return true, nil }); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("Update through a dangling symlink = %v, want ErrUnsafeDir", err)
		}
		if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a file was created at the symlink's target")
		}
	})

	t.Run("directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "answers.db")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		s := New(path)
		if _, _, err := s.Get("id"); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("Get on a directory = %v, want ErrUnsafeDir", err)
		}
		if _, err := s.Update("id", func(r *Record, found bool) (bool, error) { return true, nil }); !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("Update on a directory = %v, want ErrUnsafeDir", err)
		}
	})
}

// Every Update is one transaction across all handles on the file, so
// concurrent read-modify-write cycles never lose an increment, and a reader
// never sees a half-made write.
func TestConcurrentUpdates(t *testing.T) {
	const workers, each, readers = 20, 20, 4
	path := filepath.Join(t.TempDir(), "cache", "answers.db")

	errs := make(chan error, workers*each+readers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Store per goroutine, as separate processes would have; a
			// generous lock timeout, because this test is about atomicity.
			s := New(path).WithLockTimeout(time.Minute)
			for range each {
				_, err := s.Update("counter", func(r *Record, found bool) (bool, error) {
					if found != (r.Attempt > 0) {
						return false, fmt.Errorf("found = %v with Attempt %d", found, r.Attempt)
					}
					r.Attempt++
					return true, nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(path).WithLockTimeout(time.Minute)
			var last uint64
			for range 50 {
				rec, found, err := s.Get("counter")
				if err != nil {
					errs <- err
					return
				}
				if !found {
					continue
				}
				if uint64(rec.Attempt) != rec.Version || rec.Version < last {
					errs <- fmt.Errorf("reader saw Attempt %d Version %d after Version %d", rec.Attempt, rec.Version, last)
					return
				}
				last = rec.Version
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	rec, found, err := New(path).Get("counter")
	if err != nil || !found {
		t.Fatalf("Get = (%v, %v)", found, err)
	}
	if rec.Attempt != workers*each || rec.Version != workers*each {
		t.Errorf("after %d updates: Attempt %d, Version %d", workers*each, rec.Attempt, rec.Version)
	}
	if names := dirNames(t, filepath.Dir(path)); !reflect.DeepEqual(names, []string{"answers.db"}) {
		t.Errorf("store directory holds %q, want only answers.db", names)
	}
}

func TestDefaultPaths(t *testing.T) {
	cache, state := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("XDG_STATE_HOME", state)
	xdg.Reload() // the product reads the variables once, at start
	p := DefaultPaths()
	want := Paths{
		DB:      filepath.Join(cache, "ask-confirm", "answers.db"),
		Locks:   filepath.Join(state, "ask-confirm", "locks"),
		History: filepath.Join(state, "ask-confirm", "history.jsonl"),
	}
	if p != want {
		t.Errorf("DefaultPaths() = %+v, want %+v", p, want)
	}
	if got, want := p.LockFile("abc"), filepath.Join(state, "ask-confirm", "locks", "abc.lock"); got != want {
		t.Errorf("LockFile = %q, want %q", got, want)
	}
}

func BenchmarkGet(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "answers.db"))
	for i := range 10 {
		put(b, s, fmt.Sprintf("%064x", i), func(r *Record) { r.Status = Approved; r.Title = "Deploy" })
	}
	id := fmt.Sprintf("%064x", 5)
	for b.Loop() {
		if _, found, err := s.Get(id); err != nil || !found {
			b.Fatalf("Get = (%v, %v)", found, err)
		}
	}
}

func BenchmarkGetLarge(b *testing.B) {
	const n = 100_000
	s := New(filepath.Join(b.TempDir(), "answers.db"))
	put(b, s, "seed", func(r *Record) {})
	// One bbolt transaction for all records; 100k Updates would each fsync.
	db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucket)
		bk.FillPercent = 1 // keys are inserted in order
		now := time.Now().UTC()
		for i := range n {
			id := fmt.Sprintf("%064x", i)
			v, err := json.Marshal(legacyFrom(Record{
				Identity: id, ContentHash: id, Title: "Deploy", Status: Approved,
				RequestedAt: now, EndedAt: now, Deadline: now, Remember: time.Minute, Version: 1,
				Request: []byte(`{"message":"Ship v2 to prod?","ok_label":"Approve","cancel_label":"Cancel"}`),
			}))
			if err != nil {
				return err
			}
			if err := bk.Put([]byte(id), v); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	id := fmt.Sprintf("%064x", n/2)
	for b.Loop() {
		if _, found, err := s.Get(id); err != nil || !found {
			b.Fatalf("Get = (%v, %v)", found, err)
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), "answers.db"))
	put(b, s, "id", func(r *Record) {})
	for b.Loop() {
		_, err := s.Update("id", func(r *Record, found bool) (bool, error) {
			r.Attempt++
			return true, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
