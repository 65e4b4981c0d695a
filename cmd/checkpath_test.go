//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/store"
)

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "answers.db")
	must(t, os.WriteFile(file, nil, 0o600))
	open := filepath.Join(dir, "open.db")
	must(t, os.WriteFile(open, nil, 0o644))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink(dir, link))

	cases := []struct {
		name    string
		path    string
		isDir   bool
		exists  bool
		safe    bool
		mode    string
		problem string
		note    string
	}{
		{"missing directory", filepath.Join(dir, "nope"), true, false, true, "", "", msgDoctorMissingDir},
		{"missing file", filepath.Join(dir, "nope.db"), false, false, true, "", "", msgDoctorMissingFile},
		{"private directory", dir, true, true, true, "0700", "", ""},
		{"private file", file, false, true, true, "0600", "", ""},
		{"file open to others", open, false, true, true, "0644", "", "chmod 600"},
		{"directory that is a symbolic link", link, true, true, false, "-", store.ProblemSymlink, ""},
		{"file where a directory belongs", file, true, true, false, "0600", store.ProblemNotDir, ""},
		{"directory where a file belongs", dir, false, true, false, "0700", store.ProblemNotFile, ""},
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(dir, "theirs")
		must(t, os.Mkdir(theirs, 0o700))
		must(t, os.Chown(theirs, 65534, 65534))
		cases = append(cases, struct {
			name    string
			path    string
			isDir   bool
			exists  bool
			safe    bool
			mode    string
			problem string
			note    string
		}{"another user's directory", theirs, true, true, false, "0700", store.ProblemNotMine, ""})
	}
	must(t, os.Chmod(dir, 0o700))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pc := checkPath(c.name, c.path, c.isDir)
			if c.mode == "-" { // symbolic links' modes differ between systems
				pc.Mode = "-"
			}
			if pc.Exists != c.exists || pc.Safe != c.safe || pc.Mode != c.mode || pc.Problem != c.problem || !strings.Contains(pc.Note, c.note) {
				t.Errorf("checkPath = %+v, want exists %v, safe %v, mode %q, problem %q, a note with %q", pc, c.exists, c.safe, c.mode, c.problem, c.note)
			}
		})
	}
}
