package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/store"
)

// Service is the confirm command's request lifecycle for a front end that
// serves it to other programs: ask-confirm-mcp, the MCP server. It asks
// through the same store, identity, dialog and history as the command line,
// so a request made through a Service and the same command line are one
// request. It has no --if-headless: without a display a call reports
// headless, and only a person's click approves.
//
// The MCP server lives in its own program because its SDK costs every
// ask-confirm start about 1.3 ms (see issue 5 and README's Performance).
type Service struct {
	a *app
	// base is what every call starts from: the confirm command's defaults,
	// the front end's scope, wait, timeout and remember, and the command's
	// retries.
	base confirmOptions
}

// ServiceOptions are a front end's settings for all its calls.
type ServiceOptions struct {
	Wait     time.Duration // how long one call blocks before it reports pending
	Timeout  time.Duration // how long a dialog stays open unanswered, unless a call gives its own
	Remember time.Duration // how long a received answer is returned again
	// CollectWithin is how long an answer nobody has received yet is kept
	// for the next identical call; below Remember it counts as Remember.
	CollectWithin time.Duration
}

// Defaults are what a call leaves out: the confirm command's defaults and
// the front end's settings.
type Defaults struct {
	Request                 dialog.Request // Title, OKLabel, CancelLabel, Icon and Scope
	Wait, Timeout, Remember time.Duration
	// CollectWithin is the effective bound: never less than Remember.
	CollectWithin time.Duration
}

// NewService checks o as the confirm command checks its flags and takes the
// request defaults from the confirm command, so that a call and a command
// line with the same text are the same request. The default scope is the
// working directory. Warnings go to stderr. An error for o itself satisfies
// IsUsage.
func NewService(o ServiceOptions, stderr io.Writer) (*Service, error) {
	a := newApp()
	a.stderr = stderr
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the working directory for the default scope: %w", err)
	}
	// The confirm command's flag definitions set its defaults.
	var d confirmOptions
	d.define(pflag.NewFlagSet("ask-confirm", pflag.ContinueOnError))
	s := &Service{a: a, base: confirmOptions{
		req: dialog.Request{
			Title:       d.req.Title,
			OKLabel:     d.req.OKLabel,
			CancelLabel: d.req.CancelLabel,
			Icon:        d.req.Icon,
			Scope:       wd,
		},
		wait:          o.Wait,
		timeout:       o.Timeout,
		remember:      o.Remember,
		collectWithin: o.CollectWithin,
		retries:       d.retries,
		ifHeadless:    "fail",
	}}
	// The settings are bounded exactly as a call's options are: check them
	// as part of a call that asks something.
	probe := s.base
	probe.req.Message = "?"
	if err := probe.validate(); err != nil {
		return nil, &usageError{err}
	}
	return s, nil
}

// Defaults returns what a call leaves out.
func (s *Service) Defaults() Defaults {
	return Defaults{Request: s.base.req, Wait: s.base.wait, Timeout: s.base.timeout, Remember: s.base.remember,
		CollectWithin: s.base.reuse().collectWithin}
}

// Confirm asks req as one invocation of the confirm command, with the
// service's wait and remember and the given timeout (Defaults().Timeout
// unless the caller has its own). An empty Scope is the service's. Invalid input is an error wrapping
// dialog.ErrInvalid (a *dialog.InvalidError names the flag, such as
// "--ok-label"); every outcome of the request, pending and internal errors
// included, is a Result. watch, if not nil, follows the wait.
func (s *Service) Confirm(ctx context.Context, req dialog.Request, timeout time.Duration, watch Watcher) (Result, error) {
	o := s.base
	o.req = req
	if o.req.Scope == "" {
		o.req.Scope = s.base.req.Scope
	}
	o.timeout = timeout
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	o.watch = watch
	return s.a.confirm(ctx, &o), nil
}

// Status reports what confirming the request named by key again would give
// now, as ask-confirm status does, and the status the request is stored
// with. key is a --key, an identity or a unique prefix of one; a key that
// names no request is an error satisfying IsUsage.
func (s *Service) Status(key string) (Result, store.Status, error) {
	rec, err := s.a.resolve(key)
	if err != nil {
		return Result{}, "", err
	}
	return s.a.collectable(rec), rec.Status, nil
}

// CancelOutcome says what Cancel did.
type CancelOutcome int

const (
	// Cancelled: the request was open and now ends cancelled.
	Cancelled CancelOutcome = iota
	// AlreadyEnded: the request had ended before; nothing changed.
	AlreadyEnded
	// EndedOtherwise: the request ended some other way (the person
	// answered, or a newer request replaced it) before the cancel landed.
	EndedOtherwise
)

// Cancel closes the open dialog of the request named by key, as ask-confirm
// cancel does: the request can only end as a denial. It returns the
// request's outcome afterwards and, for AlreadyEnded, the status it had
// ended with. A key that names no request is an error satisfying IsUsage;
// a failure to cancel is a Result with ExitInternal, never an answer.
func (s *Service) Cancel(key string) (Result, CancelOutcome, store.Status, error) {
	rec, err := s.a.resolve(key)
	if err != nil {
		return Result{}, 0, "", err
	}
	if rec.Status.Final() {
		return s.a.collectable(rec), AlreadyEnded, rec.Status, nil
	}
	if err := s.a.closeRequest(rec, store.Cancelled, s.a.paths.LockFile(rec.Identity)); err != nil {
		return errorResult(rec.Identity, ExitInternal, fmt.Errorf("cancelling %s: %w", rec.Identity[:12], err)), Cancelled, "", nil
	}
	now, found, err := s.a.store.Get(rec.Identity)
	if err != nil {
		return s.a.storeError(rec.Identity, err), Cancelled, "", nil
	}
	if !found {
		return errorResult(rec.Identity, ExitInternal, errors.New("the request disappeared from the store while it was being cancelled")), Cancelled, "", nil
	}
	if now.Status != store.Cancelled || now.ContentHash != rec.ContentHash {
		return fromRecord(now, false), EndedOtherwise, "", nil
	}
	return fromRecord(now, false), Cancelled, "", nil
}

// Warn reports a problem on the service's stderr, as ask-confirm does.
func (s *Service) Warn(err error) { s.a.warn(err) }

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.a.now() }

// IsUsage reports whether err is a mistake in what was asked (a flag, an
// argument, a key naming no request) rather than a failure.
func IsUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue) || errors.Is(err, dialog.ErrInvalid)
}

// HoldCommand is the hidden command that shows a request's dialog in the
// detached holder process. A program that asks through a Service starts its
// holders as itself, so it must offer this command under its root.
func HoldCommand() *cobra.Command { return newHoldCommand(newApp()) }

// Execute runs root, a front end's command tree, with args and returns the
// exit code, printing errors as ask-confirm does.
func Execute(root *cobra.Command, args []string) int {
	root.SilenceErrors, root.SilenceUsage = true, true
	a := newApp()
	_, err := a.run(root, args)
	return a.exit(args, err)
}

// Version is the module version ask-confirm was built from.
func Version() string { return moduleVersion() }

// DefaultCollectWithin is the confirm command's --collect-within.
const DefaultCollectWithin = defaultCollectWithin

// MaxTimeout is the longest --timeout.
const MaxTimeout = maxTimeout

// Usage marks err as a mistake in the command line: it exits 2 and prints
// the --help hint.
func Usage(err error) error { return &usageError{err} }
