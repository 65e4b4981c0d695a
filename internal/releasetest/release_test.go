//go:build release

// Package releasetest checks what scripts/release built, as a person who
// downloads it would meet it: the archives' contents, the checksums, the
// .deb's control data, lintian's verdict, and the .deb installed into a
// scratch root, where the programs run, the man page renders and bash
// completes a flag. scripts/test runs scripts/release and then this:
//
//	ASK_CONFIRM_RELEASE_DIR=DIR ASK_CONFIRM_RELEASE_VERSION=V go test -tags release ./internal/releasetest
package releasetest

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var targets = []struct{ os, arch string }{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

var programs = []string{"ask-confirm", "ask-confirm-askpass", "ask-confirm-mcp", "ask-confirm-phone"}

type release struct {
	dir, version string
	// pages are the man pages the commands generate (docs/man).
	pages []string
	// docs are the archive's docs/ as the checkout has it, man pages
	// aside: its directories (with a slash) and files.
	docs []string
}

func load(t *testing.T) release {
	t.Helper()
	r := release{dir: os.Getenv("ASK_CONFIRM_RELEASE_DIR"), version: os.Getenv("ASK_CONFIRM_RELEASE_VERSION")}
	if r.dir == "" || r.version == "" {
		t.Fatal("ASK_CONFIRM_RELEASE_DIR and ASK_CONFIRM_RELEASE_VERSION name what scripts/release built (scripts/test sets them)")
	}
	entries, err := os.ReadDir("../../docs/man")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		r.pages = append(r.pages, e.Name())
	}
	err = filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		switch {
		case d.IsDir() && d.Name() == "man":
			return filepath.SkipDir
		case d.IsDir():
			rel += "/"
		}
		r.docs = append(r.docs, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r release) name(parts ...string) string {
	return "ask-confirm_" + r.version + "_" + strings.Join(parts, "_")
}

// The release directory holds the six archives, the two packages and the
// checksum file, and every checksum matches.
func TestReleaseFilesAndChecksums(t *testing.T) {
	r := load(t)
	var want []string
	for _, tg := range targets {
		ext := ".tar.gz"
		if tg.os == "windows" {
			ext = ".zip"
		}
		want = append(want, r.name(tg.os, tg.arch)+ext)
	}
	want = append(want, r.name("amd64")+".deb", r.name("arm64")+".deb")
	sums := r.name("checksums.txt")
	var got []string
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
		info, _ := e.Info()
		t.Logf("%-44s %6d KiB", e.Name(), info.Size()/1024)
	}
	if !slices.Equal(got, slices.Sorted(slices.Values(append(slices.Clone(want), sums)))) {
		t.Errorf("the release holds %v, want %v and %s", got, want, sums)
	}
	b, err := os.ReadFile(filepath.Join(r.dir, sums))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("%s: line %q is not sha256sum's", sums, sc.Text())
		}
		listed = append(listed, file)
		data, err := os.ReadFile(filepath.Join(r.dir, file))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: the checksum of %s does not match", sums, file)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(listed)), slices.Sorted(slices.Values(want))) {
		t.Errorf("%s lists %v, want %v", sums, listed, want)
	}
}

// Each archive holds exactly the four programs, built for its target,
// the man pages, the completions, README.md, the docs and LICENSE, in one
// directory of its name; the programs are executable.
func TestArchivesHoldExactlyTheExpectedFiles(t *testing.T) {
	r := load(t)
	for _, tg := range targets {
		top := r.name(tg.os, tg.arch) + "/"
		want := []string{top, top + "LICENSE", top + "README.md", top + "completions/", top + "completions/_ask-confirm",
			top + "completions/ask-confirm.bash", top + "completions/ask-confirm.fish", top + "man/", top + "man/man1/"}
		for _, p := range r.pages {
			want = append(want, top+"man/man1/"+p)
		}
		for _, p := range r.docs {
			want = append(want, top+p)
		}
		exe := ""
		if tg.os == "windows" {
			exe = ".exe"
		}
		for _, p := range programs {
			want = append(want, top+p+exe)
		}
		slices.Sort(want)
		files := readArchive(t, r, tg.os, tg.arch)
		var got []string
		for name, f := range files {
			got = append(got, name)
			if slices.Contains(programs, strings.TrimSuffix(strings.TrimPrefix(name, top), exe)) {
				if tg.os != "windows" && f.mode&0o111 != 0o111 {
					t.Errorf("%s: mode %v, not executable", name, f.mode)
				}
				checkBinary(t, name, f.data, tg.os, tg.arch)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s holds\n  %v\nwant\n  %v", r.name(tg.os, tg.arch), got, want)
		}
	}
}

type file struct {
	mode os.FileMode
	data []byte
}

func readArchive(t *testing.T, r release, goos, arch string) map[string]file {
	t.Helper()
	files := map[string]file{}
	if goos == "windows" {
		z, err := zip.OpenReader(filepath.Join(r.dir, r.name(goos, arch)+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = file{f.Mode(), data}
		}
		return files
	}
	f, err := os.Open(filepath.Join(r.dir, r.name(goos, arch)+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, not root", h.Name, h.Uid, h.Gid)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = file{h.FileInfo().Mode(), data}
	}
}

// checkBinary fails unless data is an executable for goos and arch.
func checkBinary(t *testing.T, name string, data []byte, goos, arch string) {
	t.Helper()
	ok := false
	switch goos {
	case "linux":
		if f, err := elf.NewFile(bytes.NewReader(data)); err == nil {
			ok = f.Machine == map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
		}
	case "darwin":
		if f, err := macho.NewFile(bytes.NewReader(data)); err == nil {
			ok = f.Cpu == map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[arch]
		}
	case "windows":
		if f, err := pe.NewFile(bytes.NewReader(data)); err == nil {
			ok = f.Machine == map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[arch]
		}
	}
	if !ok {
		t.Errorf("%s is not a %s/%s executable", name, goos, arch)
	}
}

// The .deb's control data, its file list, and lintian's verdict: no error
// (the programs' static linking is overridden in the package, and said why).
func TestDebianPackages(t *testing.T) {
	r := load(t)
	for _, arch := range []string{"amd64", "arm64"} {
		deb := filepath.Join(r.dir, r.name(arch)+".deb")
		info := run(t, "dpkg-deb", "--field", deb, "Package", "Version", "Architecture")
		// A pre-release's hyphen is a tilde in Debian's version order.
		want := "Package: ask-confirm\nVersion: " + strings.Replace(r.version, "-", "~", 1) + "\nArchitecture: " + arch + "\n"
		if info != want {
			t.Errorf("%s: control fields\n%s\nwant\n%s", deb, info, want)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(run(t, "dpkg-deb", "--contents", deb)), "\n") {
			f := strings.Fields(line)
			if f[1] != "root/root" {
				t.Errorf("%s: %s", deb, line)
			}
			if !strings.HasSuffix(f[len(f)-1], "/") {
				got = append(got, f[len(f)-1])
			}
		}
		want2 := []string{"./usr/share/bash-completion/completions/ask-confirm", "./usr/share/doc/ask-confirm/changelog.gz",
			"./usr/share/doc/ask-confirm/copyright", "./usr/share/fish/vendor_completions.d/ask-confirm.fish",
			"./usr/share/lintian/overrides/ask-confirm", "./usr/share/zsh/vendor-completions/_ask-confirm"}
		for _, p := range programs {
			want2 = append(want2, "./usr/bin/"+p)
		}
		for _, p := range r.pages {
			want2 = append(want2, "./usr/share/man/man1/"+p+".gz")
		}
		slices.Sort(got)
		slices.Sort(want2)
		if !slices.Equal(got, want2) {
			t.Errorf("%s holds\n  %v\nwant\n  %v", deb, got, want2)
		}
		out, err := exec.Command("lintian", "--fail-on", "error", "--display-info", deb).CombinedOutput()
		t.Logf("lintian %s:\n%s", filepath.Base(deb), out)
		if err != nil {
			t.Errorf("lintian fails %s: %v", deb, err)
		}
	}
}

// The .deb of this machine's architecture installed into a scratch root
// with dpkg --root (unpacked
// with dpkg-deb -x where this is not root): the programs run and say the
// release's version, man ask-confirm renders, and bash-completion, finding
// the completion where the package put it, completes a flag.
func TestDebianPackageInstalled(t *testing.T) {
	r := load(t)
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Fatalf("the installed package is checked on linux/amd64 or linux/arm64, for which there is one; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	deb := filepath.Join(r.dir, r.name(runtime.GOARCH)+".deb")
	root := t.TempDir()
	if os.Geteuid() == 0 {
		for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "dpkg", "--root="+root, "--log=/dev/null", "--install", deb)
		if s := run(t, "dpkg", "--root="+root, "--status", "ask-confirm"); !strings.Contains(s, "Status: install ok installed") {
			t.Errorf("dpkg --status after the install:\n%s", s)
		}
	} else {
		run(t, "dpkg-deb", "-x", deb, root)
	}
	bin := filepath.Join(root, "usr/bin")
	if v := run(t, filepath.Join(bin, "ask-confirm"), "version"); !strings.HasPrefix(v, "ask-confirm v"+r.version+" (commit ") {
		t.Errorf("ask-confirm version says %q", v)
	}
	for _, p := range []string{"ask-confirm-mcp"} {
		if h := run(t, filepath.Join(bin, p), "--help"); !strings.Contains(h, "Model Context Protocol") {
			t.Errorf("%s --help says %q", p, h)
		}
	}
	// ask-confirm-askpass takes only a prompt: with none, it says so and exits 2.
	c := exec.Command(filepath.Join(bin, "ask-confirm-askpass"))
	if out, err := c.CombinedOutput(); c.ProcessState == nil || c.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "SSH_ASKPASS") {
		t.Errorf("ask-confirm-askpass with no prompt: %v, %q", err, out)
	}

	page := run(t, "env", "MANWIDTH=80", "man", "-l", filepath.Join(root, "usr/share/man/man1/ask-confirm.1.gz"))
	for _, want := range []string{"ASK-CONFIRM(1)", "NAME", "SYNOPSIS", "OPTIONS", "--timeout", "ask-confirm " + r.version} {
		if !strings.Contains(page, want) {
			t.Errorf("man ask-confirm does not show %q:\n%s", want, page)
		}
	}

	// bash-completion loads a command's completion on first use from
	// XDG_DATA_DIRS/bash-completion/completions, where the package put it.
	script := `. /usr/share/bash-completion/bash_completion
__load_completion ask-confirm || { echo "no completion found for ask-confirm"; exit 1; }
COMP_LINE="ask-confirm --tim"; COMP_WORDS=(ask-confirm --tim); COMP_CWORD=1; COMP_POINT=${#COMP_LINE}
$(complete -p ask-confirm | sed 's/.* -F \([^ ]*\) .*/\1/') ask-confirm --tim ask-confirm 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
	c = exec.Command("bash", "-c", script)
	c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "XDG_DATA_DIRS="+filepath.Join(root, "usr/share"), "BASH_COMPLETION_USER_DIR="+t.TempDir())
	out, err := c.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "--timeout" {
		t.Errorf("bash completes ask-confirm --tim to %q (%v), want --timeout", out, err)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	c := exec.Command(name, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
