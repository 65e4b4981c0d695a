//go:build release

// Package releasetest checks what scripts/release built with GoReleaser, as
// a person who downloads it would meet it: the archives' contents, the
// checksums and their minisign signature (verified by minisign, and the
// README's verify step run on a tampered release), the licences of the
// linked modules in every archive and package, the .deb's control data,
// copyright and lintian's verdict, and the .deb installed into a scratch
// root, where the programs run, the man page renders and bash completes a
// flag; the .rpm's files, documentation, licences and scripts, installed
// and erased with rpm; the .apk's files; each format's version rules; the
// Homebrew formula (ruby -c, and its install and test run); the Scoop and
// winget manifests with their URLs and hashes, the SBOMs; the README's
// install lines; and a second build of the same commit, byte for byte the
// same. scripts/test makes a throwaway minisign key, runs scripts/release
// twice with it and then this:
//
//	ASK_CONFIRM_RELEASE_DIR=DIR ASK_CONFIRM_RELEASE_AGAIN_DIR=DIR2 ASK_CONFIRM_RELEASE_VERSION=V \
//	  ASK_CONFIRM_RELEASE_PUBKEY=KEY.pub go test -tags release ./internal/releasetest
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
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var targets = []struct{ os, arch string }{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}, {"windows", "arm64"},
}

var programs = []string{"ask-confirm", "ask-confirm-askpass", "ask-confirm-mcp", "ask-confirm-phone"}

// packageFormats are the Linux packages, each for amd64 and arm64.
var packageFormats = []string{"apk", "deb", "rpm"}

// manifests are what installs the archives elsewhere, written beside them:
// the Homebrew formula, the Scoop manifest and the winget manifests.
var manifests = []string{"ask-confirm.rb", "ask-confirm.json", "ask-confirm.ask-confirm.installer.yaml",
	"ask-confirm.ask-confirm.locale.en-US.yaml", "ask-confirm.ask-confirm.yaml"}

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

// archiveName is the archive of one target.
func (r release) archiveName(goos, arch string) string {
	if goos == "windows" {
		return r.name(goos, arch) + ".zip"
	}
	return r.name(goos, arch) + ".tar.gz"
}

// The release directory holds the six archives and six packages with an
// SBOM each, the checksum file and its signature, and the manifests, and
// every checksum matches.
func TestReleaseFilesAndChecksums(t *testing.T) {
	r := load(t)
	var want []string
	for _, tg := range targets {
		want = append(want, r.archiveName(tg.os, tg.arch), r.archiveName(tg.os, tg.arch)+".sbom.json")
	}
	for _, format := range packageFormats {
		for _, arch := range []string{"amd64", "arm64"} {
			want = append(want, r.name(arch)+"."+format, r.name(arch)+"."+format+".sbom.json")
		}
	}
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
	if all := append(append(slices.Clone(want), sums, sums+".minisig"), manifests...); !slices.Equal(got, slices.Sorted(slices.Values(all))) {
		t.Errorf("the release holds %v, want %v", got, all)
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
// the man pages, the completions (PowerShell's too), README.md, the docs,
// LICENSE and the linked modules' licences, in one directory of its name;
// the programs are executable. (GoReleaser writes no entries for the
// directories, which tar and unzip make as they go.)
func TestArchivesHoldExactlyTheExpectedFiles(t *testing.T) {
	r := load(t)
	for _, tg := range targets {
		top := r.name(tg.os, tg.arch) + "/"
		want := []string{top + "LICENSE", top + "README.md", top + "completions/_ask-confirm",
			top + "completions/ask-confirm.bash", top + "completions/ask-confirm.fish", top + "completions/ask-confirm.ps1"}
		for rel := range r.wantLicences(t, tg.os) {
			want = append(want, top+"licenses/"+rel)
		}
		for _, p := range r.pages {
			want = append(want, top+"man/man1/"+p)
		}
		for _, p := range r.docs {
			if !strings.HasSuffix(p, "/") {
				want = append(want, top+p)
			}
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
			if strings.HasSuffix(name, "/") {
				continue
			}
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
		// PowerShell's completion, as ask-confirm completion powershell
		// writes it, which a Windows user dot-sources from $PROFILE.
		if ps1 := string(files[top+"completions/ask-confirm.ps1"].data); !strings.Contains(ps1, "Register-ArgumentCompleter -CommandName 'ask-confirm'") {
			t.Errorf("%s: completions/ask-confirm.ps1 is not PowerShell's completion of ask-confirm:\n%.300s", r.name(tg.os, tg.arch), ps1)
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
	// The stamp names this checkout's commit (GoReleaser without its git
	// information stamps "none").
	commit := strings.TrimSpace(run(t, "git", "rev-parse", "--short=12", "HEAD"))
	if v := run(t, filepath.Join(bin, "ask-confirm"), "version"); !strings.HasPrefix(v, "ask-confirm v"+r.version+" (commit "+commit) {
		t.Errorf("ask-confirm version says %q, want v%s and the commit %s", v, r.version, commit)
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

// rpmArch and apkArch are the names RPM and Alpine give Go's
// architectures.
var (
	rpmArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}
	apkArch = rpmArch
)

// packageFiles are the files every package installs, and where each
// distribution's zsh looks for completions.
func (r release) packageFiles(zsh string, extra ...string) []string {
	files := append([]string{"/usr/share/bash-completion/completions/ask-confirm",
		"/usr/share/fish/vendor_completions.d/ask-confirm.fish", zsh + "/_ask-confirm"}, extra...)
	for _, p := range programs {
		files = append(files, "/usr/bin/"+p)
	}
	for _, p := range r.pages {
		files = append(files, "/usr/share/man/man1/"+p+".gz")
	}
	slices.Sort(files)
	return files
}

// licences are where the .rpm and .apk put the licences: LICENSE, and
// the linked modules' licence files, as MODULE/FILE.
func (r release) licences(t *testing.T) []string {
	t.Helper()
	files := []string{"/usr/share/licenses/ask-confirm/LICENSE"}
	for rel := range r.wantLicences(t, "linux") {
		files = append(files, "/usr/share/licenses/ask-confirm/"+rel)
	}
	slices.Sort(files)
	return files
}

// licenceDirs are /usr/share/licenses/ask-confirm and the directories in
// it, which the .rpm owns.
func licenceDirs(files []string) []string {
	dirs := []string{"/usr/share/licenses/ask-confirm"}
	for _, f := range files {
		for d := filepath.Dir(f); d != "/usr/share/licenses/ask-confirm"; d = filepath.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.Sort(dirs)
	return dirs
}

// The .rpm, read by rpm itself: its name, version and architecture, its
// files (rpm -qpl) and directories, the man pages marked as documentation
// and the licences as licences, the dialog programs recommended, and no
// scripts; installed into a scratch root and erased, it leaves nothing of
// its own behind, /usr/share/licenses/ask-confirm included.
func TestRPMPackages(t *testing.T) {
	r := load(t)
	licences := r.licences(t)
	dirs := licenceDirs(licences)
	var pages []string
	for _, p := range r.pages {
		pages = append(pages, "/usr/share/man/man1/"+p+".gz")
	}
	for _, arch := range []string{"amd64", "arm64"} {
		pkg := filepath.Join(r.dir, r.name(arch)+".rpm")
		// RPM, like Debian, sorts a pre-release's tilde before the release.
		want := "ask-confirm " + strings.Replace(r.version, "-", "~", 1) + " " + rpmArch[arch]
		if got := run(t, "rpm", "-qp", "--queryformat", "%{NAME} %{VERSION} %{ARCH}", pkg); got != want {
			t.Errorf("%s is %q, want %q", pkg, got, want)
		}
		got := strings.Fields(run(t, "rpm", "-qpl", pkg))
		if want := slices.Sorted(slices.Values(append(r.packageFiles("/usr/share/zsh/site-functions", licences...), dirs...))); !slices.Equal(got, want) {
			t.Errorf("rpm -qpl %s:\n  %v\nwant\n  %v", pkg, got, want)
		}
		var owned []string
		for _, line := range strings.Split(strings.TrimSpace(run(t, "rpm", "-qp", "--queryformat", "[%{FILEMODES:perms} %{FILENAMES}\n]", pkg)), "\n") {
			if mode, name, _ := strings.Cut(line, " "); strings.HasPrefix(mode, "d") {
				owned = append(owned, name)
			}
		}
		if !slices.Equal(owned, dirs) {
			t.Errorf("%s owns the directories %v, want %v", pkg, owned, dirs)
		}
		if got := strings.Fields(run(t, "rpm", "-qp", "--docfiles", pkg)); !slices.Equal(got, pages) {
			t.Errorf("%s marks as documentation\n  %v\nwant the man pages\n  %v", pkg, got, pages)
		}
		if got := strings.Fields(run(t, "rpm", "-qp", "--licensefiles", pkg)); !slices.Equal(got, licences) {
			t.Errorf("%s marks as licences\n  %v\nwant\n  %v", pkg, got, licences)
		}
		if s := run(t, "rpm", "-qp", "--scripts", pkg); strings.TrimSpace(s) != "" {
			t.Errorf("%s has scripts:\n%s", pkg, s)
		}
		if s := run(t, "rpm", "-qp", "--recommends", pkg); !strings.Contains(s, "zenity") || !strings.Contains(s, "qarma") {
			t.Errorf("%s recommends %q, not the dialog programs", pkg, s)
		}
	}
	if os.Geteuid() != 0 {
		t.Fatal("the .rpm is installed and erased with rpm --root, which sets files' owners: run as root (scripts/test is)")
	}
	root := t.TempDir()
	pkg := filepath.Join(r.dir, r.name(runtime.GOARCH)+".rpm")
	run(t, "rpm", "--root", root, "--initdb")
	// Debian's rpm has no system database of Fedora's packages for the
	// dependencies, which are the dialog programs, recommended only.
	run(t, "rpm", "--root", root, "--install", "--nodeps", pkg)
	for _, f := range append(slices.Clone(licences), "/usr/bin/ask-confirm", pages[0]) {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("rpm --install %s put no %s", filepath.Base(pkg), f)
		}
	}
	run(t, "rpm", "--root", root, "--erase", "ask-confirm")
	for _, d := range []string{"/usr/share/licenses/ask-confirm", "/usr/bin/ask-confirm"} {
		if _, err := os.Stat(filepath.Join(root, d)); err == nil {
			t.Errorf("rpm --erase ask-confirm left %s behind", d)
		}
	}
}

// The .apk, listed as apk reads it (a concatenation of gzipped tar
// sections: the control section's .PKGINFO, then the files): its name,
// version and architecture, its files, and no install scripts.
func TestAlpinePackages(t *testing.T) {
	r := load(t)
	for _, arch := range []string{"amd64", "arm64"} {
		pkg := filepath.Join(r.dir, r.name(arch)+".apk")
		f, err := os.Open(pkg)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(gz)
		var files []string
		pkginfo := ""
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			switch {
			case h.Name == ".PKGINFO":
				b, _ := io.ReadAll(tr)
				pkginfo = string(b)
			case strings.HasPrefix(h.Name, ".pre-") || strings.HasPrefix(h.Name, ".post-"):
				t.Errorf("%s has the script %s", pkg, h.Name)
			case strings.HasPrefix(h.Name, ".") || h.Typeflag == tar.TypeDir:
			default:
				files = append(files, "/"+h.Name)
				if h.Uid != 0 || h.Gid != 0 {
					t.Errorf("%s: %s is owned by %d:%d, not root", pkg, h.Name, h.Uid, h.Gid)
				}
			}
		}
		for _, want := range []string{"pkgname = ask-confirm\n", "pkgver = " + apkVersion(r.version) + "\n", "arch = " + apkArch[arch] + "\n"} {
			if !strings.Contains(pkginfo, want) {
				t.Errorf("%s: .PKGINFO lacks %q:\n%s", pkg, want, pkginfo)
			}
		}
		slices.Sort(files)
		if want := r.packageFiles("/usr/share/zsh/site-functions", r.licences(t)...); !slices.Equal(files, want) {
			t.Errorf("%s holds\n  %v\nwant\n  %v", pkg, files, want)
		}
	}
}

// sums are the release's checksums, by file name.
func (r release) sums(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, r.name("checksums.txt")))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, file, _ := strings.Cut(line, "  ")
		sums[file] = sum
	}
	return sums
}

// url is where a release's file is downloaded from.
func (r release) url(file string) string {
	return "https://github.com/ask-confirm/ask-confirm/releases/download/v" + r.version + "/" + file
}

// The Homebrew formula is Ruby that ruby -c accepts, and names each macOS
// and Linux archive with its checksum, and installs the four programs, the
// man pages, the completions and the licences from it.
func TestHomebrewFormula(t *testing.T) {
	r := load(t)
	formula := filepath.Join(r.dir, "ask-confirm.rb")
	if out := run(t, "ruby", "-c", formula); strings.TrimSpace(out) != "Syntax OK" {
		t.Errorf("ruby -c %s: %s", formula, out)
	}
	b, err := os.ReadFile(formula)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	sums := r.sums(t)
	// Each url line is followed by its archive's sha256 line.
	var urls []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "url ") {
			continue
		}
		url := strings.Trim(strings.TrimPrefix(line, "url "), `"`)
		urls = append(urls, url)
		file := filepath.Base(url)
		if url != r.url(file) {
			t.Errorf("the formula downloads %s, not from the release", url)
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != `sha256 "`+sums[file]+`"` {
			t.Errorf("the formula's checksum of %s is not the release's %s", file, sums[file])
		}
	}
	var want []string
	for _, tg := range targets {
		if tg.os != "windows" {
			want = append(want, r.url(r.archiveName(tg.os, tg.arch)))
		}
	}
	slices.Sort(urls)
	slices.Sort(want)
	if !slices.Equal(urls, want) {
		t.Errorf("the formula downloads\n  %v\nwant\n  %v", urls, want)
	}
	for _, s := range []string{`bin.install "ask-confirm", "ask-confirm-mcp", "ask-confirm-askpass", "ask-confirm-phone"`,
		`man1.install Dir["man/man1/*.1"]`, `bash_completion.install`, `zsh_completion.install`, `fish_completion.install`,
		`prefix.install "licenses"`} {
		if !strings.Contains(text, s) {
			t.Errorf("the formula does not %s:\n%s", s, text)
		}
	}
}

// The Scoop manifest is JSON naming the Windows archives with their
// checksums, and the four programs in them.
func TestScoopManifest(t *testing.T) {
	r := load(t)
	var m struct {
		Version      string `json:"version"`
		Architecture map[string]struct {
			URL  string   `json:"url"`
			Hash string   `json:"hash"`
			Bin  []string `json:"bin"`
		} `json:"architecture"`
	}
	b, err := os.ReadFile(filepath.Join(r.dir, "ask-confirm.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("ask-confirm.json: %v", err)
	}
	if m.Version != r.version {
		t.Errorf("the Scoop manifest's version is %q", m.Version)
	}
	sums := r.sums(t)
	for scoop, arch := range map[string]string{"64bit": "amd64", "arm64": "arm64"} {
		a := m.Architecture[scoop]
		file := r.archiveName("windows", arch)
		if a.URL != r.url(file) || a.Hash != sums[file] {
			t.Errorf("the Scoop manifest's %s is %s (%s), want %s (%s)", scoop, a.URL, a.Hash, r.url(file), sums[file])
		}
		for _, p := range programs {
			if !slices.Contains(a.Bin, r.name("windows", arch)+"/"+p+".exe") {
				t.Errorf("the Scoop manifest's %s does not install %s: %v", scoop, p, a.Bin)
			}
		}
	}
}

// The winget manifests are YAML (read by Ruby's parser), of one package
// and version, whose installers are the Windows archives with their
// checksums, x64 then arm64, and which put the four programs on PATH; the
// installer manifest is dated as the commit, not as the day of the build.
func TestWingetManifests(t *testing.T) {
	r := load(t)
	sums := r.sums(t)
	var installer struct {
		PackageIdentifier, PackageVersion, ManifestType, ReleaseDate string
		Installers                                                   []struct {
			Architecture, InstallerUrl, InstallerSha256 string
			NestedInstallerFiles                        []struct{ RelativeFilePath, PortableCommandAlias string }
		}
	}
	for _, name := range manifests {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		var m struct{ PackageIdentifier, PackageVersion, ManifestType string }
		data := yamlAsJSON(t, filepath.Join(r.dir, name))
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.PackageIdentifier != "ask-confirm.ask-confirm" || m.PackageVersion != r.version {
			t.Errorf("%s is of %s %s", name, m.PackageIdentifier, m.PackageVersion)
		}
		if m.ManifestType == "installer" {
			if err := json.Unmarshal(data, &installer); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	var archs []string
	for _, in := range installer.Installers {
		arch := map[string]string{"x64": "amd64", "arm64": "arm64"}[in.Architecture]
		archs = append(archs, arch)
		file := r.archiveName("windows", arch)
		if in.InstallerUrl != r.url(file) || !strings.EqualFold(in.InstallerSha256, sums[file]) {
			t.Errorf("the winget installer for %s is %s (%s), want %s (%s)", in.Architecture, in.InstallerUrl, in.InstallerSha256, r.url(file), sums[file])
		}
		var aliases []string
		for _, f := range in.NestedInstallerFiles {
			aliases = append(aliases, f.PortableCommandAlias)
			if f.RelativeFilePath != r.name("windows", arch)+`\`+f.PortableCommandAlias+".exe" {
				t.Errorf("the winget installer for %s runs %s as %s", in.Architecture, f.RelativeFilePath, f.PortableCommandAlias)
			}
		}
		slices.Sort(aliases)
		if !slices.Equal(aliases, programs) {
			t.Errorf("the winget installer for %s puts %v on PATH, want %v", in.Architecture, aliases, programs)
		}
	}
	if !slices.Equal(archs, []string{"amd64", "arm64"}) {
		t.Errorf("the winget installers are for %v, want amd64 (x64) then arm64", archs)
	}
	ct, err := strconv.ParseInt(strings.TrimSpace(run(t, "git", "log", "-1", "--format=%ct", "HEAD")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if date := time.Unix(ct, 0).UTC().Format(time.DateOnly); installer.ReleaseDate != date {
		t.Errorf("the winget installer manifest is dated %q, not as the commit, %s", installer.ReleaseDate, date)
	}
}

// yamlAsJSON is the YAML file as JSON, through Ruby's YAML parser (Ruby is
// there for the formula), which keeps a YAML library out of the module.
func yamlAsJSON(t *testing.T, path string) []byte {
	t.Helper()
	return []byte(run(t, "ruby", "-ryaml", "-rjson", "-e", "print JSON.generate(YAML.safe_load(File.read(ARGV[0])))", path))
}

// Each archive's and package's SBOM is CycloneDX JSON about the module
// for its OS and architecture, at the version the programs say (not a
// pseudo-version), and lists the modules the programs are built from, at
// the versions go.mod requires, and the standard library at go.mod's
// toolchain.
func TestSBOMs(t *testing.T) {
	r := load(t)
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	type sbom struct{ name, os, arch string }
	var sboms []sbom
	for _, tg := range targets {
		sboms = append(sboms, sbom{r.archiveName(tg.os, tg.arch) + ".sbom.json", tg.os, tg.arch})
	}
	for _, format := range packageFormats {
		for _, arch := range []string{"amd64", "arm64"} {
			sboms = append(sboms, sbom{r.name(arch) + "." + format + ".sbom.json", "linux", arch})
		}
	}
	for _, tg := range sboms {
		name := tg.name
		var bom struct {
			BOMFormat, SpecVersion, SerialNumber string
			Metadata                             struct {
				Timestamp string
				Component struct{ Name, Version, Purl string }
			}
			Components []struct{ Name, Version string }
		}
		b, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &bom); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bom.BOMFormat != "CycloneDX" || bom.SpecVersion == "" {
			t.Errorf("%s is %q %q, not CycloneDX", name, bom.BOMFormat, bom.SpecVersion)
		}
		// A serial number or a time would make two builds differ.
		if bom.SerialNumber != "" || bom.Metadata.Timestamp != "" {
			t.Errorf("%s has the serial number %q and the time %q", name, bom.SerialNumber, bom.Metadata.Timestamp)
		}
		if c := bom.Metadata.Component; c.Name != "github.com/ask-confirm/ask-confirm" || !strings.Contains(c.Purl, "goarch="+tg.arch+"&goos="+tg.os) {
			t.Errorf("%s is about %s (%s), not the module for %s/%s", name, c.Name, c.Purl, tg.os, tg.arch)
		}
		if c := bom.Metadata.Component; c.Version != "v"+r.version || !strings.Contains(c.Purl, "@v"+r.version+"?") {
			t.Errorf("%s names the module at %s (%s), not v%s, the version its programs say", name, c.Version, c.Purl, r.version)
		}
		versions := map[string]string{}
		for _, c := range bom.Components {
			versions[c.Name] = c.Version
		}
		for _, m := range []string{"github.com/spf13/cobra", "github.com/ncruces/zenity", "go.etcd.io/bbolt", "github.com/modelcontextprotocol/go-sdk"} {
			if v := versions[m]; v == "" || !strings.Contains(string(gomod), "\t"+m+" "+v+"\n") {
				t.Errorf("%s lists %s at %q, not at go.mod's version", name, m, v)
			}
		}
		if v := versions["std"]; v == "" || !strings.Contains(string(gomod), "\ntoolchain "+v+"\n") {
			t.Errorf("%s lists the standard library at %q, not at go.mod's toolchain", name, v)
		}
	}
}

// Two builds of one commit are the same, byte for byte: every archive,
// package, SBOM, manifest (the winget installer manifest included), the
// checksums and their signature (the same key signs both).
func TestTwoBuildsAreIdentical(t *testing.T) {
	r := load(t)
	again := os.Getenv("ASK_CONFIRM_RELEASE_AGAIN_DIR")
	if again == "" {
		t.Fatal("ASK_CONFIRM_RELEASE_AGAIN_DIR names a second build of the same commit (scripts/test sets it)")
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	entries2, err := os.ReadDir(again)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(entries2) {
		t.Errorf("the first build made %d files, the second %d", len(entries), len(entries2))
	}
	for _, e := range entries {
		a, err := os.ReadFile(filepath.Join(r.dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(again, e.Name()))
		if err != nil {
			t.Errorf("the second build has no %s", e.Name())
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of the same commit", e.Name())
		}
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
