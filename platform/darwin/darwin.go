//go:build darwin

// Package darwin holds the macOS bodies behind package platform. Its pure
// decisions (session.go) build on every OS, so their tests run everywhere;
// everything that touches the system is in this file, macOS only.
package darwin

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// commandTimeout bounds the helper programs run to inspect the session.
const commandTimeout = 2 * time.Second

// Detect judges this process's session from its launchd session type, the
// owner of the console and its environment. It runs launchctl, which takes
// a few milliseconds.
func Detect() Verdict {
	return judge(Facts{
		EUID:            os.Geteuid(),
		ConsoleUID:      consoleUID(),
		Manager:         firstLine("/bin/launchctl", "managername"),
		SSH:             os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_CLIENT") != "" || os.Getenv("SSH_TTY") != "",
		ParentIsLaunchd: os.Getppid() == 1,
	})
}

// OSVersion returns the macOS version, as sw_vers prints it, or "".
func OSVersion() string {
	if v := firstLine("/usr/bin/sw_vers", "-productVersion"); v != "" {
		return "macOS " + v
	}
	return ""
}

func consoleUID() int {
	fi, err := os.Stat("/dev/console")
	if err != nil {
		return -1
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1
	}
	return int(st.Uid)
}

// firstLine runs a helper program and returns the first line it printed,
// or "" if it failed.
func firstLine(name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.WaitDelay = 100 * time.Millisecond
	out, err := c.Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// DialogsInGroup returns the PIDs of the osascript processes in process
// group pgid. Checking the program name keeps a reused PID from ever costing
// an unrelated process.
func DialogsInGroup(pgid int) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range procs {
		if unix.ByteSliceToString(p.Proc.P_comm[:]) == "osascript" {
			pids = append(pids, int(p.Proc.P_pid))
		}
	}
	return pids
}
