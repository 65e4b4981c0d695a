// Package askpass is ask-confirm's OpenSSH front end, the program
// ask-confirm-askpass: OpenSSH runs it as SSH_ASKPASS with its prompt as
// the only argument and SSH_ASKPASS_PROMPT in the environment (readpass.c).
//
//   - SSH_ASKPASS_PROMPT=confirm (ssh-add -c keys, ControlMaster ask,
//     AddKeysToAgent ask): the prompt is asked as a request of the engine,
//     in a dialog with Allow and Deny. Allow exits 0 with nothing on
//     stdout, which OpenSSH reads as yes; anything else exits non-zero.
//   - SSH_ASKPASS_PROMPT=none (a notice such as "Confirm user presence for
//     key …"): the prompt is shown in a window with no buttons until
//     OpenSSH ends the program with SIGTERM.
//   - No hint: OpenSSH asks for a passphrase. ask-confirm never reads
//     secrets, so it refuses at once: the passphrase prompt fails (ssh-add
//     adds nothing; ssh goes on to its next authentication method).
//
// It translates and nothing more: the lifecycle is the engine's.
package askpass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
)

// Main answers OpenSSH's prompt in os.Args and returns the exit code
// OpenSSH reads. A process the engine started from this program to hold a
// dialog (lifecycle.HolderMain) holds it instead.
func Main() int {
	if code, ok := lifecycle.HolderMain(os.Args[1:], lifecycle.Config{}); ok {
		return code
	}
	// OpenSSH ends a notice with SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	p := program{getenv: os.Getenv, stderr: os.Stderr, notice: dialog.Notice, detect: platform.Detect, asker: parent}
	return p.run(ctx, os.Args[1:])
}

// program is one run of ask-confirm-askpass: what it reads of the
// environment, where it reports, and how it asks. Main makes the real one;
// tests make theirs.
type program struct {
	config lifecycle.Config
	getenv func(string) string
	stderr io.Writer
	notice func(ctx context.Context, title, text string) error
	detect func() platform.Session
	// asker names who asks, for the dialog's origin line: the program that
	// ran this one, and the directory it ran it in.
	asker func() (who, dir string)
}

// parent is who asks when OpenSSH runs this program: its parent process
// (ssh-agent for the use of a key added with ssh-add -c, ssh for
// ControlMaster ask), as the system names it, and that process's working
// directory, which this one starts in. ssh-agent started by eval
// "$(ssh-agent)" works in /, and the line says so: it is the truth, and
// "ssh-agent" is what the person needs to read.
func parent() (who, dir string) {
	dir, err := os.Getwd()
	if err != nil {
		dir = unknownDir
	}
	return platform.ProcessName(os.Getppid()), dir
}

// The hints OpenSSH gives in SSH_ASKPASS_PROMPT.
const (
	hintEnv     = "SSH_ASKPASS_PROMPT"
	hintConfirm = "confirm"
	hintNone    = "none"
)

// Settings a person may give in the environment OpenSSH runs the program
// with; OpenSSH passes no arguments but the prompt.
const (
	rememberEnv = "ASK_CONFIRM_ASKPASS_REMEMBER"
	timeoutEnv  = "ASK_CONFIRM_ASKPASS_TIMEOUT"
)

// defaultTimeout is how long a confirmation stays open: ssh-agent serves
// no other client while it waits for the answer, and a key use is
// confirmed within seconds by someone who is there.
const defaultTimeout = 2 * time.Minute

// title is the window title of every request.
const title = "SSH"

func (p program) run(ctx context.Context, args []string) int {
	if len(args) != 1 {
		return p.fail(lifecycle.ExitUsage, errors.New(msgUsage))
	}
	switch hint := p.getenv(hintEnv); hint {
	case hintConfirm:
		return p.confirm(ctx, args[0])
	case hintNone:
		return p.show(ctx, args[0])
	case "":
		return p.fail(lifecycle.ExitUsage, errors.New(msgSecret))
	default:
		return p.fail(lifecycle.ExitUsage, fmt.Errorf(msgUnknownHint, hintEnv, hint))
	}
}

// confirm asks the prompt as a request of the engine. Each key use is
// asked anew unless the person set a remember window: a remembered or
// uncollected answer would approve the next use of the key unseen. The
// program waits as long as the dialog stays open, as ssh-agent does.
func (p program) confirm(ctx context.Context, prompt string) int {
	c, err := p.call(prompt)
	if err != nil {
		return p.fail(lifecycle.ExitUsage, err)
	}
	cfg := p.config
	cfg.Warn = func(err error) { fmt.Fprintf(p.stderr, msgWarning+"\n", err) }
	r, err := lifecycle.New(cfg).Ask(ctx, c)
	if err != nil {
		return p.fail(lifecycle.ExitUsage, err)
	}
	if r.Warning != "" {
		fmt.Fprintf(p.stderr, msgWarning+"\n", r.Warning)
	}
	if r.ExitCode == lifecycle.ExitApproved {
		// Nothing on stdout: OpenSSH reads an empty answer as yes.
		return int(lifecycle.ExitApproved)
	}
	if r.Status == lifecycle.StatusExpired {
		// The engine's words name --timeout, which this program does not
		// have.
		r.Message = fmt.Sprintf(msgExpired, dialog.ShortDuration(c.Timeout), timeoutEnv)
	}
	return p.fail(r.ExitCode, errors.New(r.Message))
}

// call is the request a confirmation prompt asks.
func (p program) call(prompt string) (lifecycle.Call, error) {
	c := lifecycle.DefaultCall()
	c.Request = dialog.Request{
		Title:       title,
		Message:     dialog.Literal(prompt, true),
		OKLabel:     "Allow",
		CancelLabel: "Deny",
		Icon:        "question",
		// The agent's working directory says nothing about the request.
		Scope: "ssh-askpass",
	}
	// Who asks: the origin line every dialog has, "Asked by ssh-agent in
	// /". It is no part of the identity: the same prompt from ssh is the
	// same request.
	who, dir := p.asker()
	home, _ := os.UserHomeDir()
	c.Request.Origin = dialog.Origin(who, dir, home)
	c.Remember, c.CollectWithin, c.Timeout = 0, 0, defaultTimeout
	// A key's use is its owner's to confirm, however many people are set
	// up to approve other questions.
	c.OnePerson = true
	for _, s := range []struct {
		env string
		d   *time.Duration
	}{{rememberEnv, &c.Remember}, {timeoutEnv, &c.Timeout}} {
		if v := p.getenv(s.env); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return c, fmt.Errorf(msgBadDuration, s.env, v)
			}
			*s.d = d
		}
	}
	// Until the dialog's own deadline and past it, so that the answer, or
	// its expiry, is what the program reports: never "pending".
	c.Wait, c.UntilEnd = 0, true
	if err := c.Validate(); err != nil {
		var ie *dialog.InvalidError
		if errors.As(err, &ie) {
			switch ie.Field {
			case "--remember":
				ie.Field = rememberEnv
			case "--timeout":
				ie.Field = timeoutEnv
			case "--message":
				ie.Field = "the prompt"
			}
		}
		return c, err
	}
	return c, nil
}

// show shows a notice until OpenSSH ends the program (ctx) or the person
// closes the window. It asks nothing, so nothing is stored.
func (p program) show(ctx context.Context, prompt string) int {
	if s := p.detect(); !s.CanAsk {
		if s.NoBackend() {
			// A display with no dialog program: the notice cannot be
			// shown, as a confirmation's dialog could not (exit 6).
			return p.fail(lifecycle.ExitFailed, fmt.Errorf(msgHeadless, s.Reason))
		}
		return p.fail(lifecycle.ExitHeadless, fmt.Errorf(msgHeadless, s.Reason))
	}
	if err := p.notice(ctx, title, prompt); err != nil {
		return p.fail(lifecycle.ExitFailed, fmt.Errorf(msgNoticeFailed, err))
	}
	return int(lifecycle.ExitApproved)
}

// fail reports err on one line of stderr and returns code.
func (p program) fail(code lifecycle.ExitCode, err error) int {
	fmt.Fprintf(p.stderr, msgError+"\n", lifecycle.OneLine(err.Error()))
	return int(code)
}
