package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skip2/go-qrcode"
	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

func newRemoteCommand(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "remote",
		Short: "Set up, test or remove the phone as a way of asking (ntfy)",
		Args:  usageArgs(cobra.NoArgs),
	}
	c.AddCommand(newRemoteSetupCommand(a), newRemoteApproverCommand(a), newRemoteExportCommand(a), newRemoteTestCommand(a), newRemoteModeCommand(a), newRemoteOffCommand(a))
	return c
}

// remoteSetupOptions are the flags of ask-confirm remote setup.
type remoteSetupOptions struct {
	server, topic, replyTopic  string
	tokenFile, answerTokenFile string
	mode                       string
	name                       string
	newFleet                   bool
}

// modeHelp describes the modes, for the flags that take one.
const modeHelp = "off, also, fallback or only"

func newRemoteSetupCommand(a *app) *cobra.Command {
	var o remoteSetupOptions
	c := &cobra.Command{
		Use:   "setup --server URL --topic TOPIC --reply-topic TOPIC --token-file F --answer-token-file F",
		Short: "Record the ntfy server, topics and tokens the phone is asked through, after checking them",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := o.settings(c.InOrStdin())
			if err != nil {
				return err
			}
			return a.setUpRemote(c.Context(), s, o.newFleet)
		},
	}
	f := c.Flags()
	f.StringVar(&o.server, "server", "", "the ntfy server's URL: https, or http to a loopback IP; no user:password")
	f.StringVar(&o.topic, "topic", "", "the topic requests go to; the phone subscribes to it")
	f.StringVar(&o.replyTopic, "reply-topic", "", "the topic the phone's buttons answer on")
	f.StringVar(&o.tokenFile, "token-file", "", "file with the asking side's token (- for standard input)")
	f.StringVar(&o.answerTokenFile, "answer-token-file", "", "file with the token the buttons carry (- for standard input)")
	f.StringVar(&o.mode, "mode", remote.ModeFallback, "phone mode unless --remote says: "+modeHelp)
	f.StringVar(&o.name, "name", "", "the person whose phone reads --topic (default: as recorded, else the local user)")
	f.BoolVar(&o.newFleet, "new-fleet", false, "start a new fleet even where another setup uses these topics")
	return c
}

func newRemoteExportCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Print the phone's setup for another machine of the fleet (its remote.json or " + remote.SetupEnv + ")",
		Long:  msgRemoteExportLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := remote.Load(a.remoteFile)
			if err != nil {
				return a.remoteMissing(err)
			}
			if s.Secret == "" {
				a.out.warn(errors.New(msgRemoteExportNoSecret))
			}
			out, err := remote.Export(s)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, out)
			return err
		},
	}
}

func newRemoteModeCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "mode [" + strings.Join(remote.Modes, "|") + "]",
		Short: "Show or change when the phone is asked by default",
		Long:  "Show or change when the phone is asked where --remote does not say. " + modeHelp + ".",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := remote.Load(a.remoteFile)
			if err != nil {
				return a.remoteMissing(err)
			}
			if len(args) == 1 && remote.FromEnv() {
				// Saving it would write the variable's setup, tokens and
				// secret, into a file nobody asked for.
				return lifecycle.Usage(errors.New(msgRemoteModeFromEnv))
			}
			if len(args) == 1 {
				s.Mode = args[0]
				if err := s.Check(); err != nil {
					return lifecycle.Usage(err)
				}
				if err := remote.Save(a.remoteFile, s); err != nil {
					return fmt.Errorf(msgRemoteSave, err)
				}
			}
			_, err = fmt.Fprintln(a.stdout, s.Mode)
			return err
		},
	}
}

// settings reads the tokens, from files or standard input, never from the
// command line, and returns what the flags describe.
func (o remoteSetupOptions) settings(stdin io.Reader) (remote.Settings, error) {
	for _, f := range []struct{ name, value string }{{"--server", o.server}, {"--topic", o.topic}, {"--reply-topic", o.replyTopic}, {"--token-file", o.tokenFile}, {"--answer-token-file", o.answerTokenFile}} {
		if f.value == "" {
			return remote.Settings{}, lifecycle.Usage(fmt.Errorf(msgRemoteFlagMissing, f.name))
		}
	}
	if o.tokenFile == "-" && o.answerTokenFile == "-" {
		return remote.Settings{}, lifecycle.Usage(errors.New(msgRemoteOneStdin))
	}
	token, err := readToken(stdin, o.tokenFile)
	if err != nil {
		return remote.Settings{}, err
	}
	answer, err := readToken(stdin, o.answerTokenFile)
	if err != nil {
		return remote.Settings{}, err
	}
	if o.name != "" {
		if err := remote.CheckName(o.name); err != nil {
			return remote.Settings{}, lifecycle.Usage(fmt.Errorf("--name: %w", err))
		}
	}
	s := remote.Settings{Config: remote.Config{Server: o.server, Topic: o.topic, ReplyTopic: o.replyTopic, Token: token, AnswerToken: answer, Name: o.name}, Mode: o.mode}
	if err := s.Check(); err != nil {
		return remote.Settings{}, lifecycle.Usage(err)
	}
	return s, nil
}

// readToken reads one token from file, or from standard input for "-": the
// first line, without surrounding space.
func readToken(stdin io.Reader, file string) (string, error) {
	in := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenRead, file, err))
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenRead, file, err))
		}
		if err := remote.PrivateFile(fi); err != nil {
			return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenOpen, file, err, file))
		}
		in = f
	}
	// A token is a few dozen bytes; a file of more is not one.
	b, err := io.ReadAll(io.LimitReader(in, 4096))
	if err != nil {
		return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenRead, file, err))
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSpace(line)
	switch {
	case line == "":
		return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenEmpty, file))
	case strings.IndexFunc(line, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0:
		return "", lifecycle.Usage(fmt.Errorf(msgRemoteTokenBad, file))
	}
	return line, nil
}

// setUpRemote checks s against its server and, if every check holds,
// records it and says what to do on the phone. Run again for the same
// server and topics, it is the same setup checked again: it keeps the
// fleet's secret (unless newFleet), the people added with remote
// approver add, and the first phone's name where --name gives none.
// Otherwise it is a new setup: a new secret, which the server's checks
// refuse where another fleet uses the topics, unless newFleet, and the
// first phone alone, named by --name or after the local user (the people
// set up before are named in a warning).
func (a *app) setUpRemote(ctx context.Context, s remote.Settings, newFleet bool) error {
	old, err := remote.Load(a.remoteFile)
	same := err == nil && old.Server == s.Server && old.Topic == s.Topic && old.ReplyTopic == s.ReplyTopic
	if same && !newFleet && old.Secret != "" {
		s.Secret = old.Secret
	} else if s.Secret, err = remote.NewSecret(); err != nil {
		return err
	}
	if err := a.keepPeople(&s, old, same); err != nil {
		return err
	}
	found := a.verifyRemote(ctx, remote.VerifyArgs{Config: s.Config, Writes: true, NewFleet: newFleet})
	if !a.printChecks(found) {
		return &exitError{lifecycle.ExitUsage}
	}
	if err := remote.Save(a.remoteFile, s); err != nil {
		return fmt.Errorf(msgRemoteSave, err)
	}
	link := remote.SubscribeLink(s.Config)
	fmt.Fprintf(a.stdout, msgRemoteSaved+"\n\n", a.remoteFile)
	fmt.Fprintf(a.stdout, msgRemotePhone+"\n", s.Server, s.Topic, link)
	if q, err := qrcode.New(link, qrcode.Medium); err == nil {
		fmt.Fprintln(a.stdout, q.ToSmallString(false))
	}
	fmt.Fprintln(a.stdout, msgRemoteTryIt)
	if len(s.Approvers) > 0 {
		fmt.Fprintf(a.stdout, msgRemotePeopleKept+"\n", dialog.Names(peopleNames(s.Config)))
	}
	if keeps, ok := remote.Keeps(found); ok && keeps < lifecycle.DefaultCall().CollectWithin {
		a.out.warn(fmt.Errorf(msgRemoteKeepsShort, dialog.ShortDuration(keeps), dialog.ShortDuration(lifecycle.DefaultCall().CollectWithin)))
	}
	return nil
}

// keepPeople sets s's people: for the same setup run again (same), the
// people of old, and its first phone's name where --name gave none; for a
// new one, the first phone alone, named after the local user where
// --name gave no name. A --name that is one of the people added to the
// same setup is refused: one person, one phone.
func (a *app) keepPeople(s *remote.Settings, old remote.Settings, same bool) error {
	if same {
		if s.Name == "" {
			s.Name = old.Name
		}
		for _, p := range old.Approvers {
			if strings.EqualFold(p.Name, s.Name) {
				a.out.error(fmt.Sprintf(msgRemoteNameIsApprover, s.Name, p.Topic))
				a.out.hint(fmt.Sprintf(msgRemoteNameIsApproverHint, p.Name))
				return &exitError{lifecycle.ExitUsage}
			}
		}
		s.Approvers = old.Approvers
	} else if len(old.Approvers) > 0 {
		a.out.warn(fmt.Errorf(msgRemotePeopleDropped, dialog.Names(approverNames(old.Config))))
	}
	if s.Name == "" {
		s.Name = a.localName()
	}
	return nil
}

// printChecks prints each finding of a setup's check, and, where any
// failed, the error and what mends them; it reports whether all held.
func (a *app) printChecks(found []remote.Finding) bool {
	failed := 0
	// What mends each failed check, once each: one missing access line
	// can fail several.
	var mends []string
	for _, f := range found {
		mark := "ok  "
		if !f.OK {
			mark, failed = "FAIL", failed+1
			if f.Mend != "" && !slices.Contains(mends, f.Mend) {
				mends = append(mends, f.Mend)
			}
		}
		line := mark + "  " + f.What
		if f.Detail != "" {
			line += ": " + f.Detail
		}
		fmt.Fprintln(a.stdout, line)
	}
	if failed == 0 {
		return true
	}
	a.out.error(fmt.Sprintf(msgRemoteChecksFailed, failed))
	for _, m := range mends {
		a.out.hint(m)
	}
	if len(mends) == 0 {
		a.out.hint(msgRemoteAccessHint)
	}
	return false
}

func newRemoteTestCommand(a *app) *cobra.Command {
	wait := 2 * time.Minute
	var approver string
	c := &cobra.Command{
		Use:   "test",
		Short: "Send a real request to the phone, or to one person's, and report the answer",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := remote.Load(a.remoteFile)
			if err != nil {
				return a.remoteMissing(err)
			}
			if approver != "" {
				p, ok := s.Person(approver)
				if !ok {
					a.out.error(fmt.Sprintf(msgApproverUnknown, dialog.Literal(approver, false), dialog.Names(peopleNames(s.Config))))
					a.out.hint(msgApproverListHint)
					return &exitError{lifecycle.ExitUsage}
				}
				// That person's phone alone, as the first phone of a
				// setup of one.
				s.Topic, s.Name, s.Approvers = p.Topic, p.Name, nil
			}
			ctx, cancel := context.WithTimeout(c.Context(), wait)
			defer cancel()
			r := dialog.Request{Kind: dialog.Confirm, Title: msgRemoteTestTitle, Message: msgRemoteTestMessage, OKLabel: "Approve", CancelLabel: "Deny"}
			// Said once the server took it, not before.
			var took atomic.Bool
			sent := func() {
				took.Store(true)
				fmt.Fprintf(a.stdout, msgRemoteTestSent+"\n", s.Topic, dialog.ShortDuration(wait))
			}
			phone := &remote.Backend{Config: s.Config, Sent: sent}
			ans, err := phone.Ask(ctx, r)
			// The phone is told what became of the request once it ends.
			cancel()
			finish, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			phone.Finish(finish)
			switch {
			case errors.Is(err, context.DeadlineExceeded) && !took.Load():
				// Nobody was asked: the phone was never reached, as a
				// request on the phone alone ends (exit 6).
				a.out.error(fmt.Sprintf(msgRemoteTestUnreached, s.Server, dialog.ShortDuration(wait)))
				return &exitError{lifecycle.ExitFailed}
			case errors.Is(err, context.DeadlineExceeded):
				fmt.Fprintln(a.stdout, msgRemoteTestNobody)
				return &exitError{lifecycle.ExitExpired}
			case err != nil:
				// As a request asked on the phone alone ends: the phone
				// could not ask (exit 6).
				a.out.error(fmt.Sprintf(msgRemoteTestFailed, err))
				return &exitError{lifecycle.ExitFailed}
			case ans.Approved:
				fmt.Fprintln(a.stdout, msgRemoteTestApproved)
				return nil
			default:
				fmt.Fprintln(a.stdout, msgRemoteTestDenied)
				return &exitError{lifecycle.ExitDenied}
			}
		},
	}
	c.Flags().DurationVar(&wait, "wait", wait, "how long to wait for the tap")
	c.Flags().StringVar(&approver, "approver", "", "send it to this person's phone (remote approver list) instead of the first phone")
	return c
}

func newRemoteOffCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "off",
		Short: "Forget the phone: remove the remote configuration",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			err := os.Remove(a.remoteFile)
			switch {
			case errors.Is(err, os.ErrNotExist):
				_, err = fmt.Fprintln(a.stdout, msgRemoteNone)
				return err
			case err != nil:
				return err
			}
			_, err = fmt.Fprintf(a.stdout, msgRemoteRemoved+"\n", a.remoteFile)
			return err
		},
	}
}

// remoteMissing reports a remote configuration that is missing (exit 2,
// with the command that makes one) or unusable (exit 8).
func (a *app) remoteMissing(err error) error {
	if errors.Is(err, remote.ErrNotConfigured) {
		a.out.error(err.Error())
		a.out.hint(msgRemoteSetupHint)
		return &exitError{lifecycle.ExitUsage}
	}
	return err
}
