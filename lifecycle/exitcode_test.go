package lifecycle

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// README.md's exit-code table is ExitCodes, row for row: the help text is
// generated from ExitCodes, so the two cannot drift apart.
func TestREADMEExitCodeTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The table of the "Exit codes" section; other sections have tables
	// of their own contracts' exit codes (the agent hooks').
	_, section, _ := strings.Cut(string(b), "\n## Exit codes\n")
	section, _, _ = strings.Cut(section, "\n## ")
	rows := regexp.MustCompile(`(?m)^\| (\d) \| (.+) \|$`).FindAllStringSubmatch(section, -1)
	if len(rows) != len(ExitCodes) {
		t.Fatalf("README.md has %d exit-code rows, ExitCodes %d", len(rows), len(ExitCodes))
	}
	for i, row := range rows {
		want := ExitCodes[i]
		if row[1] != strconv.Itoa(int(want.Code)) || row[2] != want.Meaning {
			t.Errorf("README.md row %d is %q: %q, want %d: %q", i, row[1], row[2], want.Code, want.Meaning)
		}
	}
}
