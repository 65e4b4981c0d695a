package platform

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	sys "golang.org/x/sys/windows"

	"github.com/ask-confirm/ask-confirm/platform/windows"
)

// tempDir is t.TempDir without its failing cleanup under Wine, which lacks
// the delete call os.RemoveAll makes: it removes the tree one name at a
// time, and leaves behind what it cannot.
func tempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "platform-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var names []string
		filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
			names = append(names, path)
			return nil
		})
		for i := len(names) - 1; i >= 0; i-- {
			os.Remove(names[i])
		}
	})
	return dir
}

func TestTryLockWindows(t *testing.T) {
	path := filepath.Join(tempDir(t), "id.lock")
	first, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock on a new path = %v, %v; want the lock", ok, err)
	}
	// LockFileEx locks belong to the handle, so a second open in the same
	// process is refused like another process would be.
	second, ok, err := TryLock(path)
	if err != nil || ok || second != nil {
		t.Fatalf("second TryLock while held = %v, %v, %v; want ok == false and no error", second, ok, err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	third, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock after Release = %v, %v; want the lock", ok, err)
	}
	third.Release()
}

// helperOut names the file a detached copy of this test binary reports
// to; it is set only in the environment of that copy.
const helperOut = "ASK_CONFIRM_PLATFORM_TEST_HELPER_OUT"

// TestStartDetachedHelper is not a test: it is what StartDetached runs in
// the tests below. It reports its working directory and whether it is in a
// job, and exits.
func TestStartDetachedHelper(t *testing.T) {
	out := os.Getenv(helperOut)
	if out == "" {
		t.Skip("runs only as the child of TestStartDetached")
	}
	wd, _ := os.Getwd()
	report := fmt.Sprintf("%s\njob=%v\n", wd, windows.CurrentJob().In)
	if err := os.WriteFile(out+".tmp", []byte(report), 0o600); err == nil {
		os.Rename(out+".tmp", out)
	}
}

// startHelper starts TestStartDetachedHelper with StartDetached and returns
// its working directory and whether it found itself in a job.
func startHelper(t *testing.T) (dir string, inJob bool) {
	t.Helper()
	out := filepath.Join(tempDir(t), "report")
	t.Setenv(helperOut, out)
	if err := StartDetached([]string{"holder", "-test.run=^TestStartDetachedHelper$"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(out)
		if err == nil {
			dir, job, _ := strings.Cut(string(b), "\n")
			return dir, strings.TrimSpace(job) == "job=true"
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached process never reported back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartDetached(t *testing.T) {
	dir, _ := startHelper(t)
	if want := windows.HolderDir(); !strings.EqualFold(filepath.Clean(dir), filepath.Clean(want)) {
		t.Errorf("holder ran in %q, want %q", dir, want)
	}
}

// A caller in a job that allows breakaway starts a holder outside it, so
// the job's end does not take the holder along. This puts the test process
// itself in such a job for good, so it runs after the tests that must not
// be in one.
func TestStartDetachedBreaksAwayFromJob(t *testing.T) {
	job, err := sys.CreateJobObject(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.CloseHandle(job)
	var info sys.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = sys.JOB_OBJECT_LIMIT_BREAKAWAY_OK
	if _, err := sys.SetInformationJobObject(job, sys.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		t.Fatal(err)
	}
	if err := sys.AssignProcessToJobObject(job, sys.CurrentProcess()); err != nil {
		t.Fatal(err)
	}
	j := windows.CurrentJob()
	if !j.In {
		t.Fatalf("CurrentJob() = %+v after joining a job", j)
	}
	var back sys.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := sys.QueryInformationJobObject(job, sys.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&back)), uint32(unsafe.Sizeof(back)), nil); err != nil || back.BasicLimitInformation.LimitFlags == 0 {
		// Wine 8 accepts job limits and forgets them.
		t.Skipf("this Windows does not keep job limits (set %#x, read back %#x, %v)", info.BasicLimitInformation.LimitFlags, back.BasicLimitInformation.LimitFlags, err)
	}
	if j.LimitFlags&windows.JobLimitBreakawayOK == 0 {
		t.Fatalf("CurrentJob() = %+v after joining a job that allows breakaway", j)
	}
	if p := windows.PlanDetach(j); p.Flags&windows.CreateBreakawayFromJob == 0 {
		t.Fatalf("PlanDetach = %s, want CREATE_BREAKAWAY_FROM_JOB", p.How)
	}
	if _, inJob := startHelper(t); inJob {
		t.Error("the holder is in a job; it should have broken away")
	}
}
