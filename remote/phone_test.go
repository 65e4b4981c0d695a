package remote

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
)

// fakePhoneEnv makes this test binary a scripted ask-confirm-phone: the
// client side of the protocol is tested here, the ntfy side in
// remote/ntfy with the real server.
const fakePhoneEnv = "ASK_CONFIRM_TEST_FAKE_PHONE"

func TestMain(m *testing.M) {
	if out := os.Getenv(fakePhoneEnv); out != "" {
		os.Exit(fakePhone(out))
	}
	os.Exit(m.Run())
}

// fakePhone plays ask-confirm-phone by the request's title: "approve"
// answers at once, "wait" only ends when told, "fail" reports an error,
// "crash" exits without a word. It writes how the request ended, as told,
// to the file out.
func fakePhone(out string) int {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	if os.Args[1] == "verify" {
		var args VerifyArgs
		if dec.Decode(&args) != nil {
			return 2
		}
		enc.Encode([]Finding{{What: "checked " + args.Config.Topic, OK: args.Writes}})
		return 0
	}
	var start AskStart
	if dec.Decode(&start) != nil {
		return 2
	}
	enc.Encode(AskEvent{Ignored: "a reply without an ask-confirm capability"})
	switch start.Request.Title {
	case "approve":
		enc.Encode(AskEvent{Done: true, Answer: &dialog.Answer{Approved: true}})
	case "fail":
		enc.Encode(AskEvent{Done: true, Error: "the ntfy server refused the subscription"})
	case "cancelled":
		enc.Encode(AskEvent{Done: true, Ended: EndedCancelled})
	case "crash":
		return 3
	}
	var end AskEnd
	err := dec.Decode(&end)
	// Told after the outcome: the caller reports it no more.
	enc.Encode(AskEvent{Ignored: "late"})
	os.WriteFile(out, []byte(start.Closes.UTC().Format(time.RFC3339)+"|"+end.Closed+"|"+errString(err)), 0o600)
	outcome, _ := json.Marshal(end)
	os.WriteFile(out+".outcome", outcome, 0o600)
	enc.Encode(AskEvent{Finished: true})
	return 0
}

func errString(err error) string {
	if err != nil {
		return err.Error()
	}
	return ""
}

// fakeBackend is a Backend whose program is the scripted phone, and the
// file it writes how the request ended to.
func fakeBackend(t *testing.T) (*Backend, *[]string, string) {
	t.Helper()
	out := t.TempDir() + "/end"
	t.Setenv(fakePhoneEnv, out)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ignored []string
	b := &Backend{Config: good, Program: exe, Ignored: func(r string) { mu.Lock(); ignored = append(ignored, r); mu.Unlock() }}
	// Every program a test started ends before its directory is removed:
	// one still writing how its request ended would leave the directory
	// not empty. Cleanups run last first, so this runs before TempDir's.
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		b.Finish(ctx)
	})
	return b, &ignored, out
}

var good = Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker", AnswerToken: "tk_answer"}

func question(title string) dialog.Request {
	return dialog.Request{Kind: dialog.Confirm, Title: title, Message: "Ship it?", OKLabel: "Approve", CancelLabel: "Cancel"}
}

// The program's answer is Ask's, the replies it ignored before it are
// reported, and once the request ends the program is told how (for the
// phone's follow-up) and Finish waits for it.
func TestBackendAnswersThroughTheProgram(t *testing.T) {
	b, ignored, out := fakeBackend(t)
	// A deadline is a time on the clock the context runs by: an hour
	// from whenever the test runs, never a date written here.
	closes := time.Now().Add(time.Hour)
	ctx, stop := context.WithDeadline(context.Background(), closes)
	defer stop()
	ctx, end := context.WithCancelCause(ctx)
	ans, err := b.Ask(ctx, question("approve"))
	if err != nil || !ans.Approved {
		t.Fatalf("Ask: %+v, %v; want an approval", ans, err)
	}
	end(&dialog.Closed{What: "Approved on the phone"})
	finish, stopFinish := context.WithTimeout(context.Background(), 10*time.Second)
	defer stopFinish()
	b.Finish(finish)
	if finish.Err() != nil {
		t.Fatal("Finish waited out its context: the program did not end")
	}
	got, _ := os.ReadFile(out)
	if want := closes.UTC().Format(time.RFC3339) + "|Approved on the phone|"; string(got) != want {
		t.Errorf("the program was told %q, want %q", got, want)
	}
	if len(*ignored) != 1 || (*ignored)[0] != "a reply without an ask-confirm capability" {
		t.Errorf("ignored replies reported: %q", *ignored)
	}
}

// Whatever goes wrong on the program's side is an error, never an answer:
// its own error, its exit without a word, its absence; a request the
// phone cannot take is refused before any program runs.
func TestBackendFailuresAreNoAnswer(t *testing.T) {
	b, _, _ := fakeBackend(t)
	for _, title := range []string{"fail", "crash"} {
		ctx, end := context.WithCancel(context.Background())
		ans, err := b.Ask(ctx, question(title))
		if err == nil || ans.Approved {
			t.Errorf("%s: %+v, %v; want an error", title, ans, err)
		}
		if title == "fail" && (err == nil || !strings.Contains(err.Error(), "refused the subscription")) {
			t.Errorf("the program's error reads %v", err)
		}
		// The engine ends every way, then waits for it to finish.
		end()
		b.Finish(context.Background())
	}

	missing := &Backend{Config: good}
	t.Setenv("PATH", t.TempDir())
	if _, err := missing.Ask(context.Background(), question("approve")); !errors.Is(err, ErrNoProgram) {
		t.Errorf("with no %s: %v, want ErrNoProgram", Program, err)
	}
	input := question("approve")
	input.Kind = dialog.Input
	if _, err := b.Ask(context.Background(), input); !errors.Is(err, ErrNotForPhone) {
		t.Errorf("an input: %v, want ErrNotForPhone", err)
	}
	if f := Verify(context.Background(), good, "", true); len(f) != 1 || f[0].OK || !strings.Contains(f[0].Detail, Program) {
		t.Errorf("Verify with no %s: %+v", Program, f)
	}
}

// The engine asks a way again after a quick failure, on the same Backend:
// Finish waits for, and reaps, every program it ran.
func TestBackendFinishesEveryRun(t *testing.T) {
	b, _, _ := fakeBackend(t)
	ctx, end := context.WithCancel(context.Background())
	for range 3 {
		if _, err := b.Ask(ctx, question("fail")); err == nil {
			t.Fatal("Ask: no error")
		}
	}
	b.mu.Lock()
	runs := append([]*phoneRun(nil), b.runs...)
	b.mu.Unlock()
	if len(runs) != 3 {
		t.Fatalf("%d runs kept, want 3", len(runs))
	}
	end()
	finish, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	b.Finish(finish)
	for i, pr := range runs {
		if pr.cmd.ProcessState == nil {
			t.Errorf("run %d was not reaped", i)
		}
	}
	if finish.Err() != nil {
		t.Error("Finish waited out its context: a program did not end when told")
	}
}

// When the request ends first, Ask returns its context's error at once,
// and the program is told that the request closed.
func TestBackendEndedFirst(t *testing.T) {
	b, _, out := fakeBackend(t)
	ctx, end := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		end(&dialog.Closed{What: "Denied in the dialog"})
	}()
	if _, err := b.Ask(ctx, question("wait")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask: %v, want context.Canceled", err)
	}
	b.Finish(context.Background())
	if got, _ := os.ReadFile(out); !strings.Contains(string(got), "|Denied in the dialog|") {
		t.Errorf("the program was told %q", got)
	}
}

// The program is told the outcome too, for the fleet's other machines:
// the status, and an answer given by another way; and a request the
// fleet ended on another machine is Ask's EndedError, not a failure.
func TestBackendOutcomeAndTheFleetsEnd(t *testing.T) {
	b, _, out := fakeBackend(t)
	ctx, end := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		end(&dialog.Closed{What: "Already approved on the terminal", Status: "approved", Answer: &dialog.Answer{Approved: true, Values: []string{"blue"}}})
	}()
	if _, err := b.Ask(ctx, question("wait")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask: %v, want context.Canceled", err)
	}
	b.Finish(context.Background())
	got, _ := os.ReadFile(out + ".outcome")
	var told AskEnd
	if err := json.Unmarshal(got, &told); err != nil || told.Status != "approved" || told.Answer == nil || !told.Answer.Approved || len(told.Answer.Values) != 1 {
		t.Fatalf("the program was told %s", got)
	}

	ctx, end = context.WithCancelCause(context.Background())
	defer end(nil)
	_, err := b.Ask(ctx, question("cancelled"))
	var ended *EndedError
	if !errors.As(err, &ended) || ended.Status != EndedCancelled {
		t.Fatalf("Ask: %v, want the fleet's cancel", err)
	}
}

// Verify hands the setup to the program and returns its findings.
func TestVerifyThroughTheProgram(t *testing.T) {
	b, _, _ := fakeBackend(t)
	f := Verify(context.Background(), good, b.Program, true)
	if len(f) != 1 || f[0].What != "checked ask-requests" || !f[0].OK {
		t.Errorf("findings %+v", f)
	}
}
