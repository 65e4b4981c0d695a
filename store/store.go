// Package store keeps request records in a bbolt file and appends the audit
// history. The bbolt file is a cache: it is opened only for the duration of
// one transaction, always with a bounded lock wait, and set aside and rebuilt
// when it is corrupt. Nothing in this package decides what a record means.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// bucket holds one encoded Record per identity (see encodeRecord).
var bucket = []byte("requests")

// DefaultLockTimeout bounds how long one operation waits for another
// process's transaction. bbolt's zero timeout would wait forever.
const DefaultLockTimeout = 5 * time.Second

var (
	// ErrLocked is returned when another process held the store for longer
	// than the lock timeout.
	ErrLocked = errors.New("answer store is locked by another process")
	// ErrCorrupt is returned when the store cannot be read as a bbolt file
	// even after the damaged file was set aside.
	ErrCorrupt = errors.New("answer store is corrupt")
)

// Store is the answer store at one path. A Store holds no open file between
// calls, so any number of processes may use the same path at once.
type Store struct {
	path        string
	lockTimeout time.Duration
	// Warn, if set, is told about problems that were worked around, such as
	// a corrupt file that was set aside.
	Warn func(error)
}

// New returns the store kept at path. The file and its directory are created
// on the first write.
func New(path string) *Store {
	return &Store{path: path, lockTimeout: DefaultLockTimeout}
}

// WithLockTimeout returns a copy of s that waits at most d for the file lock.
func (s *Store) WithLockTimeout(d time.Duration) *Store {
	c := *s
	c.lockTimeout = d
	return &c
}

// Path returns the file the store is kept in.
func (s *Store) Path() string { return s.path }

// Get returns the record for id. A missing store file or record is reported
// as found == false, not as an error. A corrupt file is set aside, reported
// through Warn, and treated as empty.
func (s *Store) Get(id string) (rec Record, found bool, err error) {
	err = s.view(func(b *bolt.Bucket) error {
		v := b.Get([]byte(id))
		if v == nil {
			return nil
		}
		// Decode aside: a record that fails to decode may have filled some
		// fields, and none of them may be returned once the file is set aside.
		var r Record
		if err := decode(v, &r); err != nil {
			return err
		}
		rec, found = r, true
		return nil
	})
	return rec, found, err
}

// List returns every record in the store, in identity order.
func (s *Store) List() ([]Record, error) {
	var recs []Record
	err := s.view(func(b *bolt.Bucket) error {
		var all []Record
		err := b.ForEach(func(_, v []byte) error {
			var r Record
			if err := decode(v, &r); err != nil {
				return err
			}
			all = append(all, r)
			return nil
		})
		if err == nil {
			recs = all
		}
		return err
	})
	return recs, err
}

// Update reads the record for id, passes it to fn, and writes it back if fn
// returns write == true, all in one transaction: no other process can change
// the record in between. It returns the record as fn left it.
func (s *Store) Update(id string, fn func(rec *Record, found bool) (write bool, err error)) (Record, error) {
	var rec Record
	err := s.update(func(b *bolt.Bucket) error {
		rec = Record{}
		v := b.Get([]byte(id))
		if v != nil {
			if err := decode(v, &rec); err != nil {
				return err
			}
		}
		write, err := fn(&rec, v != nil)
		if err != nil || !write {
			return err
		}
		rec.Identity = id
		rec.Version++
		buf, err := encodeRecord(&rec)
		if err != nil {
			return fmt.Errorf("encoding the record: %w", err)
		}
		return b.Put([]byte(id), buf)
	})
	return rec, err
}

// Delete removes the records for which drop returns true and reports how
// many it removed.
func (s *Store) Delete(drop func(Record) bool) (int, error) {
	n := 0
	err := s.update(func(b *bolt.Bucket) error {
		n = 0
		var ids [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var r Record
			if decode(v, &r) != nil || drop(r) {
				ids = append(ids, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := b.Delete(id); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	return n, err
}

func (s *Store) view(fn func(*bolt.Bucket) error) error {
	if _, err := os.Lstat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	db, err := s.open(true)
	if err != nil || db == nil {
		return err
	}
	err = guard(func() error {
		return db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			if b == nil {
				return nil
			}
			return fn(b)
		})
	})
	db.Close()
	if errors.Is(err, ErrCorrupt) {
		s.setAside(err)
		return nil
	}
	return err
}

func (s *Store) update(fn func(*bolt.Bucket) error) error {
	for try := 0; ; try++ {
		if err := s.create(); err != nil {
			return err
		}
		db, err := s.open(false)
		if err != nil {
			return err
		}
		if db == nil {
			// The corrupt file was set aside; create a fresh one. Finding
			// a corrupt file again means it could not be set aside.
			if try > 0 {
				return fmt.Errorf("%w: %s could not be set aside", ErrCorrupt, s.path)
			}
			continue
		}
		err = guard(func() error {
			return db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucketIfNotExists(bucket)
				if err != nil {
					return err
				}
				return fn(b)
			})
		})
		cerr := db.Close()
		if errors.Is(err, ErrCorrupt) && try == 0 {
			s.setAside(err)
			continue
		}
		if err == nil && cerr != nil {
			err = fmt.Errorf("closing answer store: %w", cerr)
		}
		return err
	}
}

// sharingRetry is how often open tries again a store file that Windows
// would not open for a moment (sharingViolation).
const sharingRetry = 20 * time.Millisecond

// open opens the bbolt file. It returns (nil, nil) when the file was found
// corrupt and has been set aside.
func (s *Store) open(readOnly bool) (*bolt.DB, error) {
	if _, err := checkDir(filepath.Dir(s.path)); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(s.path)
	if err == nil {
		if problem := PathProblem(fi, false); problem != "" {
			return nil, &UnsafePathError{Path: s.path, Problem: problem}
		}
		if !readOnly && openToOthers(fi) {
			// A file made or copied by another program (0666): bbolt's
			// mode applies only to a file it creates.
			if err := os.Chmod(s.path, 0o600); err != nil {
				return nil, fmt.Errorf("restricting %s to its owner: %w", s.path, err)
			}
		}
	}
	if err == nil && fi.Size() == 0 {
		// bbolt would initialise an empty file in place, which a read-only
		// open cannot do. create never leaves one, so it is damage.
		s.setAside(errors.New("the file is empty"))
		return nil, nil
	}
	var db *bolt.DB
	for waited := time.Duration(0); ; waited += sharingRetry {
		err = guard(func() (err error) {
			db, err = bolt.Open(s.path, 0o600, &bolt.Options{
				Timeout:  s.lockTimeout,
				ReadOnly: readOnly,
			})
			return err
		})
		if !sharingViolation(err) || waited >= s.lockTimeout {
			break
		}
		// Another process is creating the store (Windows): it is
		// done within moments, and the lock's timeout bounds the wait.
		time.Sleep(sharingRetry)
	}
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w (waited %s)", ErrLocked, s.lockTimeout)
	case corrupt(err):
		s.setAside(err)
		return nil, nil
	default:
		return nil, fmt.Errorf("opening answer store: %w", err)
	}
}

// corrupt reports whether an open error means the file's content is bad, as
// opposed to the file being unreachable.
func corrupt(err error) bool {
	return errors.Is(err, ErrCorrupt) ||
		errors.Is(err, berrors.ErrInvalid) ||
		errors.Is(err, berrors.ErrChecksum) ||
		errors.Is(err, berrors.ErrVersionMismatch) ||
		strings.Contains(err.Error(), "file size too small")
}

// guard turns a panic inside bbolt, which it raises on some kinds of page
// corruption, into ErrCorrupt.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}()
	return fn()
}

// setAside renames a corrupt store out of the way, keeping it for
// inspection, so the next write starts a fresh one.
func (s *Store) setAside(cause error) {
	aside := s.path + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000000000")
	err := os.Rename(s.path, aside)
	if errors.Is(err, fs.ErrNotExist) {
		return // another process set it aside first
	}
	if s.Warn != nil {
		if err != nil {
			s.Warn(fmt.Errorf("answer store %s is corrupt (%v) and could not be set aside: %w", s.path, cause, err))
		} else {
			s.Warn(fmt.Errorf("answer store was corrupt (%v); kept it as %s and started a new one", cause, aside))
		}
	}
}

// create makes the store file if it does not exist. The file is built under
// a temporary name and linked into place, because a read-only open that races
// the creation of an empty file fails.
func (s *Store) create() error {
	if _, err := os.Lstat(s.path); err == nil {
		return nil
	}
	dir := filepath.Dir(s.path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".answers-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	defer os.Remove(tmp)
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: s.lockTimeout})
	if err != nil {
		return fmt.Errorf("creating answer store: %w", err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("creating answer store: %w", err)
	}
	if err := os.Link(tmp, s.path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating answer store: %w", err)
	}
	return nil
}
