package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Program returns the path of another of this project's programs (name,
// without .exe): the one beside this executable, or beside the file it
// links to, or else the one on PATH; ok is false where there is none. The
// programs are installed together, so the one beside is the same release.
func Program(name string) (path string, ok bool) {
	file := name
	if runtime.GOOS == "windows" {
		file += ".exe"
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	return "", false
}
