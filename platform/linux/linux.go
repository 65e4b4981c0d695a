//go:build linux

// Package linux holds the Linux bodies behind package platform. Its pure
// decisions (session.go) build on every OS, so their tests run everywhere;
// everything that touches the system is in this file, Linux only.
package linux

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// DialogProgram returns the dialog program the zenity library will run, and
// its path, or empty strings if none is on PATH.
func DialogProgram() (name, path string) {
	for _, p := range dialogPrograms {
		if path, err := exec.LookPath(p); err == nil {
			return p, path
		}
	}
	return "", ""
}

// Detect judges this process's session: its environment, whether this is
// WSL, the dialog program on PATH, and which display sockets answer.
func Detect() Verdict {
	name, _ := DialogProgram()
	return judge(os.Getenv, wsl(), name, reachable)
}

// OSVersion names the distribution and the kernel release, as
// "Debian GNU/Linux 12 (bookworm), kernel 6.1.0-18-amd64".
func OSVersion() string {
	b, _ := os.ReadFile("/etc/os-release")
	parts := []string{}
	if name := prettyName(string(b)); name != "" {
		parts = append(parts, name)
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		parts = append(parts, "kernel "+unix.ByteSliceToString(u.Release[:]))
	}
	return strings.Join(parts, ", ")
}

func wsl() bool {
	b, _ := os.ReadFile("/proc/version")
	return isWSL(os.Getenv, string(b))
}

// versionTimeout bounds a dialog program's --version and --help-general:
// GNOME zenity opens the display first and a wedged display must not hang
// the caller. It starts GTK in about 0.1 s; ten seconds leave a busy
// machine room, and only doctor waits for it.
const versionTimeout = 10 * time.Second

// ProgramVersion runs the dialog program at path with --version and returns
// what it printed. It fails if the program fails (GNOME zenity does without
// a display) or takes longer than versionTimeout.
func ProgramVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, path, "--version")
	// A program that left a child holding its stdout open must not keep
	// Output waiting past the timeout.
	c.WaitDelay = 100 * time.Millisecond
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s --version did not finish within %s", path, versionTimeout)
	case err != nil:
		if msg := versionLine([]byte(stderr.String())); msg != "" {
			return "", fmt.Errorf("%s --version: %w: %s", path, err, msg)
		}
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	if v := versionLine(out); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%s --version printed nothing", path)
}

// ThirdButton says whether the dialog program at path offers a third
// button (--extra-button, which GNOME zenity lists among its general
// options), from its --help-general, which, like --version, needs a
// display.
func ThirdButton(ctx context.Context, name, path string, display bool) string {
	switch {
	case path == "":
		return "not offered: there is no dialog program"
	case !display:
		return "not checked: " + name + " lists its options only with a display"
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, path, "--help-general")
	c.WaitDelay = 100 * time.Millisecond
	out, err := c.Output()
	return thirdButtonFrom(name, string(out), err)
}

func reachable(network, addr string) bool {
	c, err := net.DialTimeout(network, addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// DialogsInGroup returns the PIDs of the dialog programs (qarma, zenity,
// matedialog) whose process group is pgid, read from /proc. Checking the
// program name keeps a reused PID from ever costing an unrelated process.
func DialogsInGroup(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if name, group, ok := parseStat(string(stat)); ok && group == pgid && slices.Contains(dialogPrograms, name) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parseStat returns the command name and process group from the contents
// of /proc/PID/stat. The name is in parentheses and may itself hold spaces
// and parentheses, so the fields are counted from the last ')'.
func parseStat(stat string) (name string, pgid int, ok bool) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	fields := strings.Fields(stat[end+1:])
	// After the name: state, ppid, pgrp.
	if len(fields) < 3 {
		return "", 0, false
	}
	pgid, err := strconv.Atoi(fields[2])
	return stat[open+1 : end], pgid, err == nil
}
