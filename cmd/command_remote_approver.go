package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skip2/go-qrcode"
	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/remote"
)

// newRemoteApproverCommand returns ask-confirm remote approver: the people
// asked on phones of their own, beside the first phone of remote setup.
func newRemoteApproverCommand(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "approver",
		Short: "Add, list or remove the people asked on phones of their own (--approvers)",
		Long:  msgRemoteApproverLong,
		Args:  usageArgs(cobra.NoArgs),
	}
	c.AddCommand(newRemoteApproverAddCommand(a), newRemoteApproverListCommand(a), newRemoteApproverRemoveCommand(a))
	return c
}

func newRemoteApproverAddCommand(a *app) *cobra.Command {
	var topic string
	c := &cobra.Command{
		Use:   "add NAME --topic TOPIC",
		Short: "Add a person, whose phone's own account reads TOPIC, after checking TOPIC's access rules",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			if err := remote.CheckName(name); err != nil {
				return lifecycle.Usage(err)
			}
			if topic == "" {
				return lifecycle.Usage(fmt.Errorf(msgRemoteFlagMissing, "--topic"))
			}
			s, err := a.editableSetup()
			if err != nil {
				return err
			}
			if p, ok := s.Person(name); ok {
				a.out.error(fmt.Sprintf(msgApproverTwice, p.Name, p.Topic))
				a.out.hint(msgApproverTwiceHint)
				return &exitError{lifecycle.ExitUsage}
			}
			if len(s.People()) >= dialog.MaxApprovers {
				return lifecycle.Usage(fmt.Errorf(msgApproverTooMany, dialog.MaxApprovers))
			}
			if s.Name == "" {
				// A setup made before named approvers: its first phone
				// gets remote setup's default name, and is told.
				if s.Name = a.localName(); s.Name == "" {
					a.out.error(msgApproverFirstUnnamed)
					a.out.hint(msgApproverFirstUnnamedHint)
					return &exitError{lifecycle.ExitUsage}
				}
				fmt.Fprintf(a.stdout, msgApproverFirstNamed+"\n", s.Topic, s.Name)
			}
			s.Approvers = append(s.Approvers, remote.Approver{Name: name, Topic: topic})
			if err := s.Check(); err != nil {
				return lifecycle.Usage(err)
			}
			if !a.printChecks(a.verifyRemote(c.Context(), remote.VerifyArgs{Config: s.Config, Writes: true, Person: name})) {
				return &exitError{lifecycle.ExitUsage}
			}
			if err := remote.Save(a.remoteFile, s); err != nil {
				return fmt.Errorf(msgRemoteSave, err)
			}
			fmt.Fprintf(a.stdout, msgApproverAdded+"\n\n", name, a.remoteFile, dialog.Names(peopleNames(s.Config)))
			link := remote.SubscribeLink(remote.Config{Server: s.Server, Topic: topic})
			fmt.Fprintf(a.stdout, msgApproverPhone+"\n", name, s.Server, name, topic, link)
			if q, err := qrcode.New(link, qrcode.Medium); err == nil {
				fmt.Fprintln(a.stdout, q.ToSmallString(false))
			}
			fmt.Fprintf(a.stdout, msgApproverTryIt+"\n", shellWord(name))
			a.out.hint(msgApproverFleet)
			return nil
		},
	}
	c.Flags().StringVar(&topic, "topic", "", "the topic the person's phone subscribes to, with an account of their own that may read it alone")
	return c
}

// approverEntry is one person of ask-confirm remote approver list --json.
type approverEntry struct {
	Name  string `json:"name"`
	Topic string `json:"topic"`
	// FirstPhone marks the person of remote setup's --topic and --name.
	FirstPhone bool `json:"first_phone"`
}

func newRemoteApproverListCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the people set up, each with the topic their phone reads; the first is remote setup's",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := remote.Load(a.remoteFile)
			if err != nil {
				return a.remoteMissing(err)
			}
			var people []approverEntry
			for i, p := range s.People() {
				people = append(people, approverEntry{Name: p.Name, Topic: p.Topic, FirstPhone: i == 0})
			}
			if asJSON {
				return writeJSON(a.stdout, people)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, p := range people {
				name := dialog.Literal(p.Name, false)
				if name == "" {
					name = msgApproverNoName
				}
				if p.FirstPhone {
					fmt.Fprintf(w, "%s\t%s\t%s\n", name, p.Topic, msgApproverFirstPhone)
				} else {
					fmt.Fprintf(w, "%s\t%s\n", name, p.Topic)
				}
			}
			return w.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the people as a JSON array of {name, topic, first_phone}")
	return c
}

func newRemoteApproverRemoveCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a person added with remote approver add; their buttons stop counting on every machine",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := a.editableSetup()
			if err != nil {
				return err
			}
			p, ok := s.Person(args[0])
			switch {
			case !ok:
				a.out.error(fmt.Sprintf(msgApproverUnknown, dialog.Literal(args[0], false), dialog.Names(peopleNames(s.Config))))
				a.out.hint(msgApproverListHint)
				return &exitError{lifecycle.ExitUsage}
			case strings.EqualFold(p.Name, s.Name):
				a.out.error(fmt.Sprintf(msgApproverFirst, p.Name, p.Topic))
				a.out.hint(msgApproverFirstHint)
				return &exitError{lifecycle.ExitUsage}
			}
			if s.SecretKey() != nil {
				// Their phone may be lost: every machine of the fleet must
				// stop counting its buttons on the requests open now,
				// whatever its own copy of the setup says.
				if err := a.revokeRemote(c.Context(), s.Config, p.Name); err != nil {
					a.out.error(fmt.Sprintf(msgApproverNotRevoked, p.Name, err))
					a.out.hint(fmt.Sprintf(msgApproverNotRevokedHint, p.Name))
					return &exitError{lifecycle.ExitFailed}
				}
			}
			var kept []remote.Approver
			for _, q := range s.Approvers {
				if q != p {
					kept = append(kept, q)
				}
			}
			s.Approvers = kept
			if err := remote.Save(a.remoteFile, s); err != nil {
				return fmt.Errorf(msgRemoteSave, err)
			}
			fmt.Fprintf(a.stdout, msgApproverRemoved+"\n", p.Name, p.Topic, dialog.Names(peopleNames(s.Config)))
			if s.SecretKey() != nil {
				fmt.Fprintf(a.stdout, msgApproverRevoked+"\n", p.Name)
			}
			a.out.hint(msgApproverFleet)
			return nil
		},
	}
}

// editableSetup loads the phone's setup for a command that changes it:
// one from ASK_CONFIRM_REMOTE is refused (exit 2), since saving it would
// write the variable's tokens and secret into a file nobody asked for.
func (a *app) editableSetup() (remote.Settings, error) {
	s, err := remote.Load(a.remoteFile)
	if err != nil {
		return remote.Settings{}, a.remoteMissing(err)
	}
	if remote.FromEnv() {
		a.out.error(msgApproverFromEnv)
		a.out.hint(msgApproverFromEnvHint)
		return remote.Settings{}, &exitError{lifecycle.ExitUsage}
	}
	return s, nil
}

// peopleNames are the names of everyone c sets up, as a person reads
// them: the first phone's without a name says so.
func peopleNames(c remote.Config) []string {
	var names []string
	for _, p := range c.People() {
		name := dialog.Literal(p.Name, false)
		if name == "" {
			name = msgApproverNoName
		}
		names = append(names, name)
	}
	return names
}

// approverNames are the names of the people c sets up beside the first
// phone.
func approverNames(c remote.Config) []string {
	var names []string
	for _, p := range c.Approvers {
		names = append(names, dialog.Literal(p.Name, false))
	}
	return names
}

// shellWord is s quoted for a shell where it needs to be.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
