package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// FuzzDecodeRecord checks that decode never panics, that whatever it refuses
// is ErrCorrupt and leaves the record alone, and that whatever it accepts
// is written again by encodeRecord, exactly when json.Marshal could write
// it in the JSON form earlier versions stored (legacyRecord), and reads back
// as the same record.
func FuzzDecodeRecord(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	zones := []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("", -(3*3600 + 30*60))}
	for range 8 {
		r := randomRecord(rng, zones)
		b, err := encodeRecord(&r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		js, _ := json.Marshal(legacyFrom(r))
		f.Add(js)
	}
	f.Add([]byte(legacyRecordJSON))
	f.Add(withRequestedAt(varint(timeOffset, 1e9, 5, -3600)...))
	for _, v := range corruptRecords(f) {
		f.Add(v)
	}

	f.Fuzz(func(t *testing.T, v []byte) {
		r := Record{Title: "untouched"}
		if err := decode(v, &r); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decode error %v is not ErrCorrupt", err)
			}
			if !reflect.DeepEqual(r, Record{Title: "untouched"}) {
				t.Fatalf("a failed decode changed the record to %#v", r)
			}
			return
		}
		_, jerr := json.Marshal(legacyFrom(r))
		enc, err := encodeRecord(&r)
		if (err == nil) != (jerr == nil) {
			t.Fatalf("record %#v: encodeRecord error %v, json.Marshal error %v", r, err, jerr)
		}
		if err != nil {
			if recordFormat1 <= v[0] && v[0] <= recordFormat5 {
				t.Fatalf("a decoded binary record does not encode: %v", err)
			}
			return
		}
		var again Record
		if err := decode(enc, &again); err != nil {
			t.Fatalf("%q decodes to %#v, which encodes to %q, which does not decode: %v", v, r, enc, err)
		}
		if v[0] == '{' {
			// The JSON form can hold the zero instant in another zone;
			// the binary form keeps any zero time as time.Time{}. And
			// like json.Marshal, which writes offset 0 as "Z", it keeps
			// offset 0 as UTC, where parsing "+00:00" gave Local on a
			// machine whose zone has that offset then.
			for _, p := range []*time.Time{&r.RequestedAt, &r.ShownAt, &r.EndedAt, &r.Deadline} {
				if _, off := p.Zone(); p.IsZero() {
					*p = time.Time{}
				} else if off == 0 {
					*p = p.UTC()
				}
			}
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("%q decodes to\n%#v\nbut after a round trip to\n%#v", v, r, again)
		}
		if enc2, _ := encodeRecord(&again); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding is not stable: %q then %q", enc, enc2)
		}
	})
}

// FuzzEventLine checks that appendEventJSON writes any event exactly as
// json.Marshal does, and fails exactly when it fails.
func FuzzEventLine(f *testing.F) {
	add := func(e Event) {
		_, off := e.Time.Zone()
		f.Add(e.Time.Unix(), int64(e.Time.Nanosecond()), off, e.Event, e.Identity, e.Title, e.MessageHash,
			e.Outcome, e.Reason, e.Attempt, e.PID, e.Dir)
	}
	add(sampleEvent(1))
	add(Event{})
	for _, s := range nastyStrings {
		add(Event{Time: time.Unix(1e9, 0).UTC(), Event: s, Identity: s, Title: s, MessageHash: s, Outcome: s, Reason: s, Dir: s})
	}
	add(Event{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	add(Event{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600))})

	f.Fuzz(func(t *testing.T, sec, nsec int64, off int, event, identity, title, hash, outcome, reason string, attempt, pid int, dir string) {
		at := time.Unix(sec, nsec)
		if off == 0 {
			at = at.UTC()
		} else {
			at = at.In(time.FixedZone("", off))
		}
		e := Event{
			Time: at, Event: event, Identity: identity, Title: title, MessageHash: hash,
			Outcome: outcome, Reason: reason, Attempt: attempt, PID: pid, Dir: dir,
		}
		if attempt%2 != 0 {
			// A choice's answer: the lists of labels.
			e.Answer, e.AnswerHash, e.ApprovedFor = []string{outcome, reason}, hash, title
		}
		checkEventLine(t, e)
	})
}
