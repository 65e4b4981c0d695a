//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/store"
)

// fillStore builds the answer store at dst for a case: it copies every
// record of the store at src (the genuine, clicked approval the case looks
// up) through the store package, then adds n synthetic final records in one
// bbolt transaction. Synthetic records are approved and end at endedAt, so
// they are fresh or expired as the case needs; tag keeps the identities of
// separate batches apart. This writes test data for the
// benchmark; the product has no such path.
func fillStore(src, dst string, n int, endedAt time.Time, tag string) error {
	recs, err := store.New(src).List()
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s holds no record to copy", src)
	}
	if err := store.EnsureDir(filepath.Dir(dst)); err != nil {
		return err
	}
	out := store.New(dst)
	for _, r := range recs {
		if _, err := out.Update(r.Identity, func(rec *store.Record, _ bool) (bool, error) {
			*rec = r
			return true, nil
		}); err != nil {
			return fmt.Errorf("copying a record into %s: %w", dst, err)
		}
	}
	if n == 0 {
		return nil
	}
	// 100k Updates would each fsync; one transaction takes a second. The
	// store created its one bucket above, so it is found without naming it.
	db, err := bolt.Open(dst, 0o600, &bolt.Options{Timeout: 5 * time.Second, NoSync: true})
	if err != nil {
		return err
	}
	payload, _ := json.Marshal(dialog.Request{Title: "Deploy", Message: "Ship build 4711 to production?",
		OKLabel: "Approve", CancelLabel: "Cancel", Icon: "question", Scope: "/home/dev/project"})
	err = db.Update(func(tx *bolt.Tx) error {
		var b *bolt.Bucket
		if err := tx.ForEach(func(_ []byte, bk *bolt.Bucket) error { b = bk; return nil }); err != nil {
			return err
		}
		if b == nil {
			return errors.New("the store has no bucket")
		}
		// Sorted keys are appended to the tree; random ones would be
		// inserted into ever larger unsplit nodes, which takes minutes.
		ids := make([]string, n)
		for i := range ids {
			sum := sha256.Sum256(fmt.Appendf(nil, "bench record %s %d", tag, i))
			ids[i] = hex.EncodeToString(sum[:])
		}
		slices.Sort(ids)
		for _, id := range ids {
			v, err := store.MarshalRecord(store.Record{
				Identity: id, ContentHash: id, Title: "Deploy", Request: payload,
				Status: store.Approved, Attempt: 1, HolderPID: 4242,
				RequestedAt: endedAt.Add(-3 * time.Second), ShownAt: endedAt.Add(-2 * time.Second),
				EndedAt: endedAt, Deadline: endedAt.Add(5 * time.Minute), Remember: time.Minute,
				MessageHash: id, CallerPID: 4241, CallerDir: "/home/dev/project", Version: 3,
			})
			if err != nil {
				return err
			}
			if err := b.Put([]byte(id), v); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// liveData reports the size of a freshly compacted copy of the store at
// path (what its records need, laid out as bbolt lays them out), and the
// number of records and their key+value bytes.
func liveData(path string) (compacted int64, records int, kvBytes int64, err error) {
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second, ReadOnly: true})
	if err != nil {
		return 0, 0, 0, err
	}
	defer src.Close()
	err = src.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				records++
				kvBytes += int64(len(k) + len(v))
				return nil
			})
		})
	})
	if err != nil {
		return 0, 0, 0, err
	}
	tmp := path + ".bench-compacted"
	defer os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: 5 * time.Second, NoSync: true})
	if err != nil {
		return 0, 0, 0, err
	}
	if err := bolt.Compact(dst, src, 1<<20); err != nil {
		dst.Close()
		return 0, 0, 0, err
	}
	if err := dst.Close(); err != nil {
		return 0, 0, 0, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return 0, 0, 0, err
	}
	return fi.Size(), records, kvBytes, nil
}
