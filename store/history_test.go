package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readEvents(t *testing.T, path string) []Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s does not end in a newline", path)
	}
	var events []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 2*MaxHistoryBytes)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: line %d is not one JSON event: %v", path, len(events)+1, err)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

func sampleEvent(n int) Event {
	return Event{
		Time:        time.Date(2025, 11, 22, 13, 0, n, 0, time.UTC),
		Event:       "answered",
		Identity:    strings.Repeat("a", 64),
		Title:       "Deploy \"prod\"\nnow", // quotes and newlines must stay inside one line
		MessageHash: strings.Repeat("b", 64),
		Outcome:     "approved",
		Reason:      "clicked",
		Attempt:     n,
		PID:         1234,
		Dir:         "/home/user/repo",
		Channel:     "elicitation",
		Phone:       "also",
		AnsweredBy:  "phone",
		Approvers:   []string{"Alice", "Bob", "Carol"},
		Approvals:   2,
		By:          "Bob",
		VotedAt:     time.Date(2025, 11, 22, 12, 59, n, 0, time.UTC),
		ApprovedBy:  []string{"Alice", "Bob"},
		DeniedBy:    []string{"Carol"},
	}
}

func TestAppendEventCreatesPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ask-confirm", "history.jsonl")
	e := sampleEvent(1)
	if err := AppendEvent(path, e); err != nil {
		t.Fatal(err)
	}
	checkPerm(t, path, 0o600)
	checkPerm(t, filepath.Dir(path), 0o700)
	got := readEvents(t, path)
	if len(got) != 1 || !reflect.DeepEqual(got[0], e) {
		t.Fatalf("history holds %+v, want exactly %+v", got, e)
	}
	raw, _ := os.ReadFile(path)
	if bytes.Count(raw, []byte("\n")) != 1 {
		t.Errorf("one event took %d lines", bytes.Count(raw, []byte("\n")))
	}
	// The message text itself is never written, only its hash.
	if !bytes.Contains(raw, []byte(`"message_sha256":"`+e.MessageHash+`"`)) {
		t.Errorf("history line %s lacks message_sha256", raw)
	}
}

func TestAppendEventAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	var want []Event
	for i := 1; i <= 5; i++ {
		e := sampleEvent(i)
		if err := AppendEvent(path, e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	if got := readEvents(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("history holds %+v, want %+v", got, want)
	}
	if _, err := os.Lstat(path + ".1"); err == nil {
		t.Errorf("a small history was rotated")
	}
}

func TestAppendEventOmitsEmptyFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := AppendEvent(path, Event{Event: "reused", Identity: "id", PID: 7}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"title"`, `"message_sha256"`, `"outcome"`, `"reason"`, `"attempt"`, `"cwd"`, `"channel"`} {
		if bytes.Contains(raw, []byte(key)) {
			t.Errorf("line %s has empty field %s", raw, key)
		}
	}
	if !bytes.Contains(raw, []byte(`"pid":7`)) {
		t.Errorf("line %s lacks pid", raw)
	}
}

// lineLen is the length of e's history line, newline included.
func lineLen(t *testing.T, e Event) int {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) + 1
}

// eventOfLen returns sampleEvent(n) with its Reason padded so that its line
// is exactly size bytes long.
func eventOfLen(t *testing.T, n, size int) Event {
	t.Helper()
	e := sampleEvent(n)
	e.Reason = "x"
	e.Reason = strings.Repeat("x", size-lineLen(t, e)+1)
	if got := lineLen(t, e); got != size {
		t.Fatalf("built a line of %d bytes, want %d", got, size)
	}
	return e
}

func TestAppendEventRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	small := sampleEvent(1)

	// Fill the file to exactly MaxHistoryBytes: that still fits.
	first := small
	big := eventOfLen(t, 2, MaxHistoryBytes-lineLen(t, first))
	for _, e := range []Event{first, big} {
		if err := AppendEvent(path, e); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != MaxHistoryBytes {
		t.Fatalf("history is %v bytes (%v), want exactly %d", fi.Size(), err, MaxHistoryBytes)
	}
	if _, err := os.Lstat(path + ".1"); err == nil {
		t.Fatalf("history was rotated at exactly MaxHistoryBytes")
	}

	// One more byte would pass the limit: the file is rotated first.
	third := sampleEvent(3)
	if err := AppendEvent(path, third); err != nil {
		t.Fatal(err)
	}
	if got := readEvents(t, path+".1"); len(got) != 2 || got[0].Attempt != 1 || got[1].Attempt != 2 {
		t.Errorf("history.jsonl.1 holds %d events, want events 1 and 2", len(got))
	}
	if got := readEvents(t, path); len(got) != 1 || !reflect.DeepEqual(got[0], third) {
		t.Errorf("history.jsonl holds %+v, want only event 3", got)
	}
	checkPerm(t, path, 0o600)
	checkPerm(t, path+".1", 0o600)

	// A second rotation replaces the older history.jsonl.1.
	fourth := eventOfLen(t, 4, MaxHistoryBytes-lineLen(t, third))
	fifth := sampleEvent(5)
	for _, e := range []Event{fourth, fifth} {
		if err := AppendEvent(path, e); err != nil {
			t.Fatal(err)
		}
	}
	if got := readEvents(t, path+".1"); len(got) != 2 || got[0].Attempt != 3 || got[1].Attempt != 4 {
		t.Errorf("after a second rotation history.jsonl.1 holds %d events, want events 3 and 4", len(got))
	}
	if got := readEvents(t, path); len(got) != 1 || got[0].Attempt != 5 {
		t.Errorf("after a second rotation history.jsonl holds %+v, want only event 5", got)
	}
	for _, p := range []string{path, path + ".1"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() > MaxHistoryBytes {
			t.Errorf("%s is %d bytes, over MaxHistoryBytes", p, fi.Size())
		}
	}
	if names := dirNames(t, filepath.Dir(path)); !reflect.DeepEqual(names, []string{"history.jsonl", "history.jsonl.1"}) {
		t.Errorf("history directory holds %q", names)
	}
}

// An event bigger than the limit on its own is still written, into a fresh
// file: the audit log never drops an answer.
func TestAppendEventOversizedEvent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := AppendEvent(path, sampleEvent(1)); err != nil {
		t.Fatal(err)
	}
	huge := eventOfLen(t, 2, MaxHistoryBytes+100)
	if err := AppendEvent(path, huge); err != nil {
		t.Fatal(err)
	}
	if got := readEvents(t, path); len(got) != 1 || got[0].Attempt != 2 {
		t.Errorf("history.jsonl holds %d events, want only the oversized one", len(got))
	}
	if got := readEvents(t, path+".1"); len(got) != 1 || got[0].Attempt != 1 {
		t.Errorf("history.jsonl.1 holds %d events, want event 1", len(got))
	}
}

func TestAppendEventUnsafeDirectory(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "real")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := AppendEvent(filepath.Join(link, "history.jsonl"), sampleEvent(1)); err == nil {
		t.Fatalf("AppendEvent through a symlinked directory succeeded")
	}
	if _, err := os.Lstat(filepath.Join(target, "history.jsonl")); err == nil {
		t.Errorf("history was written through a symlinked directory")
	}
}
