package mcpserver

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// Main serves MCP on stdin and stdout until the client leaves, and returns
// the exit code. A process the engine started from ask-confirm-mcp to hold
// a dialog (lifecycle.HolderMain) holds it instead.
func Main() int {
	if code, ok := lifecycle.HolderMain(os.Args[1:], lifecycle.Config{}); ok {
		return code
	}
	return execute(NewCommand(), os.Args[1:], os.Stderr)
}

// execute runs c with args and returns the exit code, printing an error as
// ask-confirm does: a mistake in the command line exits 2, anything else 8.
func execute(c *cobra.Command, args []string, stderr io.Writer) int {
	if args == nil {
		// cobra reads os.Args for nil arguments; these are the whole input.
		args = []string{}
	}
	c.SetArgs(args)
	c.SetErr(stderr)
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	if err == nil {
		return int(lifecycle.ExitApproved)
	}
	fmt.Fprintf(stderr, msgError+"\n", err)
	if lifecycle.IsUsage(err) {
		fmt.Fprintln(stderr, msgHint+hintFlags)
		return int(lifecycle.ExitUsage)
	}
	return int(lifecycle.ExitInternal)
}

// NewCommand is ask-confirm-mcp's command: the server.
func NewCommand() *cobra.Command {
	o := lifecycle.DefaultCall()
	o.Wait = 40 * time.Second
	askWith := askAuto
	var approvals int
	var showVersion bool
	c := &cobra.Command{
		Use:   "ask-confirm-mcp [flags]",
		Short: "Serve confirm, ask, status and cancel to AI agents over the Model Context Protocol (stdio)",
		Long: `ask-confirm-mcp (also run as ask-confirm mcp) is a Model Context Protocol
server on stdin and stdout, for agent hosts to start. Its confirm tool asks
the person exactly as the ask-confirm command does: same dialog, answer
store, identity and history.

A confirm call returns within --wait (keep it below the host's tool-call
timeout, often 60s). While the dialog is open the call returns status
"pending"; calling confirm again with the same arguments collects the answer
or joins the same dialog. When the client sent a progress token, the server
sends a progress notification about once a second while it waits.

The scope of a request defaults to the server's working directory; a call
may give its own. --ask-with says how the person is asked: dialog, a native
dialog only; elicitation, always a form the client shows (MCP elicitation);
auto (the default), a dialog where one can be shown, since the agent's host
cannot click it, and else the client's form if the client declared the
elicitation capability. When nobody can be asked the call reports
"headless": nothing approves without a person. Stdout carries only protocol
messages; warnings and errors go to stderr.

--approvers and --approvals make every confirm call a team's gate, as for
the ask-confirm command: each approver is asked on their own phone, and
--approvals of them must approve (with several people set up, everyone is
asked by default). They are the server's, not a call's: the agent does not
choose who approves its own actions. The ask tool's questions keep one
person.`,
		Example: `  {"mcpServers": {"ask-confirm": {"command": "/usr/bin/ask-confirm", "args": ["mcp"]}}}
  The command is the absolute path that command -v ask-confirm prints: hosts
  do not always start servers with your shell's PATH.`,
		Args: func(c *cobra.Command, args []string) error {
			if err := cobra.NoArgs(c, args); err != nil {
				return lifecycle.Usage(err)
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			if showVersion {
				_, err := fmt.Fprintln(c.OutOrStdout(), lifecycle.VersionLine(c.Name()))
				return err
			}
			if c.Flags().Changed("approvals") {
				if approvals < 1 {
					// 0 would read as not given.
					return lifecycle.Usage(&dialog.InvalidError{Field: "--approvals", Reason: fmt.Sprintf(msgApprovalsBelowOne, approvals)})
				}
				o.Request.Approvals = approvals
			}
			if c.Flags().Changed("approvers") {
				if err := dialog.CheckApproversGiven(o.Request.Approvers); err != nil {
					return lifecycle.Usage(err)
				}
			}
			s, err := newServer(o, askWith, c.ErrOrStderr())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return s.serve(ctx, newStdio(os.Stdin, os.Stdout))
		},
	}
	f := c.Flags()
	f.DurationVar(&o.Wait, "wait", o.Wait, "how long a call waits, below the client's timeout (0 to 24h)")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "dialog's time open unless the call says (above 0, at most 24h)")
	f.DurationVar(&o.Remember, "remember", o.Remember, "how long a received answer is reused (0 to 168h)")
	f.DurationVar(&o.CollectWithin, "collect-within", o.CollectWithin, "keep a late answer for a retry (0 to 168h), on ntfy while cached")
	f.StringVar(&askWith, "ask-with", askWith, "dialog, elicitation (the client's form) or auto (dialog, else form)")
	f.StringSliceVar(&o.Request.Approvers, "approvers", nil, "confirm asks these people (`NAME,...`) on their phones (default: everyone set up)")
	f.IntVar(&approvals, "approvals", 1, "`N` of the approvers must approve each confirm call; any one of them denies")
	f.BoolVar(&showVersion, "version", false, "print the version, and the commit it was built from, instead of serving")
	f.SortFlags = false
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return lifecycle.Usage(err) })
	return c
}
