package lifecycle

import (
	"fmt"
	"runtime"
)

// VersionLine is the line each of ask-confirm's programs prints for its
// version, program being its name: "ask-confirm-mcp v1.2.3 (commit
// 0123456789ab, 2026-01-02T03:04:05Z; go1.25.0, linux/amd64)", with the
// commit part only where Build knows it. The four programs say it alike,
// so that a bug report names the build whichever program it is about.
func VersionLine(program string) string {
	built := ""
	if rev, at := Build(); rev != "" {
		built = "commit " + rev
		if at != "" {
			built += ", " + at
		}
		built += "; "
	}
	return fmt.Sprintf("%s %s (%s%s, %s/%s)", program, Version(), built, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
