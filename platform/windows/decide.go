// This file has no build constraint: the decisions in it are pure, so their
// table tests run on every OS, while the rest of the package is Windows only.
// That is also why it spells out the Windows constants it needs rather than
// taking them from golang.org/x/sys/windows, which builds on Windows alone;
// a Windows-only test checks them against that package.

package windows

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
)

// Process creation flags (CreateProcess's dwCreationFlags).
const (
	detachedProcess        = 0x00000008
	createNewProcessGroup  = 0x00000200
	CreateBreakawayFromJob = 0x01000000
)

// Job object limit flags (JOBOBJECT_BASIC_LIMIT_INFORMATION.LimitFlags).
const (
	JobLimitBreakawayOK       = 0x00000800
	jobLimitSilentBreakawayOK = 0x00001000
	jobLimitKillOnJobClose    = 0x00002000
)

const (
	// errorAccessDenied is ERROR_ACCESS_DENIED, which CreateProcess returns
	// when a job in the chain refuses CREATE_BREAKAWAY_FROM_JOB.
	errorAccessDenied = 5
	// wsfVisible is WSF_VISIBLE in a window station's USEROBJECTFLAGS: the
	// station has a display and accepts input.
	wsfVisible = 0x0001
)

// Job describes the job object the current process belongs to.
type Job struct {
	// Known is false when the job could not be queried.
	Known bool
	// In is true when the process belongs to a job.
	In bool
	// LimitFlags are the job's basic limit flags.
	LimitFlags uint32
}

// Plan is how a holder is started detached from its caller.
type Plan struct {
	// Flags are the process creation flags.
	Flags uint32
	// Survives is false when the holder is known to end with the caller's
	// job.
	Survives bool
	// How describes the plan for a person.
	How string
}

// PlanDetach decides the creation flags for a holder. DETACHED_PROCESS
// gives it no console, so closing the caller's console window does not end
// it; CREATE_NEW_PROCESS_GROUP keeps a Ctrl+C in that console from reaching
// it. CREATE_BREAKAWAY_FROM_JOB is added only when the caller's job allows
// breakaway: asked of a job that does not, CreateProcess fails. A job with
// silent breakaway lets every child out without the flag.
func PlanDetach(j Job) Plan {
	p := Plan{Flags: detachedProcess | createNewProcessGroup, Survives: true}
	var why string
	switch {
	case !j.Known:
		why = "its job object could not be queried, so it does not try to break away"
	case !j.In:
		why = "not in a job object"
	case j.LimitFlags&jobLimitSilentBreakawayOK != 0:
		why = "the caller's job lets children leave it silently"
	case j.LimitFlags&JobLimitBreakawayOK != 0:
		p.Flags |= CreateBreakawayFromJob
		why = "breaks away from the caller's job"
	case j.LimitFlags&jobLimitKillOnJobClose != 0:
		p.Survives = false
		why = "the caller's job allows no breakaway and kills its processes when it closes: the holder and its dialog end with it"
	default:
		why = "stays in the caller's job, which allows no breakaway; it ends only if the job is terminated"
	}
	p.How = flagNames(p.Flags) + "; " + why
	return p
}

// RetryWithoutBreakaway reports whether a start with flags that failed with
// err should be tried again without CREATE_BREAKAWAY_FROM_JOB: a job further
// up the chain than the one queried may refuse breakaway, and CreateProcess
// then fails with ERROR_ACCESS_DENIED.
func RetryWithoutBreakaway(flags uint32, err error) bool {
	return flags&CreateBreakawayFromJob != 0 && errors.Is(err, syscall.Errno(errorAccessDenied))
}

// flagNames spells out the creation flags PlanDetach uses, for a person.
func flagNames(flags uint32) string {
	var names []string
	for _, f := range []struct {
		bit  uint32
		name string
	}{
		{detachedProcess, "DETACHED_PROCESS"},
		{createNewProcessGroup, "CREATE_NEW_PROCESS_GROUP"},
		{CreateBreakawayFromJob, "CREATE_BREAKAWAY_FROM_JOB"},
	} {
		if flags&f.bit != 0 {
			names = append(names, f.name)
			flags &^= f.bit
		}
	}
	if flags != 0 {
		names = append(names, "0x"+strconv.FormatUint(uint64(flags), 16))
	}
	return strings.Join(names, "|")
}

// Station describes where this process's windows would appear.
type Station struct {
	// SessionKnown is false when the session id could not be read.
	SessionKnown bool
	// Session is the Remote Desktop Services session id; 0 holds services.
	Session uint32
	// Known is false when the window station could not be queried.
	Known bool
	// Name is the window station's name: WinSta0 for the interactive one.
	Name string
	// Flags are the window station's USEROBJECTFLAGS.dwFlags.
	Flags uint32
}

// Verdict is what a Windows session offers a dialog.
type Verdict struct {
	// OK is true when a dialog would reach a person.
	OK bool
	// Display describes the session and window station.
	Display string
	// Reason explains OK == false; Hint says what to do about it.
	Reason, Hint string
	// Notes are facts worth knowing that do not stop a person being asked.
	Notes []string
}

const hintService = "run ask-confirm in the logged-in user's session (a terminal on the desktop, or a scheduled task set to run only when the user is logged on), not from a service"

// judgeStation decides whether a window this process opens would reach a
// person: not in session 0, where services run and no one sees a window,
// and on a window station that is visible. A station that cannot be
// queried is taken as visible, with a note.
func judgeStation(s Station) Verdict {
	var v Verdict
	switch {
	case !s.SessionKnown:
		v.Reason = "cannot tell which Windows session this is"
		v.Hint = hintService
		return v
	case s.Session == 0:
		v.Reason = "running in session 0, where services run: no person sees its windows"
		v.Hint = hintService
		return v
	case s.Known && s.Flags&wsfVisible == 0:
		v.Reason = "window station " + strconvQuote(s.Name) + " is not interactive: no person sees its windows"
		v.Hint = hintService
		return v
	}
	v.OK = true
	v.Display = "session " + strconv.FormatUint(uint64(s.Session), 10)
	if s.Known {
		v.Display += ", window station " + s.Name
	} else {
		v.Notes = append(v.Notes, "the window station could not be queried; taken as interactive")
	}
	return v
}

func strconvQuote(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return strconv.Quote(s)
}
