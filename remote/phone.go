package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
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

hub: started by ask, detached, once per setup and machine: reads the setup as JSON on
stdin, holds the one stream of the reply topic and relays it to every ask of the
machine, and carries their publishes and polls to the server over one connection, through
unix sockets in a directory of the user's alone (ask-confirm under $XDG_RUNTIME_DIR, or
else ask-confirm-UID in the temporary directory). It matches nothing: each ask checks
every reply itself, and reaches the server itself where the hub is gone. It exits 30 s
after its last ask.

version (or --version): prints the version as ask-confirm version does.

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
		// CollectWithin and Remember are how long after its tap the
		// fleet's answer to the same question is collected
		// (Backend.CollectWithin).
		CollectWithin time.Duration `json:"collect_within,omitempty"`
		Remember      time.Duration `json:"remember,omitempty"`
	}
	// AskEnd says the request ended; Closed is how, for the phone's
	// follow-up ("Approved in the dialog"), when the ending said so;
	// Status and Answer are the outcome (dialog.Closed), which the
	// fleet's other machines are told.
	//
	// A line with Vote alone is no end: it is a vote given on this
	// machine (Backend.Vote), and more lines follow.
	AskEnd struct {
		Vote   *dialog.Vote   `json:"vote,omitempty"`
		Closed string         `json:"closed,omitempty"`
		Status string         `json:"status,omitempty"`
		Answer *dialog.Answer `json:"answer,omitempty"`
	}
	// AskEvent says that the request reached the server (Sent), or is a
	// reply that answered nothing (Ignored), or the outcome (Done: the
	// Answer, or the Error, or that the fleet Ended the request), or a
	// follow-up that could not be sent (Lost), or that the follow-ups are
	// sent (Finished), or a person's vote on a request of several
	// approvers (Vote), before the outcome.
	AskEvent struct {
		Sent     bool           `json:"sent,omitempty"`
		Vote     *dialog.Vote   `json:"vote,omitempty"`
		Ignored  string         `json:"ignored,omitempty"`
		Lost     string         `json:"lost,omitempty"`
		Done     bool           `json:"done,omitempty"`
		Answer   *dialog.Answer `json:"answer,omitempty"`
		Error    string         `json:"error,omitempty"`
		Ended    string         `json:"ended,omitempty"`
		Finished bool           `json:"finished,omitempty"`
	}
	// VerifyArgs is what Program's verify reads: the setup, and whether
	// to check writes too (Verify), and, for a setup with a fleet's
	// secret, whether it may start a new fleet on topics that another
	// one already uses (VerifySetup). Person, where set, names the one
	// person of the setup whose topic alone is checked (remote approver
	// add), beside the server's answer.
	VerifyArgs struct {
		Config   Config `json:"config"`
		Writes   bool   `json:"writes"`
		NewFleet bool   `json:"new_fleet,omitempty"`
		Person   string `json:"person,omitempty"`
	}
)

// Ways a fleet ends a request without an answer (EndedError.Status): an
// ask-confirm cancel, or a newer question under the same key, on any
// machine of the fleet.
const (
	EndedCancelled  = "cancelled"
	EndedSuperseded = "superseded"
)

// EndedError is returned by Ask when the fleet ended the request on
// another machine: it was cancelled there (Status EndedCancelled), or
// superseded by a newer question under the same key (EndedSuperseded).
type EndedError struct{ Status string }

func (e *EndedError) Error() string {
	if e.Status == EndedSuperseded {
		return "the request was replaced by a newer one on another machine of the fleet"
	}
	return "the request was " + e.Status + " on another machine of the fleet"
}

// Backend asks the person on their phone, through Program: it publishes
// the request with one button per answer to Config.Topic and waits on
// Config.ReplyTopic for a tap whose capability is one of this request's.
// It implements dialog.Backend for what fits on the phone's buttons
// (Fits), and dialog.Finisher: the phone is told what became of the
// request once Ask's context ends, after Ask returned. One Backend asks
// one request at a time; the engine may ask it again after a quick
// failure, and Finish then waits for every program it ran.
type Backend struct {
	Config Config
	// Ignored is told about each reply that answered nothing, and why,
	// until Ask returns. Nil ignores them silently. It must not block.
	Ignored func(reason string)
	// Lost is told about each follow-up that could not be sent, until
	// Finish returns. Nil ignores them. It must not block.
	Lost func(reason string)
	// Sent is told once the server took the request, so that the phone
	// will show it, while Ask has not returned. Nil ignores it. It must
	// not block.
	Sent func()
	// Voted is told each vote of a request of several approvers, as the
	// person's phone (or the fleet's record) gave it, while Ask has not
	// returned. Nil ignores them. It must not block.
	Voted func(dialog.Vote)
	// Program is the path of the program to run; empty finds Program
	// (platform.Program).
	Program string
	// CollectWithin is how long after its tap an answer the fleet (the
	// machines that share Config.Secret) gave to the same question, and
	// that no machine took yet, is collected where this machine asks it;
	// Remember how long one that a machine took is. Zero collects none,
	// and only joins a request that is still open.
	CollectWithin, Remember time.Duration

	mu   sync.Mutex
	runs []*phoneRun
}

// phoneRun is one run of Program for one Ask.
type phoneRun struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	sendMu   sync.Mutex
	reap     sync.Once
	finished chan struct{} // closed once its output has ended and it is reaped
	returned atomic.Bool   // Ask has returned: no more Ignored
}

// send writes v to the program as a line of JSON; once the program has
// ended, it does nothing.
func (pr *phoneRun) send(v any) {
	pr.sendMu.Lock()
	defer pr.sendMu.Unlock()
	_ = json.NewEncoder(pr.stdin).Encode(v)
}

func (pr *phoneRun) wait() { pr.reap.Do(func() { _ = pr.cmd.Wait() }) }

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
	pr, stdout, err := b.start(AskStart{Config: b.Config, Request: r, Closes: closes, CollectWithin: b.CollectWithin, Remember: b.Remember})
	if err != nil {
		return dialog.Answer{}, err
	}
	defer pr.returned.Store(true)
	outcome := make(chan AskEvent, 1)
	go b.read(pr, stdout, outcome)
	go func() {
		<-ctx.Done()
		var closed *dialog.Closed
		end := AskEnd{}
		if errors.As(context.Cause(ctx), &closed) {
			end.Closed, end.Status, end.Answer = closed.What, closed.Status, closed.Answer
		}
		pr.send(end)
	}()
	select {
	case ev := <-outcome:
		switch {
		case ctx.Err() != nil:
			return dialog.Answer{}, ctx.Err()
		case ev.Ended != "":
			return dialog.Answer{}, &EndedError{Status: ev.Ended}
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

// read passes the program's events on until its output ends: each ignored
// reply to Ignored while Ask has not returned, and the outcome to outcome,
// once; then it reaps the program.
func (b *Backend) read(pr *phoneRun, stdout io.Reader, outcome chan<- AskEvent) {
	defer close(pr.finished)
	defer pr.wait()
	done := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var ev AskEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Ignored != "" && !done && !pr.returned.Load() && b.Ignored != nil:
			b.Ignored(ev.Ignored)
		case ev.Lost != "" && b.Lost != nil:
			b.Lost(ev.Lost)
		case ev.Sent && !done && !pr.returned.Load() && b.Sent != nil:
			b.Sent()
		case ev.Vote != nil && !done && !pr.returned.Load() && b.Voted != nil:
			b.Voted(*ev.Vote)
		case ev.Done && !done:
			done = true
			outcome <- ev
		}
	}
	if !done {
		outcome <- AskEvent{Done: true, Error: Program + " ended without an answer"}
	}
}

// Vote implements dialog.Voter: the vote v, given on this machine by the
// person set up as v.By, goes to the request being asked, which counts it
// as that person's tap, and records it for the fleet. It does nothing
// where no request is being asked.
func (b *Backend) Vote(v dialog.Vote) {
	b.mu.Lock()
	var pr *phoneRun
	if len(b.runs) > 0 {
		pr = b.runs[len(b.runs)-1]
	}
	b.mu.Unlock()
	if pr != nil && !pr.returned.Load() {
		pr.send(AskEnd{Vote: &v})
	}
}

// Finish implements dialog.Finisher: it waits until every program Ask
// ran has sent its follow-ups and ended, or ctx ends, and then ends them.
func (b *Backend) Finish(ctx context.Context) {
	b.mu.Lock()
	runs := b.runs
	b.runs = nil
	b.mu.Unlock()
	for _, pr := range runs {
		select {
		case <-pr.finished:
		case <-ctx.Done():
		}
	}
	for _, pr := range runs {
		_ = pr.cmd.Process.Kill()
		pr.stdin.Close()
		// Bounded: a killed program's output ends.
		<-pr.finished
	}
}

// start runs the program's ask with first, and keeps the run for Finish.
func (b *Backend) start(first AskStart) (*phoneRun, io.Reader, error) {
	c, stdin, stdout, err := run(b.Program, "ask", first)
	if err != nil {
		return nil, nil, err
	}
	pr := &phoneRun{cmd: c, stdin: stdin, finished: make(chan struct{})}
	b.mu.Lock()
	b.runs = append(b.runs, pr)
	b.mu.Unlock()
	return pr, stdout, nil
}

// run starts the program at path (Program where empty) with cmd, writes
// first to its stdin as a line of JSON, and returns it with its stdin
// still open and its stdout. Its stderr is this process's; it never writes
// a token there.
func run(path, cmd string, first any) (*exec.Cmd, io.WriteCloser, io.Reader, error) {
	if path == "" {
		var ok bool
		if path, ok = platform.Program(Program); !ok {
			return nil, nil, nil, ErrNoProgram
		}
	}
	c := exec.Command(path, cmd)
	// The setup comes on stdin; the environment has none (TakeEnv, Environ).
	c.Env = Environ()
	c.Stderr = os.Stderr
	platform.NoConsole(c)
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
// Every person's request topic (Config.People) is checked as the first
// phone's is. program is the path of the program; empty finds Program.
func Verify(ctx context.Context, c Config, program string, writes bool) []Finding {
	return VerifySetup(ctx, VerifyArgs{Config: c, Writes: writes}, program)
}

// VerifySetup is Verify for what remote setup checks: with writes and a
// fleet's secret, also that the asking token writes the reply topic,
// where the fleet keeps its record, and that no other fleet (a setup
// made with another secret) uses the topics, unless args.NewFleet; once
// every check holds, the reply topic gets the fleet's marker, which a
// later setup with another secret notices.
func VerifySetup(ctx context.Context, args VerifyArgs, program string) []Finding {
	failed := func(err error) []Finding {
		return []Finding{{What: Program + " checks the server", Detail: err.Error(), Needed: true}}
	}
	cmd, stdin, stdout, err := run(program, "verify", args)
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
	switch {
	case err != nil:
		return failed(fmt.Errorf("%s: %w", Program, err))
	case len(out) == 0:
		// Every check it makes is a finding: none is no check at all.
		return failed(fmt.Errorf("%s: no findings", Program))
	}
	return out
}
