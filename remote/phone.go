package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/platform"
)

// Program is the program that talks to the ntfy server: an HTTPS client
// that the other programs do not link, since its libraries
// (net/http, crypto/tls) would cost every start of ask-confirm, a
// remembered answer's included, about 0.3 ms (docs/performance.md). It is
// installed beside them. Backend and Verify run it; it reads what to do on
// stdin, never in its arguments, so the tokens stay out of the process
// list.
const Program = "ask-confirm-phone"

// ProgramManual is Program's description in its man page (scripts/docgen).
const ProgramManual = Program + ` reaches the phone's ntfy server for the other ask-confirm programs, which
run it when a request is asked on the phone, or a setup checked (ask-confirm remote
setup, remote test, doctor). People do not run it themselves. It keeps the HTTPS
client out of the programs that answer every question, so that a remembered answer
stays fast.

ask: reads the request as JSON on stdin, publishes it to the request topic, and
reports each reply on the reply topic as JSON on stdout until one carries the
request's capability; then, once told how the request ended, sends the phone a
follow-up.

verify: reads a setup as JSON on stdin and writes what it found of the server's
access rules.

The tokens come on stdin, never as arguments, so they never show in the process list.`

// ErrNoProgram is the error of a phone asked or checked where Program is
// neither beside this program nor on PATH.
var ErrNoProgram = errors.New(Program + ", which reaches the ntfy server, is neither beside this program nor on PATH; it is installed with the others (scripts/run, go install, the release archives and the .deb)")

// The lines of Program's ask: AskStart first, then AskEnd once the request
// has ended (or stdin's end, if the caller died); it writes AskEvent lines.
type (
	// AskStart is the request to put on the phone, and when it closes.
	AskStart struct {
		Config  Config         `json:"config"`
		Request dialog.Request `json:"request"`
		Closes  time.Time      `json:"closes"`
	}
	// AskEnd says the request ended; Closed is how, for the phone's
	// follow-up ("Approved in the dialog"), when the ending said so.
	AskEnd struct {
		Closed string `json:"closed,omitempty"`
	}
	// AskEvent is a reply that answered nothing (Ignored), or the outcome
	// (Done: the Answer, or the Error), or that the follow-ups are sent
	// (Finished).
	AskEvent struct {
		Ignored  string         `json:"ignored,omitempty"`
		Done     bool           `json:"done,omitempty"`
		Answer   *dialog.Answer `json:"answer,omitempty"`
		Error    string         `json:"error,omitempty"`
		Finished bool           `json:"finished,omitempty"`
	}
	// VerifyArgs is what Program's verify reads: the setup, and whether
	// to check writes too (Verify).
	VerifyArgs struct {
		Config Config `json:"config"`
		Writes bool   `json:"writes"`
	}
)

// Backend asks the person on their phone, through Program: it publishes
// the request with one button per answer to Config.Topic and waits on
// Config.ReplyTopic for a tap whose capability is one of this request's.
// It implements dialog.Backend for what fits on the phone's buttons
// (Fits), and dialog.Finisher: the phone is told what became of the
// request once Ask's context ends, after Ask returned. One Backend asks
// one request at a time.
type Backend struct {
	Config Config
	// Ignored is told about each reply that answered nothing, and why. Nil
	// ignores them silently. It must not block.
	Ignored func(reason string)
	// Program is the path of the program to run; empty finds Program
	// (platform.Program).
	Program string

	mu sync.Mutex
	// finished is closed when the program has sent its follow-ups and
	// ended (Finish); nil before Ask started it. kill ends it.
	finished chan struct{}
	kill     func()
}

// Ask implements dialog.Backend: it runs Program, which subscribes to the
// reply topic before it publishes, so that no tap is missed, and returns
// the first reply that carries one of this request's capabilities. When
// ctx ends first, it returns ctx's error, and the program tells the phone
// what became of the request: ctx's cause if it is a *dialog.Closed
// ("Approved in the dialog at 14:05"), else that it closed.
func (b *Backend) Ask(ctx context.Context, r dialog.Request) (dialog.Answer, error) {
	if err := Fits(r); err != nil {
		return dialog.Answer{}, err
	}
	if err := b.Config.Check(); err != nil {
		return dialog.Answer{}, err
	}
	closes, _ := ctx.Deadline()
	events, send, err := b.start("ask", AskStart{Config: b.Config, Request: r, Closes: closes})
	if err != nil {
		return dialog.Answer{}, err
	}
	outcome := make(chan AskEvent, 1)
	finished := b.ended()
	go func() {
		defer close(finished)
		done := false
		for ev := range events {
			switch {
			case ev.Ignored != "" && !done && b.Ignored != nil:
				b.Ignored(ev.Ignored)
			case ev.Done && !done:
				done = true
				outcome <- ev
			}
		}
		if !done {
			outcome <- AskEvent{Done: true, Error: Program + " ended without an answer"}
		}
	}()
	go func() {
		<-ctx.Done()
		var closed *dialog.Closed
		end := AskEnd{}
		if errors.As(context.Cause(ctx), &closed) {
			end.Closed = closed.What
		}
		send(end)
	}()
	select {
	case ev := <-outcome:
		switch {
		case ctx.Err() != nil:
			return dialog.Answer{}, ctx.Err()
		case ev.Error != "":
			return dialog.Answer{}, errors.New(ev.Error)
		case ev.Answer == nil:
			return dialog.Answer{}, errors.New(Program + " gave no answer")
		}
		return *ev.Answer, nil
	case <-ctx.Done():
		return dialog.Answer{}, ctx.Err()
	}
}

// Finish implements dialog.Finisher: it waits until the program has sent
// the follow-ups and ended, or ctx ends, and then ends it.
func (b *Backend) Finish(ctx context.Context) {
	b.mu.Lock()
	finished, kill := b.finished, b.kill
	b.mu.Unlock()
	if finished == nil {
		return
	}
	select {
	case <-finished:
	case <-ctx.Done():
	}
	kill()
}

// ended is the channel Ask closes once the program it started has ended.
func (b *Backend) ended() chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.finished
}

// start runs the program with cmd and first, and returns its events, and
// a function that writes a line to it (once the program has ended, it
// does nothing).
func (b *Backend) start(cmd string, first any) (<-chan AskEvent, func(any), error) {
	c, stdin, stdout, err := run(b.Program, cmd, first)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	send := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = json.NewEncoder(stdin).Encode(v)
	}
	b.mu.Lock()
	b.finished = make(chan struct{})
	b.kill = func() {
		mu.Lock()
		stdin.Close()
		mu.Unlock()
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	b.mu.Unlock()
	events := make(chan AskEvent)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var ev AskEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
	}()
	return events, send, nil
}

// run starts the program at path (Program where empty) with cmd, writes
// first to its stdin as a line of JSON, and returns it with its stdin
// still open and its stdout. Its stderr is this process's.
func run(path, cmd string, first any) (*exec.Cmd, io.WriteCloser, io.Reader, error) {
	if path == "" {
		var ok bool
		if path, ok = platform.Program(Program); !ok {
			return nil, nil, nil, ErrNoProgram
		}
	}
	c := exec.Command(path, cmd)
	stdin, err := c.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.Start(); err != nil {
		return nil, nil, nil, fmt.Errorf("running %s: %w", path, err)
	}
	if err := json.NewEncoder(stdin).Encode(first); err != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
		return nil, nil, nil, fmt.Errorf("running %s: %w", path, err)
	}
	return c, stdin, stdout, nil
}

// Verify checks a setup against its server, through Program, as the phone
// and the holder will use it: the server answers; the asking token reads
// the reply topic and not the request topic; the answer token reads
// neither topic; anonymous reads neither. With writes, it also checks that
// the asking token publishes to the request topic and the answer token
// writes the reply topic, and that neither anonymous nor the answer token
// can publish a request: the request topic then gets one line saying the
// setup was checked, and the reply topic lines no request answers to.
// program is the path of the program; empty finds Program.
func Verify(ctx context.Context, c Config, program string, writes bool) []Finding {
	failed := func(err error) []Finding {
		return []Finding{{What: "the server answers", Detail: err.Error()}}
	}
	cmd, stdin, stdout, err := run(program, "verify", VerifyArgs{Config: c, Writes: writes})
	if err != nil {
		return failed(err)
	}
	stdin.Close()
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	var out []Finding
	err = json.NewDecoder(stdout).Decode(&out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return failed(fmt.Errorf("%s: %w", Program, err))
	}
	return out
}
