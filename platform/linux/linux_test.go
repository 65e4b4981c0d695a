//go:build linux

package linux

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listen serves a unix socket at path until the test ends.
func listen(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

// TestDisplay runs judge against real sockets: one that answers, and paths
// where nobody listens.
func TestDisplay(t *testing.T) {
	dir := t.TempDir()
	xSock := filepath.Join(dir, "x:0")
	listen(t, xSock)
	wayland := filepath.Join(dir, "wayland-1")
	listen(t, wayland)
	dead := filepath.Join(dir, "nobody:0")

	cases := []struct {
		name   string
		env    env
		ok     bool
		reason []string // what a failure's reason must mention
	}{
		{"no display variables", env{}, false, []string{"DISPLAY"}},
		{"empty display variables", env{"DISPLAY": "", "WAYLAND_DISPLAY": ""}, false, []string{"DISPLAY"}},
		{"X socket path that answers", env{"DISPLAY": xSock}, true, nil},
		{"X socket path with a screen number", env{"DISPLAY": xSock + ".0"}, true, nil},
		{"X socket path with nobody listening", env{"DISPLAY": dead}, false, []string{dead}},
		{"malformed DISPLAY", env{"DISPLAY": "nocolon"}, false, []string{"nocolon"}},
		{"Wayland socket by absolute path", env{"WAYLAND_DISPLAY": wayland, "XDG_RUNTIME_DIR": dir}, true, nil},
		{"Wayland socket by absolute path, no runtime directory", env{"WAYLAND_DISPLAY": wayland}, false, []string{"XDG_RUNTIME_DIR"}},
		{"Wayland socket under XDG_RUNTIME_DIR", env{"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": dir}, true, nil},
		{"Wayland socket that does not answer", env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": dir}, false, []string{"WAYLAND_DISPLAY", filepath.Join(dir, "wayland-9")}},
		{"dead Wayland socket but a live X display", env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": dir, "DISPLAY": xSock}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := judge(c.env.get, false, "zenity", reachable)
			ok, reason := v.OK, v.Reason
			if ok != c.ok {
				t.Fatalf("Display = %v (%q), want %v", ok, reason, c.ok)
			}
			if ok && reason != "" {
				t.Errorf("a reachable display comes with a reason: %q", reason)
			}
			for _, want := range c.reason {
				if !strings.Contains(reason, want) {
					t.Errorf("reason %q does not mention %q", reason, want)
				}
			}
		})
	}
}

// pathWith sets PATH to a new directory holding an executable for each
// name, and nothing else.
func pathWith(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestDialogProgram(t *testing.T) {
	cases := []struct {
		installed []string
		want      string
	}{
		{nil, ""},
		{[]string{"matedialog"}, "matedialog"},
		{[]string{"zenity"}, "zenity"},
		{[]string{"zenity", "matedialog"}, "zenity"},
		{[]string{"zenity", "qarma"}, "qarma"},
		{[]string{"qarma", "zenity", "matedialog"}, "qarma"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.installed, "+"), func(t *testing.T) {
			dir := pathWith(t, c.installed...)
			name, path := DialogProgram()
			if name != c.want {
				t.Fatalf("DialogProgram() = %q, want %q", name, c.want)
			}
			wantPath := ""
			if c.want != "" {
				wantPath = filepath.Join(dir, c.want)
			}
			if path != wantPath {
				t.Errorf("DialogProgram() path = %q, want %q", path, wantPath)
			}
		})
	}
}

// A file that is not executable is not a dialog program.
func TestDialogProgramSkipsNonExecutable(t *testing.T) {
	dir := pathWith(t, "matedialog")
	if err := os.WriteFile(filepath.Join(dir, "qarma"), []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	if name, _ := DialogProgram(); name != "matedialog" {
		t.Errorf("DialogProgram() = %q, want matedialog", name)
	}
}

func TestProgramVersion(t *testing.T) {
	// A call returns within milliseconds, or for the hung program at
	// versionTimeout; a loaded machine adds seconds at most, well within
	// margin. A call that waited for the hung program, or for its child,
	// would take hang, far longer.
	const margin, hang = 30 * time.Second, 2 * time.Minute
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, body string
		want       string // empty: an error
		errHas     string
	}{
		{"zenity", `echo 3.44.0`, "3.44.0", ""},
		{"qarma", `printf '\nqarma 1.0.0\nQt 5\n'`, "qarma 1.0.0", ""},
		{"nodisplay", `echo "(zenity:1): Gtk-WARNING **: cannot open display: " >&2; exit 1`, "", "cannot open display"},
		{"silent", `exit 0`, "", "printed nothing"},
		// A program that hangs, with a child holding its stdout: the
		// timeout still ends the wait. The child sleeps for hang, and
		// leaves its PID for the test to end it.
		{"hangs", `sleep ` + strconv.Itoa(int(hang/time.Second)) + ` & echo $! >"$0.pid"; wait`, "", "did not finish"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := script(c.name, c.body)
			t.Cleanup(func() { killSleep(path + ".pid") })
			start := time.Now()
			v, err := ProgramVersion(context.Background(), path)
			if took := time.Since(start); took > versionTimeout+margin {
				t.Errorf("ProgramVersion took %s, longer than its %s limit", took, versionTimeout)
			}
			if c.want != "" {
				if err != nil || v != c.want {
					t.Fatalf("ProgramVersion = %q, %v; want %q", v, err, c.want)
				}
				return
			}
			if err == nil || v != "" || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("ProgramVersion = %q, %v; want an error mentioning %q", v, err, c.errHas)
			}
		})
	}
}

// killSleep ends the sleep whose PID a script wrote to pidFile, if it
// wrote one and it still runs.
func killSleep(pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return
	}
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.TrimSpace(string(comm)) == "sleep" {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestOSVersionNamesTheKernel(t *testing.T) {
	if v := OSVersion(); !strings.Contains(v, "kernel ") {
		t.Errorf("OSVersion() = %q, want it to name the kernel release", v)
	}
}

func TestParseStat(t *testing.T) {
	cases := []struct {
		stat     string
		name     string
		pgid     int
		parsable bool
	}{
		{"1234 (zenity) S 1 1200 1200 0 -1", "zenity", 1200, true},
		{"1234 (odd) name)) S 1 77 77 0", "odd) name)", 77, true},
		{"1234 (a b) R 9 8 8", "a b", 8, true},
		{"1234 (short) S 1", "", 0, false},
		{"garbage", "", 0, false},
	}
	for _, c := range cases {
		name, pgid, ok := parseStat(c.stat)
		if ok != c.parsable || (ok && (name != c.name || pgid != c.pgid)) {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d, %v", c.stat, name, pgid, ok, c.name, c.pgid, c.parsable)
		}
	}
}

// DialogsInGroup finds only dialog programs, and only in the group asked
// for: a process named zenity in our own group is found, and a group with
// no dialog program gives nothing.
func TestDialogsInGroup(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "zenity")
	if err := os.Symlink("/bin/sleep", fake); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(fake, "30")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	pid := c.Process.Pid
	var got []int
	for i := 0; i < 100 && len(got) == 0; i++ {
		got = DialogsInGroup(pid)
		time.Sleep(10 * time.Millisecond)
	}
	if len(got) != 1 || got[0] != pid {
		t.Fatalf("DialogsInGroup(%d) = %v, want [%d]", pid, got, pid)
	}
	// A group of the test's own making without a dialog program: not the
	// test's group, which it shares with other packages' tests, and those
	// run dialog programs.
	plain := exec.Command("/bin/sleep", "30")
	plain.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { plain.Process.Kill(); plain.Wait() }()
	if other := DialogsInGroup(plain.Process.Pid); len(other) != 0 {
		t.Fatalf("a group holding only sleep holds dialog programs %v", other)
	}
}

// Without a program, or without a display to run it on, nothing is run.
func TestThirdButtonWithoutProgramOrDisplay(t *testing.T) {
	if got := ThirdButton(context.Background(), "zenity", "", true); !strings.HasPrefix(got, "not offered") {
		t.Errorf("without a program: %q", got)
	}
	if got := ThirdButton(context.Background(), "zenity", "/nonexistent/zenity", false); !strings.HasPrefix(got, "not checked") {
		t.Errorf("without a display: %q", got)
	}
}
