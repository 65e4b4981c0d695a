//go:build windows

package windows

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// decide.go spells out the Windows constants so that it builds everywhere;
// they must be the SDK's.
func TestConstantsMatchTheSDK(t *testing.T) {
	cases := []struct {
		name      string
		ours, sdk uint32
	}{
		{"DETACHED_PROCESS", detachedProcess, windows.DETACHED_PROCESS},
		{"CREATE_NEW_PROCESS_GROUP", createNewProcessGroup, windows.CREATE_NEW_PROCESS_GROUP},
		{"CREATE_BREAKAWAY_FROM_JOB", CreateBreakawayFromJob, windows.CREATE_BREAKAWAY_FROM_JOB},
		{"JOB_OBJECT_LIMIT_BREAKAWAY_OK", JobLimitBreakawayOK, windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK},
		{"JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK", jobLimitSilentBreakawayOK, windows.JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK},
		{"JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE", jobLimitKillOnJobClose, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
		{"ERROR_ACCESS_DENIED", errorAccessDenied, uint32(windows.ERROR_ACCESS_DENIED)},
	}
	for _, c := range cases {
		if c.ours != c.sdk {
			t.Errorf("%s = %#x here, %#x in golang.org/x/sys/windows", c.name, c.ours, c.sdk)
		}
	}
}

func TestCurrentJob(t *testing.T) {
	j := CurrentJob()
	if !j.Known {
		t.Fatalf("CurrentJob() = %+v: IsProcessInJob or QueryInformationJobObject failed", j)
	}
	t.Logf("job: %+v; plan: %s", j, PlanDetach(j).How)
}

func TestCurrentStation(t *testing.T) {
	s := currentStation()
	if !s.SessionKnown {
		t.Fatal("ProcessIdToSessionId failed")
	}
	if !s.Known || s.Name == "" {
		t.Errorf("currentStation() = %+v: GetProcessWindowStation or GetUserObjectInformation failed", s)
	}
	t.Logf("station: %+v; verdict: %+v", s, judgeStation(s))
}

func TestHolderDirIsADirectory(t *testing.T) {
	dir := HolderDir()
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("HolderDir() = %q: %v, want an existing directory", dir, err)
	}
}

func TestOSVersion(t *testing.T) {
	if v := OSVersion(); !strings.HasPrefix(v, "Windows ") || strings.Count(v, ".") != 2 {
		t.Errorf("OSVersion() = %q, want Windows N.N.N", v)
	}
}
