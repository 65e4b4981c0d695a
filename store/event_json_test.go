package store

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// checkEventLine fails unless appendEventJSON writes e exactly as
// json.Marshal does, and fails exactly when json.Marshal fails.
func checkEventLine(t *testing.T, e Event) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := appendEventJSON(nil, &e)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("event %#v: json.Marshal error %v, appendEventJSON error %v", e, werr, gerr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("event %#v:\n got %s\nwant %s", e, got, want)
	}
}

// Every string goes into every field, and every time and number into theirs.
func TestEventLineMatchesJSON(t *testing.T) {
	times := []time.Time{
		{},
		time.Now(), // with a monotonic reading
		time.Date(2025, 11, 22, 13, 0, 0, 0, time.UTC),
		time.Date(2025, 11, 22, 13, 0, 0, 120000000, time.UTC), // trailing zeros of the fraction dropped
		time.Date(2025, 11, 22, 13, 0, 0, 1, time.FixedZone("", 5*3600+30*60)),
		time.Date(2025, 11, 22, 13, 0, 0, 1, time.FixedZone("X", -(3*3600+30*60+52))),
		time.Date(2025, 11, 22, 13, 0, 0, 0, time.Local),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("", -100*3600)),
	}
	for _, at := range times {
		checkEventLine(t, Event{Time: at})
		checkEventLine(t, Event{Time: times[2], VotedAt: at, By: "Alice", Outcome: "approved"})
		checkEventLine(t, sampleEvent(3))
	}
	for _, n := range []int{0, 1, -1, 1234, math.MaxInt, math.MinInt} {
		checkEventLine(t, Event{Attempt: n, PID: n, Approvals: n})
	}
	for _, s := range nastyStrings {
		e := Event{Time: times[2]}
		fields := reflect.ValueOf(&e).Elem()
		for i := range fields.NumField() {
			if f := fields.Field(i); f.Kind() == reflect.String {
				f.SetString(s)
				checkEventLine(t, e)
			}
		}
	}
	// Every byte on its own and in the middle of text, and each two-byte
	// prefix of a multi-byte sequence.
	for c := range 256 {
		checkEventLine(t, Event{Title: string(rune(c)), Reason: "a" + string([]byte{byte(c)}) + "b"})
		checkEventLine(t, Event{Dir: string([]byte{byte(c), 0x80}), Outcome: string([]byte{0xe2, byte(c)})})
		checkEventLine(t, Event{Channel: string([]byte{byte(c)}) + "x"})
		checkEventLine(t, Event{Answer: []string{string([]byte{byte(c)}), "x" + string([]byte{byte(c), 0x80})}})
	}
	for _, answer := range [][]string{nil, {}, {""}, {"a", ""}, nastyStrings} {
		checkEventLine(t, Event{Answer: answer, AnswerHash: "ab", ApprovedFor: "1h"})
		checkEventLine(t, Event{Approvers: answer, Approvals: 2, ApprovedBy: answer, DeniedBy: answer})
	}
}

func BenchmarkEventLine(b *testing.B) {
	e := sampleEvent(3)
	b.Run("appendEventJSON", func(b *testing.B) {
		for b.Loop() {
			if _, err := appendEventJSON(make([]byte, 0, 512), &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
