//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is what the kernel counted for one finished process.
type usage struct {
	faults   float64 // minor page faults
	cpu      float64 // user plus system CPU time, ms
	switches float64 // voluntary and involuntary context switches
}

// usageOf runs path with args n times and returns the medians of what
// getrusage reports for the child.
func usageOf(n int, path string, args []string, dir string, env []string) (usage, error) {
	var faults, cpu, switches []float64
	for range n {
		c := exec.Command(path, args...)
		c.Dir, c.Env = dir, env
		if err := c.Run(); err != nil {
			return usage{}, fmt.Errorf("%s: %w", path, err)
		}
		ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			return usage{}, fmt.Errorf("no rusage for %s", path)
		}
		faults = append(faults, float64(ru.Minflt))
		cpu = append(cpu, ms(time.Duration(ru.Utime.Nano()+ru.Stime.Nano())))
		switches = append(switches, float64(ru.Nvcsw+ru.Nivcsw))
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	return usage{faults: med(faults), cpu: med(cpu), switches: med(switches)}, nil
}

// inits runs path once with GODEBUG=inittrace=1 and returns the total
// clock time of its package initialisers, in ms, and the packages by cost.
func inits(path string, args []string, dir string, env []string) (total float64, top []string, err error) {
	c := exec.Command(path, args...)
	c.Dir, c.Env = dir, append(slices.Clone(env), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	type pkg struct {
		name string
		ms   float64
	}
	var pkgs []pkg
	// init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		total += v
		pkgs = append(pkgs, pkg{f[1], v})
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return int((b.ms - a.ms) * 1e6) })
	for _, p := range pkgs[:min(6, len(pkgs))] {
		top = append(top, fmt.Sprintf("%s %.3f", p.name, p.ms))
	}
	return total, top, nil
}

// p1Profile notes what P1's two processes are made of: page faults, CPU
// time, context switches and package initialisation, each from the kernel
// or the Go runtime, for the same invocations P1 times.
func (b *bench) p1Profile(dir string, env []string) error {
	const n = 101
	uo, err := usageOf(n, b.bin, p1Args, dir, env)
	if err != nil {
		return err
	}
	ur, err := usageOf(n, b.hello, nil, dir, env)
	if err != nil {
		return err
	}
	io, topO, err := inits(b.bin, p1Args, dir, env)
	if err != nil {
		return err
	}
	ir, _, err := inits(b.hello, nil, dir, env)
	if err != nil {
		return err
	}
	b.note("Profile of the same two invocations (medians of %d runs each from getrusage; package initialisation from one run with GODEBUG=inittrace=1, which slows it):\n", n)
	b.note("| | ask-confirm | hello world | difference |\n|---|---:|---:|---:|")
	b.note("| minor page faults | %.0f | %.0f | %+.0f |", uo.faults, ur.faults, uo.faults-ur.faults)
	b.note("| CPU time, user + system | %.2f ms | %.2f ms | %+.2f ms |", uo.cpu, ur.cpu, uo.cpu-ur.cpu)
	b.note("| context switches | %.0f | %.0f | %+.0f |", uo.switches, ur.switches, uo.switches-ur.switches)
	b.note("| package initialisers | %.2f ms | %.2f ms | %+.2f ms |\n", io, ir, io-ir)
	b.note("Costliest initialisers in ask-confirm (ms): %s.\n", strings.Join(topO, ", "))
	// The sizes docs/performance.md quotes (a test holds it to this line):
	// every program the install command built beside ask-confirm.
	var sizes []string
	for _, p := range []struct{ name, path string }{
		{"ask-confirm", b.bin},
		{"ask-confirm-mcp", filepath.Join(filepath.Dir(b.bin), "ask-confirm-mcp")},
		{"ask-confirm-askpass", filepath.Join(filepath.Dir(b.bin), "ask-confirm-askpass")},
		{"ask-confirm-phone", filepath.Join(filepath.Dir(b.bin), "ask-confirm-phone")},
		{"hello world", b.hello},
	} {
		if fi, err := os.Stat(p.path); err == nil {
			sizes = append(sizes, fmt.Sprintf("%s %.1f MB", p.name, float64(fi.Size())/1e6))
		}
	}
	b.note("Binary sizes: %s.\n", strings.Join(sizes, ", "))
	return nil
}
