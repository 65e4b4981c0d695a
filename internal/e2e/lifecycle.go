//go:build e2e && unix

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

func PrependPath(env []string, dir string) []string {
	out := WithoutEnv(env, "PATH")
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			out = append(out, "PATH="+dir+string(filepath.ListSeparator)+strings.TrimPrefix(kv, "PATH="))
		}
	}
	return out
}

// OnlyRecord returns the single record in the store.
func (h *Harness) OnlyRecord() store.Record {
	h.T.Helper()
	recs, err := store.New(filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db")).List()
	Must(h.T, err)
	if len(recs) != 1 {
		h.T.Fatalf("%d records in the store, want 1", len(recs))
	}
	return recs[0]
}

// ExpectAttempts checks that the request of r took want attempts, plus one
// for each time GNOME zenity died by itself before its window appeared and
// the holder showed the dialog again, as the history records it. Real zenity
// does that now and then (DESIGN.md), more often on a busy machine; any
// other extra attempt fails the test.
func (h *Harness) ExpectAttempts(r lifecycle.Result, want int) {
	h.T.Helper()
	retried := 0
	for _, e := range h.History() {
		if e["identity"] == r.Key && e["event"] == "failed" && e["reason"] == "the dialog program exited before its window could appear" {
			retried++
		}
	}
	if r.Attempt != want+retried {
		h.T.Fatalf("attempt %d, want %d and %d render retries", r.Attempt, want, retried)
	}
	if retried > 0 {
		h.T.Logf("zenity died before its window appeared %d times; the holder showed the dialog again", retried)
	}
}

// Events returns the kinds of the history Events of one identity, in order.
// A waiter can read the answer in the store, and record that it collected
// it, before the holder has appended the "answered" line of that answer:
// such a "collected" is put after the end it collected.
func (h *Harness) Events(identity string) []string {
	var kinds []string
	for _, e := range h.History() {
		if e["identity"] != identity {
			continue
		}
		k := e["event"].(string)
		if n := len(kinds); n > 0 && kinds[n-1] == "collected" && endEvent(k) {
			kinds[n-1], k = k, "collected"
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// DropSupersededCollection leaves out the "collected" that follows a
// "superseded": the older request's waiter records it when it reads its
// request ended as superseded, and not when it reads the newer request
// already in its place. Both are right; which one happens is timing.
func DropSupersededCollection(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if n := len(out); k == "collected" && n > 0 && out[n-1] == "superseded" {
			continue
		}
		out = append(out, k)
	}
	return out
}

// endEvent reports whether a history event ends a request with an answer.
func endEvent(kind string) bool {
	switch kind {
	case "answered", "expired", "cancelled", "superseded":
		return true
	}
	return false
}

// EventsBesideRenderRetries is events without the render failures the
// product retried by itself. GNOME zenity now and then exits on its own
// within 0.4 s of starting, before or after the holder marked it shown; the
// holder records that as "failed" and the waiter asks again ("requested").
// That retry is ask-confirm working as designed, and the tests using this
// are about everything else.
func (h *Harness) EventsBesideRenderRetries(identity string) []string {
	var kinds []string
	for _, k := range h.Events(identity) {
		if n := len(kinds); k == "requested" && n >= 2 && kinds[n-1] == "failed" {
			// Drop the failed attempt's "shown", if any, and "failed";
			// the retry's "requested" stands in for the first one.
			kinds = kinds[:n-1]
			if kinds[n-2] == "shown" {
				kinds = kinds[:n-2]
			}
			continue
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// Status runs ask-confirm Status KEY --json and checks that its exit code
// matches the exit_code it printed.
func (h *Harness) Status(key string) lifecycle.Result {
	h.T.Helper()
	o := h.Run("status", key, "--json")
	if int(o.Res.ExitCode) != o.Code {
		h.T.Fatalf("status exit code %d but exit_code %d: %s %s", o.Code, o.Res.ExitCode, o.Stdout, o.Stderr)
	}
	return o.Res
}

func (h *Harness) List() []lifecycle.Entry {
	h.T.Helper()
	o := h.Run("list", "--json")
	if o.Code != 0 {
		h.T.Fatalf("list: %d %s", o.Code, o.Stderr)
	}
	var entries []lifecycle.Entry
	Must(h.T, json.Unmarshal([]byte(o.Stdout), &entries))
	return entries
}

// AnsweredAt waits until the request named by key has ended and returns
// when it did, from ask-confirm status.
func (h *Harness) AnsweredAt(key string) time.Time {
	h.T.Helper()
	var at time.Time
	Eventually(h.T, 30*time.Second, "the answer to be on record", func() bool {
		o := h.Run("status", key, "--json")
		at = o.Res.AnsweredAt
		return o.Code != int(lifecycle.ExitPending) && !at.IsZero()
	})
	return at
}

// SleepUntil sleeps until t has passed.
func SleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

func WithoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
