package windows

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func TestPlanDetach(t *testing.T) {
	const base = detachedProcess | createNewProcessGroup
	cases := []struct {
		name     string
		job      Job
		flags    uint32
		survives bool
		how      string
	}{
		{"job unknown", Job{}, base, true, "could not be queried"},
		{"job unknown, though in one", Job{In: true}, base, true, "could not be queried"},
		{"no job", Job{Known: true}, base, true, "not in a job"},
		{"job allows breakaway", Job{Known: true, In: true, LimitFlags: JobLimitBreakawayOK}, base | CreateBreakawayFromJob, true, "breaks away"},
		{"job allows breakaway, kills on close", Job{Known: true, In: true, LimitFlags: JobLimitBreakawayOK | jobLimitKillOnJobClose}, base | CreateBreakawayFromJob, true, "breaks away"},
		{"job lets children go silently", Job{Known: true, In: true, LimitFlags: jobLimitSilentBreakawayOK | jobLimitKillOnJobClose}, base, true, "silently"},
		{"job allows both", Job{Known: true, In: true, LimitFlags: jobLimitSilentBreakawayOK | JobLimitBreakawayOK}, base, true, "silently"},
		{"job kills on close, no breakaway", Job{Known: true, In: true, LimitFlags: jobLimitKillOnJobClose}, base, false, "end with it"},
		{"job with other limits only", Job{Known: true, In: true, LimitFlags: 0x100 /* JOB_OBJECT_LIMIT_PROCESS_MEMORY */}, base, true, "stays in the caller's job"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := PlanDetach(c.job)
			if p.Flags != c.flags || p.Survives != c.survives {
				t.Fatalf("PlanDetach(%+v) = %s, survives %v; want %s, %v", c.job, flagNames(p.Flags), p.Survives, flagNames(c.flags), c.survives)
			}
			if !strings.Contains(p.How, c.how) || !strings.HasPrefix(p.How, flagNames(c.flags)+";") {
				t.Errorf("How = %q, want the flags and %q", p.How, c.how)
			}
		})
	}
}

func TestRetryWithoutBreakaway(t *testing.T) {
	const base = detachedProcess | createNewProcessGroup
	// os/exec reports a failed CreateProcess as a *fs.PathError around the
	// Windows error number.
	denied := &fs.PathError{Op: "fork/exec", Path: `C:\ask-confirm.exe`, Err: syscall.Errno(errorAccessDenied)}
	cases := []struct {
		name  string
		flags uint32
		err   error
		want  bool
	}{
		{"breakaway refused", base | CreateBreakawayFromJob, denied, true},
		{"breakaway refused, wrapped again", base | CreateBreakawayFromJob, fmt.Errorf("starting holder: %w", denied), true},
		{"access denied without breakaway", base, denied, false},
		{"other error", base | CreateBreakawayFromJob, &fs.PathError{Op: "fork/exec", Err: syscall.Errno(2)}, false},
		{"not an errno", base | CreateBreakawayFromJob, errors.New("access is denied"), false},
		{"success", base | CreateBreakawayFromJob, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RetryWithoutBreakaway(c.flags, c.err); got != c.want {
				t.Errorf("RetryWithoutBreakaway(%s, %v) = %v, want %v", flagNames(c.flags), c.err, got, c.want)
			}
		})
	}
}

func TestFlagNames(t *testing.T) {
	cases := map[uint32]string{
		detachedProcess | createNewProcessGroup:                          "DETACHED_PROCESS|CREATE_NEW_PROCESS_GROUP",
		detachedProcess | createNewProcessGroup | CreateBreakawayFromJob: "DETACHED_PROCESS|CREATE_NEW_PROCESS_GROUP|CREATE_BREAKAWAY_FROM_JOB",
		detachedProcess | 0x10:                                           "DETACHED_PROCESS|0x10",
		0:                                                                "",
	}
	for flags, want := range cases {
		if got := flagNames(flags); got != want {
			t.Errorf("flagNames(%#x) = %q, want %q", flags, got, want)
		}
	}
}

func TestJudgeStation(t *testing.T) {
	cases := []struct {
		name    string
		s       Station
		ok      bool
		display string
		has     string
	}{
		{"desktop", Station{SessionKnown: true, Session: 1, Known: true, Name: "WinSta0", Flags: wsfVisible}, true, "session 1, window station WinSta0", ""},
		{"remote desktop session", Station{SessionKnown: true, Session: 3, Known: true, Name: "WinSta0", Flags: wsfVisible | 0x100}, true, "session 3, window station WinSta0", ""},
		{"service", Station{SessionKnown: true, Session: 0, Known: true, Name: "Service-0x0-3e7$", Flags: 0}, false, "", "session 0"},
		{"service on a visible station", Station{SessionKnown: true, Session: 0, Known: true, Name: "WinSta0", Flags: wsfVisible}, false, "", "session 0"},
		{"task without a logged-on user", Station{SessionKnown: true, Session: 1, Known: true, Name: "Service-0x0-1a2b$", Flags: 0}, false, "", `"Service-0x0-1a2b$" is not interactive`},
		{"station unknown", Station{SessionKnown: true, Session: 1}, true, "session 1", "could not be queried"},
		{"session unknown", Station{Known: true, Name: "WinSta0", Flags: wsfVisible}, false, "", "cannot tell"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := judgeStation(c.s)
			if v.OK != c.ok || v.Display != c.display {
				t.Fatalf("judgeStation(%+v) = ok %v, display %q (%q); want %v, %q", c.s, v.OK, v.Display, v.Reason, c.ok, c.display)
			}
			if v.OK != (v.Reason == "") || v.OK != (v.Hint == "") {
				t.Errorf("ok %v with reason %q and hint %q: a refusal needs both, an approval neither", v.OK, v.Reason, v.Hint)
			}
			said := v.Reason + "\n" + strings.Join(v.Notes, "\n")
			if !strings.Contains(said, c.has) {
				t.Errorf("reason and notes %q do not mention %q", said, c.has)
			}
		})
	}
}
