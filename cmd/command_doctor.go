package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/platform"
	"github.com/ask-confirm/ask-confirm/remote"
)

// doctorReport is what ask-confirm doctor prints, and with --json its one
// JSON object.
type doctorReport struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	OSVersion string `json:"os_version,omitempty"`
	Session   string `json:"session"`
	Display   string `json:"display"`
	// Unreachable are the displays named that do not answer.
	Unreachable    []string    `json:"displays_not_answering,omitempty"`
	CanAsk         bool        `json:"can_ask"`
	Reason         string      `json:"reason,omitempty"`
	Backend        string      `json:"backend"`
	BackendPath    string      `json:"backend_path,omitempty"`
	BackendVersion string      `json:"backend_version,omitempty"`
	Holder         holderCheck `json:"holder"`
	// ApproveFor says whether the dialog offers the third button of
	// --approve-for, and how or why not.
	ApproveFor string `json:"approve_for_button"`
	// Terminal says whether the command line can ask on this terminal
	// where no dialog can be shown.
	Terminal terminalCheck `json:"terminal"`
	// MCPServer is the ask-confirm-mcp that ask-confirm mcp would run, or
	// empty when there is none.
	MCPServer string `json:"mcp_server"`
	// Remote is the phone, asked through an ntfy server, if one is set up.
	Remote remoteCheck `json:"remote"`
	// CodexHooks are the ask-confirm hooks of the person's Codex
	// configuration, and whether Codex runs them.
	CodexHooks []codexHookCheck   `json:"codex_hooks,omitempty"`
	Paths      []pathCheck        `json:"paths"`
	Notes      []string           `json:"notes"`
	ExitCode   lifecycle.ExitCode `json:"exit_code"`
	Message    string             `json:"message"`

	hint string
	// noBackend says a display answers, but no dialog program shows
	// anything on it: nobody can be asked here, as on a headless machine.
	noBackend bool
	// asks says a request would ask somebody (here or on the phone), and
	// so make and write the files first; phoneOnly that it would ask on
	// the phone alone.
	asks, phoneOnly bool
	// unwritable is the first of the files a request could not make or
	// write (pathCheck.Unwritable).
	unwritable error
}

// remoteCheck says whether a phone is set up (ask-confirm remote setup),
// and if so whether its server answers and its access rules hold, checked
// without publishing anything.
type remoteCheck struct {
	Configured bool `json:"configured"`
	// Setup is where the setup is read from: ASK_CONFIRM_REMOTE, or the
	// settings file.
	Setup  string `json:"setup,omitempty"`
	Server string `json:"server,omitempty"`
	// Mode is when the phone is asked where --remote does not say.
	Mode     string   `json:"mode,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Keeps is how long the server keeps a message, where it says
	// (ntfy's cache-duration): an answer given on the phone can be
	// collected from it only that long.
	Keeps string `json:"server_keeps,omitempty"`
	// short says the server keeps a message for less than
	// --collect-within's default.
	short bool
	// unread says the setup could not be read: a request then leaves
	// the phone out, with a warning.
	unread bool
	// noFleet says the setup has no fleet secret.
	noFleet bool
	// cannotAsk says a check the phone cannot ask without failed
	// (remote.Finding.Needed): a request asked on the phone fails.
	cannotAsk bool
}

// checkRemote loads the phone's settings and checks them against the
// server, reading only.
func (a *app) checkRemote(ctx context.Context) remoteCheck {
	s, err := remote.Load(a.remoteFile)
	setup := a.remoteFile
	if remote.FromEnv() {
		setup = remote.SetupEnv
	}
	switch {
	case errors.Is(err, remote.ErrNotConfigured):
		return remoteCheck{}
	case err != nil:
		return remoteCheck{Configured: true, Setup: setup, Problems: []string{err.Error()}, unread: true}
	}
	rc := remoteCheck{Configured: true, Setup: setup, Server: s.Server, Mode: s.Mode, noFleet: s.Secret == ""}
	found := a.verifyRemote(ctx, remote.VerifyArgs{Config: s.Config})
	if keeps, ok := remote.Keeps(found); ok {
		rc.Keeps, rc.short = dialog.ShortDuration(keeps), keeps < lifecycle.DefaultCall().CollectWithin
	}
	for _, f := range found {
		if !f.OK {
			rc.cannotAsk = rc.cannotAsk || f.Needed
			problem := f.What + ": " + f.Detail
			if f.Mend != "" {
				problem += fmt.Sprintf(msgDoctorRemoteMend, f.Mend)
			}
			rc.Problems = append(rc.Problems, problem)
		}
	}
	return rc
}

// holderCheck says whether and how a holder started here is detached.
type holderCheck struct {
	CanDetach bool   `json:"can_detach"`
	How       string `json:"how"`
}

// terminalCheck says whether ask-confirm, run as doctor was, could ask on
// its terminal, and which one, or why not.
type terminalCheck struct {
	Available bool   `json:"available"`
	Name      string `json:"name,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// checkTerminal opens and closes the terminal a prompt would use.
func (a *app) checkTerminal() terminalCheck {
	if a.terminal == nil {
		return terminalCheck{Reason: msgDoctorNoTerminal}
	}
	if why := terminalOffBy(a.lookupEnv); why != "" {
		return terminalCheck{Reason: why}
	}
	t, err := a.terminal()
	if err != nil {
		return terminalCheck{Reason: err.Error()}
	}
	defer t.Close()
	return terminalCheck{Available: true, Name: t.Name()}
}

// pathCheck is one of ask-confirm's files or directories, as the store's
// rules judge it: a directory must be a real directory of the current user,
// not a symbolic link. A missing one is fine: it is created on first use.
type pathCheck struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	IsDir  bool   `json:"dir"`
	Exists bool   `json:"exists"`
	Mode   string `json:"mode,omitempty"`
	Safe   bool   `json:"safe"`
	// Problem says why Safe is false; Note says what else is worth
	// knowing.
	Problem string `json:"problem,omitempty"`
	Note    string `json:"note,omitempty"`
	// Unwritable says why a request could not make or write it, tried
	// for real and undone (lifecycle.ProbeWrite): a read-only file system,
	// a full disk, or permissions.
	Unwritable string `json:"unwritable,omitempty"`

	writeErr error
}

// newDoctorCommand returns ask-confirm doctor. It reports, and predicts
// what a request would do here: it tries whether ask-confirm's files can
// be written and leaves no file or directory behind, never shows a
// dialog, and publishes nothing to the phone.
func newDoctorCommand(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Show what this machine offers for asking a person, and what a request would do here",
		Long: `Show what this machine offers: the OS, the session and display a dialog
would appear on, the dialog backend and its version, how a holder is
detached from its caller, and ask-confirm's files with their permissions
and whether a request could make and write them (tried, and undone: it
leaves nothing behind). It shows no dialog, and publishes nothing to the
phone.

It also names the MCP server program that ask-confirm mcp would run, and
the terminal the command line asks on where no dialog can be shown.

It exits with the code a request run here, without flags, would end with
when it cannot ask, and 0 when it can: 0 when a person can be asked, by
dialog, on this terminal, or on the phone where the phone is asked
instead (its server answering, and its tokens doing what asking needs);
4 when nobody can be asked (with a hint); 6 when the dialog cannot be
shown (a display but no dialog program) or the phone, asked alone,
cannot ask; 8 when a directory or file ask-confirm would use is unsafe,
or cannot be written where a request would ask somebody.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			r := a.doctor(platform.Inspect(c.Context()), a.checkTerminal())
			r.Remote = a.checkRemote(c.Context())
			if r.Remote.short {
				r.Notes = append(r.Notes, fmt.Sprintf(msgRemoteKeepsShort, r.Remote.Keeps, dialog.ShortDuration(lifecycle.DefaultCall().CollectWithin)))
			}
			if r.Remote.noFleet {
				r.Notes = append(r.Notes, r.Remote.noFleetNote())
			}
			r.askPhone()
			r.mustWrite(a.engine)
			var err error
			if r.CodexHooks, err = a.checkCodexHooks(); err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf(msgDoctorCodexUnreadable, err))
			}
			if err := r.print(a.stdout, a.out, asJSON); err != nil {
				return err
			}
			return &exitError{r.ExitCode}
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return c
}

// doctor turns what the platform found into the report, checking
// ask-confirm's paths without creating any of them.
func (a *app) doctor(p platform.Report, tc terminalCheck) doctorReport {
	r := doctorReport{
		OS:             p.OS,
		Arch:           p.Arch,
		OSVersion:      p.OSVersion,
		Session:        string(p.Kind),
		Display:        p.Display,
		Unreachable:    p.Unreachable,
		CanAsk:         p.CanAsk,
		Reason:         p.Reason,
		Backend:        p.Backend,
		BackendPath:    p.BackendPath,
		BackendVersion: p.BackendVersion,
		Holder:         holderCheck{CanDetach: p.CanDetach, How: p.Detach},
		ApproveFor:     p.ThirdButton,
		Terminal:       tc,
		Notes:          append([]string{}, p.Notes...),
	}
	// Not having the MCP server matters only to agent hosts; it does not
	// change the outcome.
	r.MCPServer, _ = findMCPProgram()
	paths := a.engine.Paths()
	r.Paths = []pathCheck{
		checkPath("answers", paths.DB, false),
		checkPath("answers directory", filepath.Dir(paths.DB), true),
		checkPath("state directory", filepath.Dir(paths.History), true),
		checkPath("locks directory", paths.Locks, true),
		checkPath("history", paths.History, false),
	}

	var unsafe error
	for _, pc := range r.Paths {
		if !pc.Safe && unsafe == nil {
			unsafe = lifecycle.UnsafePath(pc.Path, pc.Problem, pc.IsDir)
		}
	}
	// In the order a request makes them: the locks (and the state
	// directory above them), the answers, the history.
	for _, i := range []int{3, 2, 1, 0, 4} {
		if err := r.Paths[i].writeErr; err != nil && r.unwritable == nil {
			r.unwritable = err
		}
	}
	var outcome lifecycle.Result
	switch {
	case unsafe != nil:
		// Every run refuses it first, before it looks for a display.
		outcome = a.engine.StoreError("", unsafe)
	case !p.CanAsk && !tc.Available:
		outcome = lifecycle.Headless(p.Session)
		r.noBackend = p.Session.NoBackend()
	case !p.CanAsk:
		outcome = lifecycle.Result{ExitCode: lifecycle.ExitApproved, Message: fmt.Sprintf(msgDoctorOnTerminal, p.Reason, tc.Name)}
		r.asks = true
	default:
		outcome = lifecycle.Result{ExitCode: lifecycle.ExitApproved, Message: msgDoctorCanAsk}
		r.asks = true
	}
	r.ExitCode, r.Message, r.hint = outcome.ExitCode, outcome.Message, outcome.Hint
	return r
}

// askPhone predicts the phone's part as the engine decides it for a
// request asked without --remote: where its setup reads and its mode is
// not off, a machine where nobody can be asked (no display, no dialog
// program, no terminal) asks the phone alone, and so does mode only
// everywhere. Asked alone, the phone answers for the request: exit 0
// where its needed checks hold (remote.Finding.Needed: an access rule
// that lets too much through is reported, but does not stop a request),
// and 6 where one fails, as the request's holder fails then. A setup
// that does not read leaves the phone out, as a request does, with a
// warning.
func (r *doctorReport) askPhone() {
	rc := r.Remote
	nobodyHere := r.ExitCode == lifecycle.ExitHeadless || r.ExitCode == lifecycle.ExitFailed && r.noBackend
	switch {
	case !rc.Configured, rc.unread, rc.Mode == remote.ModeOff, r.ExitCode == lifecycle.ExitInternal:
		return
	case !nobodyHere && rc.Mode != remote.ModeOnly:
		return
	}
	r.asks, r.phoneOnly = true, true
	asked := fmt.Sprintf(msgDoctorOnPhone, r.Reason)
	if !nobodyHere {
		asked = msgDoctorOnPhoneOnly
	}
	if rc.cannotAsk {
		r.ExitCode, r.Message, r.hint = lifecycle.ExitFailed, fmt.Sprintf(msgDoctorPhoneCannot, asked, strings.Join(rc.Problems, "; ")), hintDoctorPhoneCannot
		return
	}
	r.ExitCode, r.Message, r.hint = lifecycle.ExitApproved, asked, ""
}

// mustWrite predicts the request's exit 8 where it would ask somebody,
// and so make and write its files first, and one of them cannot be:
// the store's error, with its hint naming the directory. Where nobody is
// asked, a request ends without writing them (its history line lost with
// a warning), as doctor's verdict says.
func (r *doctorReport) mustWrite(e *lifecycle.Engine) {
	if !r.asks || r.unwritable == nil || r.ExitCode == lifecycle.ExitInternal {
		return
	}
	outcome := e.StoreError("", r.unwritable)
	r.ExitCode, r.Message, r.hint = outcome.ExitCode, outcome.Message, outcome.Hint
}

// noFleetNote says what a setup without a fleet's secret means: given in
// ASK_CONFIRM_REMOTE, a re-run of a job on another machine asks anew.
func (rc remoteCheck) noFleetNote() string {
	if rc.Setup == remote.SetupEnv {
		return msgDoctorNoFleetEnv
	}
	return fmt.Sprintf(msgDoctorNoFleetFile, rc.Setup)
}

// checkPath judges path without following a final symbolic link, and
// tries whether a request could make or write it, leaving nothing behind.
func checkPath(name, path string, isDir bool) pathCheck {
	pc := pathCheck{Name: name, Path: path, IsDir: isDir, Safe: true}
	fi, err := os.Lstat(path)
	if err == nil && lifecycle.PathProblem(fi, isDir) == "" || errors.Is(err, fs.ErrNotExist) {
		if pc.writeErr = lifecycle.ProbeWrite(path, isDir); pc.writeErr != nil {
			pc.Unwritable = pc.writeErr.Error()
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pc.Note = msgDoctorMissingFile
		if isDir {
			pc.Note = msgDoctorMissingDir
		}
		return pc
	case err != nil:
		pc.Safe, pc.Problem = false, err.Error()
		return pc
	}
	pc.Exists = true
	pc.Mode = fmt.Sprintf("%04o", fi.Mode().Perm())
	open := platform.OpenToOthers(fi)
	switch problem := lifecycle.PathProblem(fi, isDir); {
	case problem != "":
		// The store's own rule, so doctor never disagrees with it.
		pc.Safe, pc.Problem = false, problem
	case open && isDir:
		pc.Note = fmt.Sprintf(msgDoctorOpenDir, path)
	case open:
		pc.Note = fmt.Sprintf(msgDoctorOpenFile, path)
	}
	return pc
}

// print writes the report: with asJSON one JSON object on stdout, otherwise
// a table on stdout. When nobody can be asked, or a path is unsafe, the
// outcome and a hint follow on stderr, as for every other command.
func (r doctorReport) print(stdout io.Writer, out printer, asJSON bool) error {
	var err error
	if asJSON {
		err = writeJSON(stdout, r)
	} else {
		err = r.printTable(stdout)
		if err == nil && r.ExitCode != lifecycle.ExitApproved {
			err = out.error(r.Message)
		}
	}
	if err == nil {
		err = out.hint(r.hint)
	}
	return err
}

// printTable prints r as two columns: what is checked, and what was found.
func (r doctorReport) printTable(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(w, "%s\t%s\n", k, v) }
	r.printSystem(line)
	r.printAskers(line)
	r.printFiles(line)
	return w.Flush()
}

// printSystem prints the OS, the session, the dialog and the holder.
func (r doctorReport) printSystem(line func(k, v string)) {
	osLine := r.OS + "/" + r.Arch
	if r.OSVersion != "" {
		osLine += " (" + r.OSVersion + ")"
	}
	line("os", osLine)
	line("session", r.Session)
	display := orNone(r.Display)
	if r.Display == "" && len(r.Unreachable) > 0 {
		// Not "none": a display is named, and does not answer.
		display = fmt.Sprintf(msgDoctorNoneAnswers, strings.Join(r.Unreachable, "; "))
	}
	line("display", display)
	backend := orNone(r.Backend)
	if r.BackendVersion != "" {
		backend += " " + r.BackendVersion
	}
	if r.BackendPath != "" {
		backend += " (" + r.BackendPath + ")"
	}
	line("backend", backend)
	holder := msgDoctorDetached
	if !r.Holder.CanDetach {
		holder = msgDoctorNotDetached
	}
	line("holder", fmt.Sprintf(holder, r.Holder.How))
	line("approve-for", orNone(r.ApproveFor))
}

// printAskers prints the other ways of asking: the MCP server, the phone,
// Codex's hooks and the terminal.
func (r doctorReport) printAskers(line func(k, v string)) {
	if r.MCPServer != "" {
		line("mcp server", r.MCPServer)
	} else {
		line("mcp server", msgDoctorNoMCP)
	}
	switch {
	case !r.Remote.Configured:
		line("phone", msgDoctorNoRemote)
	case r.Remote.unread:
		line("phone", fmt.Sprintf(msgDoctorRemoteUnread, r.Remote.Setup, strings.Join(r.Remote.Problems, "; ")))
	case len(r.Remote.Problems) > 0:
		line("phone", fmt.Sprintf(msgDoctorRemoteProblems, r.Remote.Server, strings.Join(r.Remote.Problems, "; ")))
	default:
		line("phone", fmt.Sprintf(msgDoctorRemoteOK, r.Remote.Server, r.Remote.Mode))
	}
	if r.Remote.Keeps != "" {
		line("phone server", fmt.Sprintf(msgDoctorRemoteKeeps, r.Remote.Keeps))
	}
	for _, h := range r.CodexHooks {
		if h.Problem == "" {
			line("codex hook", fmt.Sprintf(msgDoctorCodexOK, h.Key))
		} else {
			line("codex hook", fmt.Sprintf(msgDoctorCodexProblem, h.Key, h.Problem))
		}
	}
	if r.Terminal.Available {
		line("terminal", fmt.Sprintf(msgDoctorTerminal, r.Terminal.Name))
	} else {
		line("terminal", fmt.Sprintf(msgDoctorNoTerminalHere, r.Terminal.Reason))
	}
}

// printFiles prints ask-confirm's files, the notes, and whether a person
// can be asked here.
func (r doctorReport) printFiles(line func(k, v string)) {
	for _, pc := range r.Paths {
		var v string
		switch {
		case !pc.Exists && pc.Safe:
			v = pc.Note
		case !pc.Exists:
			v = fmt.Sprintf(msgDoctorPathUnsafe, pc.Problem)
		case !pc.Safe:
			v = fmt.Sprintf(msgDoctorModeUnsafe, pc.Mode, pc.Problem)
		case pc.Note != "":
			v = fmt.Sprintf(msgDoctorModeNote, pc.Mode, pc.Note)
		default:
			v = pc.Mode
		}
		if pc.Unwritable != "" {
			v += fmt.Sprintf(msgDoctorUnwritable, pc.Unwritable)
		}
		line(pc.Name, pc.Path+": "+v)
	}
	for _, n := range r.Notes {
		line("note", n)
	}
	switch {
	case r.ExitCode == lifecycle.ExitHeadless:
		line("can ask", fmt.Sprintf(msgDoctorAskNo, r.Reason))
	case r.ExitCode != lifecycle.ExitApproved:
		// What a request would end with: the dialog or the phone could
		// not ask, or its files could not be written.
		line("can ask", fmt.Sprintf(msgDoctorAskNo, r.Message))
	case r.phoneOnly:
		line("can ask", fmt.Sprintf(msgDoctorAskPhone, r.Message))
	case r.CanAsk:
		line("can ask", msgDoctorAskYes)
	default:
		line("can ask", fmt.Sprintf(msgDoctorAskTerminal, r.Reason))
	}
}

func orNone(s string) string {
	if s == "" {
		return msgDoctorNone
	}
	return s
}
