package store

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// minCompactBytes is the file size below which compaction is not worth it.
const minCompactBytes = 256 << 10

// Compact rewrites the store without its free pages when more than
// freeFraction of the file is free, and reports whether it did. It holds the
// store's exclusive lock throughout and writes the compacted copy back into
// the same file rather than renaming a new one into place: a process waiting
// for the lock then finds the compacted content in the file it opened,
// instead of writing to a file that has been replaced. The copy is built and
// synced first, so a crash can only interrupt the final overwrite, and a
// store damaged that way is set aside and rebuilt like any corrupt one.
func (s *Store) Compact(freeFraction float64) (bool, error) {
	fi, err := os.Lstat(s.path)
	if err != nil || fi.Size() < minCompactBytes {
		return false, nil
	}
	db, err := s.open(false)
	if err != nil || db == nil {
		return false, err
	}
	defer db.Close()
	// bbolt's own free-page counters are only filled in by a write
	// transaction, so measure what the records occupy instead.
	live := 4 * int64(db.Info().PageSize) // meta, freelist and root pages
	if err := db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucket); b != nil {
			st := b.Stats()
			live += int64(st.BranchAlloc + st.LeafAlloc)
		}
		return nil
	}); err != nil {
		return false, err
	}
	if free := 1 - float64(live)/float64(fi.Size()); free <= freeFraction {
		return false, nil
	}
	tmp := filepath.Join(filepath.Dir(s.path), ".compact-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	defer os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: s.lockTimeout})
	if err != nil {
		return false, fmt.Errorf("compacting answer store: %w", err)
	}
	if err := bolt.Compact(dst, db, 1<<20); err != nil {
		dst.Close()
		return false, fmt.Errorf("compacting answer store: %w", err)
	}
	if err := dst.Close(); err != nil {
		return false, fmt.Errorf("compacting answer store: %w", err)
	}
	if err := overwrite(s.path, tmp); err != nil {
		return false, fmt.Errorf("compacting answer store: %w", err)
	}
	return true, nil
}

// overwrite replaces the content of the file at path with that of src, in
// place, and syncs it.
func overwrite(path, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Truncate(n)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
