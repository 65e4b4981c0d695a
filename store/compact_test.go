package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// After most records are deleted, Compact shrinks the file to within twice
// its live data, keeps every remaining record, and leaves a store that is
// used as before.
func TestCompactShrinksMostlyFreeStore(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "answers.db"))
	msg := string(make([]byte, 512))
	for i := 0; i < 3000; i++ {
		id := fmt.Sprintf("%064d", i)
		if _, err := s.Update(id, func(r *Record, _ bool) (bool, error) {
			r.Status, r.Title, r.Reason, r.EndedAt = Approved, "t", msg, time.Now()
			return true, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	keep := func(r Record) bool { return r.Identity < fmt.Sprintf("%064d", 10) }
	if _, err := s.Delete(func(r Record) bool { return !keep(r) }); err != nil {
		t.Fatal(err)
	}
	before := size(t, s.Path())
	done, err := s.Compact(0.5)
	if err != nil || !done {
		t.Fatalf("Compact = %v, %v on a mostly free store of %d bytes", done, err, before)
	}
	after := size(t, s.Path())
	recs, err := s.List()
	if err != nil || len(recs) != 10 {
		t.Fatalf("after compaction: %d records, %v", len(recs), err)
	}
	var live int64
	for _, r := range recs {
		live += int64(len(r.Reason) + 300)
	}
	t.Logf("compacted %d bytes to %d (live records about %d bytes)", before, after, live)
	if after >= before || after > 2*max(live, 64<<10) {
		t.Fatalf("file is %d bytes after compaction, was %d", after, before)
	}
	if again, err := s.Compact(0.5); err != nil || again {
		t.Fatalf("compacting a compact store: %v, %v", again, err)
	}
	if _, err := s.Update("new", func(r *Record, _ bool) (bool, error) { r.Status = Denied; return true, nil }); err != nil {
		t.Fatalf("writing after compaction: %v", err)
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
