package store

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update-golden", false, "write the files of testdata/records that are missing, from the records below (a new format's: files already there are never rewritten, and must keep reading)")

// goldenRecords are records in each format the store writes today, as
// written on 2026-11-26 (testdata/records/NAME.bin). A later codec must
// read every one of them back unchanged, and write them again byte for
// byte while it writes that format.
func goldenRecords() map[string]Record {
	at := time.Date(2026, 11, 26, 8, 30, 1, 123456789, time.FixedZone("CET", 3600))
	utc := at.UTC()
	return map[string]Record{
		"format3-confirm-approved": {
			Identity: "53b2b65afb00f8aef4c1dbdcf4d89b138395d277192206332639800e6d8dd5e4", ContentHash: "c0ffee", Title: "Deploy",
			Request: []byte(`{"title":"Deploy","message":"Ship v2 to production?"}`), Status: Approved, Attempt: 1, HolderPID: 4242,
			RequestedAt: at, ShownAt: at.Add(150 * time.Millisecond), EndedAt: at.Add(2 * time.Second), Deadline: at.Add(5 * time.Minute),
			Remember: time.Minute, MessageHash: "9f86d081", CallerPID: 4200, CallerDir: "/home/dev/src/app", Version: 7,
			Uncollected: true, CollectWithin: 15 * time.Minute, Channel: "terminal", Origin: "deploy.sh in ~/src/app",
		},
		"format4-choose-typed": {
			Identity: "key:release", ContentHash: "beef", Title: "Release", Request: []byte(`{"kind":"choose"}`), Status: Approved,
			Reason: "", Attempt: 2, RequestedAt: utc, EndedAt: utc.Add(time.Second), Deadline: utc.Add(time.Hour),
			CancelRequest: Cancelled, Kind: "choose", Multiple: true, Answers: []string{"canary", "my own ✓"}, Typed: true,
			ApprovedFor: 10 * time.Minute, Origin: "ask-confirm-test (through MCP) in ~/w",
		},
		"format5-phone-withdrawn": {
			Identity: "ff", ContentHash: "ee", Title: "Claude Code: Bash", Request: nil, Status: Withdrawn,
			Reason: "no caller waits for it any more", Attempt: 1, HolderPID: 1, RequestedAt: at, ShownAt: at,
			EndedAt: at.Add(3 * time.Second), Deadline: at.Add(2 * time.Minute), Phone: "also", AnsweredBy: "phone",
			Note: "the phone could not ask (refused); the request goes on without it", EndsWithCaller: true,
		},
		"format6-approvers-voted": {
			Identity: "a1", ContentHash: "b2", Title: "Deploy", Request: []byte(`{"message":"Ship v2?","approvers":["Alice","Bob","Carol"],"approvals":2}`),
			Status: Approved, Attempt: 1, HolderPID: 77, RequestedAt: utc, ShownAt: utc, EndedAt: utc.Add(90 * time.Second),
			Deadline: utc.Add(5 * time.Minute), Remember: time.Minute, CollectWithin: 15 * time.Minute, Uncollected: true,
			Phone: "also", AnsweredBy: "phone", Approvers: []string{"Alice", "Bob", "Carol"}, Approvals: 2,
			Votes: []Vote{{By: "Alice", Approved: true, At: utc.Add(30 * time.Second)}, {By: "Bob", Approved: true, For: time.Hour, At: at.Add(89 * time.Second)}},
		},
	}
}

func TestGoldenRecordsReadBackUnchanged(t *testing.T) {
	dir := filepath.Join("testdata", "records")
	for name, want := range goldenRecords() {
		path := filepath.Join(dir, name+".bin")
		if *updateGolden {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// Only the new ones: a golden file is never rewritten.
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			switch {
			case err == nil:
				_, err = f.Write(mustEncode(t, want))
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			case !os.IsExist(err):
				t.Fatal(err)
			}
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := mustDecode(t, raw)
		if !sameRecord(got, want) {
			t.Errorf("%s reads as\n%+v\nwant\n%+v", name, got, want)
		}
		if again := mustEncode(t, got); !bytes.Equal(again, raw) {
			t.Errorf("%s is written back as other bytes (format %#x, was %#x)", name, again[0], raw[0])
		}
	}
}

// sameRecord compares records as the codec keeps them: each time's
// instant and zone offset, the rest exactly.
func sameRecord(a, b Record) bool {
	if len(a.Votes) != len(b.Votes) {
		return false
	}
	// The votes' times too, in copies: the callers' records stay as they are.
	a.Votes, b.Votes = slices.Clone(a.Votes), slices.Clone(b.Votes)
	times := func(r *Record) []*time.Time {
		ts := []*time.Time{&r.RequestedAt, &r.ShownAt, &r.EndedAt, &r.Deadline}
		for i := range r.Votes {
			ts = append(ts, &r.Votes[i].At)
		}
		return ts
	}
	ta, tb := times(&a), times(&b)
	for i := range ta {
		_, oa := ta[i].Zone()
		_, ob := tb[i].Zone()
		if !ta[i].Equal(*tb[i]) || oa != ob || ta[i].IsZero() != tb[i].IsZero() {
			return false
		}
		*ta[i], *tb[i] = time.Time{}, time.Time{}
	}
	if len(a.Request) == 0 && len(b.Request) == 0 {
		a.Request, b.Request = nil, nil
	}
	return reflect.DeepEqual(a, b)
}
