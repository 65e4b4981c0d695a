//go:build linux

package dialog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/zenity"
)

// scriptedNotice puts a dialog program on PATH that records each run's arguments
// on a line of a file and, on its first dies runs, dies at once with the
// exit code of Cancel, as GNOME zenity now and then does; a later run
// stays until it is ended. It returns what reads the runs so far.
func scriptedNotice(t *testing.T, dies int) (runs func() []string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	script := `#!/bin/sh
echo "$*" >> "$NOTICE_TEST_RUNS"
if [ "$(wc -l < "$NOTICE_TEST_RUNS")" -le "$NOTICE_TEST_DIES" ]; then exit 1; fi
exec cat > /dev/null
`
	// Under each name ncruces/zenity looks for: it picks one at its first
	// use in the process, and runs it by that name from PATH.
	for _, name := range []string{"qarma", "zenity", "matedialog"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("NOTICE_TEST_RUNS", log)
	t.Setenv("NOTICE_TEST_DIES", strconv.Itoa(dies))
	return func() []string {
		b, err := os.ReadFile(log)
		if err != nil {
			return nil
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// A notice whose program dies at once is shown again, and stays once a
// run of it does, until ctx ends; a program that always dies at once is an
// error after noticeRestarts restarts; a window that ends after a person
// could have closed it is closed, not shown again.
func TestNoticeShownAgainWhenItsProgramDiesAtOnce(t *testing.T) {
	t.Run("dies twice", func(t *testing.T) {
		runs := scriptedNotice(t, 2)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- notice(ctx, "Key", "Confirm user presence", time.Hour) }()
		deadline := time.Now().Add(time.Minute)
		for len(runs()) < 3 {
			select {
			case err := <-done:
				t.Fatalf("the notice ended (%v) after %d runs", err, len(runs()))
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("runs after a minute: %q", runs())
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("the notice ended with %v", err)
		}
		got := runs()
		if len(got) != 3 || got[0] != got[2] || !strings.Contains(got[0], "--progress") || !strings.Contains(got[0], "--title Key") {
			t.Fatalf("runs %q: want three alike, a progress window titled Key", got)
		}
	})
	t.Run("always dies", func(t *testing.T) {
		runs := scriptedNotice(t, 100)
		err := notice(context.Background(), "Key", "Confirm user presence", time.Hour)
		if err == nil || !strings.Contains(err.Error(), "4 times") || len(runs()) != noticeRestarts+1 {
			t.Fatalf("error %v after runs %q; want an error after %d", err, runs(), noticeRestarts+1)
		}
	})
	t.Run("closed by a person", func(t *testing.T) {
		runs := scriptedNotice(t, 1)
		if err := notice(context.Background(), "Key", "Confirm user presence", 0); err != nil || len(runs()) != 1 {
			t.Fatalf("error %v after runs %q; want nil after one", err, runs())
		}
	})
}

// scriptedOther puts a dialog program on PATH whose list picks Other… and
// whose text field, on its first dies runs, dies at once with the exit
// code of Cancel; a later run answers "mine". It returns what reads the
// text field's runs so far.
func scriptedOther(t *testing.T, dies int) (fieldRuns func() int) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	script := `#!/bin/sh
case "$*" in *--list*) echo "Other…"; exit 0 ;; esac
echo run >> "$OTHER_TEST_RUNS"
if [ "$(wc -l < "$OTHER_TEST_RUNS")" -le "$OTHER_TEST_DIES" ]; then exit 1; fi
echo mine
`
	for _, name := range []string{"qarma", "zenity", "matedialog"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("OTHER_TEST_RUNS", log)
	t.Setenv("OTHER_TEST_DIES", strconv.Itoa(dies))
	return func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n")
	}
}

// The text field that picking Other… opens is shown again when its
// program dies as it starts, rather than read as the person's Cancel (it
// was, on a busy machine, in the real dialog's test); one that always dies
// is an error, never a denial; one cancelled after a person could have is
// a Cancel.
func TestOtherFieldShownAgainWhenItsProgramDiesAtOnce(t *testing.T) {
	r := Request{Kind: Choose, Title: "Deploy", Message: "Deploy to?", OKLabel: "OK", CancelLabel: "Cancel", Options: []Option{{Label: "staging"}, {Label: "production"}}, Other: true}
	t.Run("dies twice", func(t *testing.T) {
		runs := scriptedOther(t, 2)
		ans, err := choose(r, "Deploy to?", nil)
		if err != nil || !ans.Approved || !ans.Typed || len(ans.Values) != 1 || ans.Values[0] != "mine" || runs() != 3 {
			t.Fatalf("answer %+v, %v after %d runs; want mine after 3", ans, err, runs())
		}
	})
	t.Run("always dies", func(t *testing.T) {
		runs := scriptedOther(t, 100)
		own, err := askOwn(r, "Deploy to?", nil, time.Hour)
		if err == nil || own.Approved || !strings.Contains(err.Error(), "4 times") || runs() != ownRestarts+1 {
			t.Fatalf("answer %+v, %v after %d runs; want an error after %d", own, err, runs(), ownRestarts+1)
		}
	})
	t.Run("cancelled by a person", func(t *testing.T) {
		runs := scriptedOther(t, 1)
		own, err := askOwn(r, "Deploy to?", nil, 0)
		if !errors.Is(err, zenity.ErrCanceled) || own.Approved || runs() != 1 {
			t.Fatalf("answer %+v, %v after %d runs; want a Cancel after one", own, err, runs())
		}
	})
}
