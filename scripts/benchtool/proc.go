//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// caseEnv is one case's private world: the working directory it runs
// ask-confirm in (the default --scope) and its own XDG cache and state
// homes, so no case sees another's records, locks or history.
type caseEnv struct {
	dir, cache, state string
}

func (b *bench) newEnv(name string) (caseEnv, error) {
	base := filepath.Join(b.work, name)
	ce := caseEnv{dir: filepath.Join(base, "scope"), cache: filepath.Join(base, "cache"), state: filepath.Join(base, "state")}
	for _, d := range []string{ce.dir, ce.cache, ce.state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return ce, err
		}
	}
	return ce, nil
}

// db is the answer store ask-confirm uses in this environment.
func (ce caseEnv) db() string { return filepath.Join(ce.cache, "ask-confirm", "answers.db") }

// environ is the process environment with this case's XDG homes.
func (ce caseEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_CACHE_HOME="+ce.cache, "XDG_STATE_HOME="+ce.state)
}

// timedRun runs path with args to completion, with /dev/null as its
// standard streams, and returns the wall time from just before the fork to
// just after the exit was reaped, and the exit code.
func timedRun(path string, args []string, dir string, env []string) (time.Duration, int, error) {
	attr := &os.ProcAttr{Dir: dir, Env: env, Files: []*os.File{devNull, devNull, devNull}}
	argv := append([]string{path}, args...)
	t0 := time.Now()
	p, err := os.StartProcess(path, argv, attr)
	if err != nil {
		return 0, 0, err
	}
	st, err := p.Wait()
	d := time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	return d, st.ExitCode(), nil
}

var devNull *os.File

// process is a started program whose exit is timestamped the moment it is
// reaped.
type process struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{}
	exitAt  time.Time
	code    int
}

func start(dir string, env []string, path string, args ...string) (*process, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Env = dir, env
	p := &process{cmd: cmd, done: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		cmd.Wait()
		p.exitAt = time.Now()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	return p, nil
}

// wait waits up to timeout for p to exit and reports whether it did.
func (p *process) wait(timeout time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

func (p *process) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	p.wait(5 * time.Second)
}

// xdotool runs xdotool and returns its output and the moment it returned.
func xdotool(args ...string) (string, time.Time, error) {
	out, err := exec.Command("xdotool", args...).Output()
	at := time.Now()
	if err != nil {
		return "", at, fmt.Errorf("xdotool %s: %w", strings.Join(args, " "), err)
	}
	return string(out), at, nil
}

type geometry struct{ x, y, w, h int }

func windowGeometry(win uint32) (geometry, error) {
	out, _, err := xdotool("getwindowgeometry", "--shell", strconv.FormatUint(uint64(win), 10))
	if err != nil {
		return geometry{}, err
	}
	var g geometry
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "X":
			g.x = n
		case "Y":
			g.y = n
		case "WIDTH":
			g.w = n
		case "HEIGHT":
			g.h = n
		}
	}
	if g.w == 0 || g.h == 0 {
		return g, fmt.Errorf("window %d has no geometry", win)
	}
	return g, nil
}

// settled waits until a freshly mapped window can take input: GTK ignores
// keys and clicks in its first moments and may still resize, so it waits
// 0.3 s and then until two geometry reads 50 ms apart agree.
func settled(win uint32) (geometry, error) {
	time.Sleep(300 * time.Millisecond)
	g, err := windowGeometry(win)
	if err != nil {
		return g, err
	}
	for range 40 {
		time.Sleep(50 * time.Millisecond)
		g2, err := windowGeometry(win)
		if err != nil {
			return g2, err
		}
		if g2 == g {
			return g, nil
		}
		g = g2
	}
	return g, errors.New("window geometry never settled")
}

// clickApprove clicks zenity's approve button: the two buttons fill the
// bottom row, cancel on the left and approve on the right. It returns the
// moment of the click.
func (b *bench) clickApprove(g geometry) (time.Time, error) {
	return b.x.click(g.x+g.w-45, g.y+g.h-22)
}

// pressEscape focuses win and presses Escape (GTK ignores keys sent to a
// window that does not have the focus); it returns the moment of the press.
func (b *bench) pressEscape(win uint32) (time.Time, error) {
	if _, _, err := xdotool("windowfocus", "--sync", strconv.FormatUint(uint64(win), 10)); err != nil {
		return time.Time{}, err
	}
	return b.x.key(keysymEscape)
}

// procCPU returns the user+system clock ticks pid has used, or -1 if it is
// gone.
func procCPU(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 || f[0] == "Z" {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// holders returns the PIDs of running `ask-confirm hold` processes of the
// binary bin.
func holders(bin string) map[int]bool {
	pids := map[int]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) < 2 || args[1] != "hold" {
			continue
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == bin {
			pids[pid] = true
		}
	}
	return pids
}

// peakRSS follows pid's VmHWM (its own peak resident set, children not
// included) until the process is gone, and returns the last value seen in
// KiB. VmHWM only grows, so the last read before exit is the peak, short of
// growth in the final poll interval.
func peakRSS(pid int, interval time.Duration) (kib int64, polls int) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			return kib, polls
		}
		i := bytes.Index(b, []byte("VmHWM:"))
		if i < 0 {
			return kib, polls // a zombie: its memory is gone
		}
		f := strings.Fields(string(b[i+len("VmHWM:"):]))
		if len(f) > 0 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				kib = n
			}
		}
		polls++
		time.Sleep(interval)
	}
}

// timeMaxRSS reads the maximum resident set size, in KiB, from the report
// /usr/bin/time -v -o wrote.
func timeMaxRSS(out string) (int64, error) {
	b, err := os.ReadFile(out)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Maximum resident set size (kbytes):"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s has no maximum resident set size", out)
}

// stats of a sample in milliseconds.
type stats struct {
	n                     int
	median, p10, p90, p99 float64
	min, max              float64
}

func summarize(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		// Linear interpolation between closest ranks.
		pos := p * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
	return stats{n: len(s), median: q(0.5), p10: q(0.1), p90: q(0.9), p99: q(0.99), min: s[0], max: s[len(s)-1]}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
