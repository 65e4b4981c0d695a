//go:build e2e && unix

package e2e

import (
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// What StampedProgram stamps, as a release stamps its programs
// (.goreleaser.yaml's ldflags).
const (
	StampVersion = "v9.8.7-rc.1"
	StampCommit  = "0123456789ab"
	StampDate    = "2026-01-02T03:04:05Z"
)

// StampedProgram builds the program of the package pkg (an import path) as
// a release does, with the version, commit and date stamped into package
// lifecycle, and returns the path of the program.
func StampedProgram(t *testing.T, pkg string) string {
	t.Helper()
	const v = "github.com/ask-confirm/ask-confirm/lifecycle."
	out := filepath.Join(t.TempDir(), path.Base(pkg))
	build := exec.Command("go", "build", "-trimpath", "-o", out,
		"-ldflags", "-X "+v+"version="+StampVersion+" -X "+v+"commit="+StampCommit+" -X "+v+"date="+StampDate, pkg)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(build.Args[1:], " "), err, b)
	}
	return out
}

// StampedVersionLine is the line a program that StampedProgram built
// prints for its version, as ask-confirm version prints its own: the
// program's name, the stamps, and the Go release and platform it was built
// with.
func StampedVersionLine(t *testing.T, program string) string {
	t.Helper()
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	return program + " " + StampVersion + " (commit " + StampCommit + ", " + StampDate + "; " +
		strings.TrimSpace(string(goVersion)) + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
}
