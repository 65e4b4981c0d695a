//go:build release

package releasetest

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A linkedModule is a module whose code a program links, as the program's
// build information names it.
type linkedModule struct{ path, version string }

// std names the Go standard library among the licences (licenses/go/).
const std = "go"

var (
	linkedCache sync.Map // target → []linkedModule
	goVersions  sync.Map // target → []string, each program's Go version
)

// linked are the modules the four programs of the target's archive link,
// read from each program's build information (what go version -m prints),
// with the main module left out.
func (r release) linked(t *testing.T, goos, arch string) []linkedModule {
	t.Helper()
	key := goos + "/" + arch
	if v, ok := linkedCache.Load(key); ok {
		return v.([]linkedModule)
	}
	var mods []linkedModule
	var versions []string
	top := r.name(goos, arch) + "/"
	for name, f := range readArchive(t, r, goos, arch) {
		p := strings.TrimSuffix(strings.TrimPrefix(name, top), ".exe")
		if !slices.Contains(programs, p) {
			continue
		}
		bi, err := buildinfo.Read(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("%s: reading its build information: %v", name, err)
		}
		versions = append(versions, bi.GoVersion)
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			m := linkedModule{d.Path, d.Version}
			if !slices.Contains(mods, m) {
				mods = append(mods, m)
			}
		}
	}
	if len(versions) != len(programs) {
		t.Fatalf("%s holds %d of the four programs", r.archiveName(goos, arch), len(versions))
	}
	slices.SortFunc(mods, func(a, b linkedModule) int { return strings.Compare(a.path, b.path) })
	linkedCache.Store(key, mods)
	goVersions.Store(key, versions)
	return mods
}

// licenceName tells a module's licence, NOTICE and PATENTS files by name.
var licenceName = regexp.MustCompile(`(?i)^(LICEN[CS]E|COPYING|UNLICENSE|NOTICE|PATENTS)([-_.][A-Za-z0-9-]*)?(\.txt|\.md|\.rst)?$`)

// moduleDirs are the module cache's directories of the module's build
// list, by path; the Go standard library's is GOROOT.
var moduleDirs = sync.OnceValues(func() (map[string][2]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", `{{.Path}} {{with .Replace}}{{.Version}} {{.Dir}}{{else}}{{.Version}} {{.Dir}}{{end}}`, "all").Output()
	if err != nil {
		return nil, err
	}
	dirs := map[string][2]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			dirs[f[0]] = [2]string{f[1], f[2]}
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	dirs[std] = [2]string{"", strings.TrimSpace(string(goroot))}
	return dirs, nil
})

// wantLicences are what licenses/ must hold in the archives of goos, and
// the packages (goos linux): the licence, NOTICE and PATENTS files of every
// module the programs built for goos link (on either architecture), and
// the Go standard library's, as MODULE/FILE, with their text in the
// module cache. It fails the test for a linked module without a licence
// file.
func (r release) wantLicences(t *testing.T, goos string) map[string][]byte {
	t.Helper()
	dirs, err := moduleDirs()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	mods := []linkedModule{{path: std}}
	for _, arch := range []string{"amd64", "arm64"} {
		for _, m := range r.linked(t, goos, arch) {
			if !slices.Contains(mods, m) {
				mods = append(mods, m)
			}
		}
	}
	want := map[string][]byte{}
	for _, m := range mods {
		d, ok := dirs[m.path]
		if !ok || (m.path != std && d[0] != m.version) {
			t.Fatalf("the programs for %s link %s %s, which go.mod's build list has at %q", goos, m.path, m.version, d[0])
		}
		entries, err := os.ReadDir(d[1])
		if err != nil {
			t.Fatal(err)
		}
		licence := false
		for _, e := range entries {
			g := licenceName.FindStringSubmatch(e.Name())
			if g == nil || !e.Type().IsRegular() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(d[1], e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			want[m.path+"/"+e.Name()] = b
			licence = licence || !slices.Contains([]string{"NOTICE", "PATENTS"}, strings.ToUpper(g[1]))
		}
		if !licence {
			t.Errorf("the programs for %s link %s %s, which has no licence file in %s", goos, m.path, m.version, d[1])
		}
	}
	return want
}

// Every archive carries, in licenses/, the licence files (and NOTICE and
// PATENTS files) of every module its programs link, read from the
// programs themselves, and the Go standard library's, each the module's
// own text; and no licence of a module no program for its OS links.
func TestArchivesCarryTheLicencesOfTheLinkedModules(t *testing.T) {
	r := load(t)
	for _, tg := range targets {
		want := r.wantLicences(t, tg.os)
		prefix := r.name(tg.os, tg.arch) + "/licenses/"
		got := map[string][]byte{}
		for name, f := range readArchive(t, r, tg.os, tg.arch) {
			if rel, ok := strings.CutPrefix(name, prefix); ok && !strings.HasSuffix(name, "/") {
				got[rel] = f.data
			}
		}
		for _, m := range append(r.linked(t, tg.os, tg.arch), linkedModule{path: std}) {
			if !slices.ContainsFunc(keys(got), func(rel string) bool { return strings.HasPrefix(rel, m.path+"/") }) {
				t.Errorf("%s links %s %s, but licenses/ has no licence of it", r.archiveName(tg.os, tg.arch), m.path, m.version)
			}
		}
		for rel, b := range want {
			if g, ok := got[rel]; !ok {
				t.Errorf("%s has no licenses/%s", r.archiveName(tg.os, tg.arch), rel)
			} else if !bytes.Equal(g, b) {
				t.Errorf("%s: licenses/%s is not the module's text", r.archiveName(tg.os, tg.arch), rel)
			}
		}
		for rel := range got {
			if want[rel] == nil {
				t.Errorf("%s has licenses/%s, of no module its programs link", r.archiveName(tg.os, tg.arch), rel)
			}
		}
		t.Logf("%s: licenses/ holds %d files: %s", r.archiveName(tg.os, tg.arch), len(got), strings.Join(keys(got), " "))
	}
}

func keys[V any](m map[string]V) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// A paragraph of a Debian copyright file: its fields, each a value whose
// continuation lines are joined with newlines, without their leading
// space, " ." an empty line.
type paragraph map[string]string

func parseCopyright(text string) []paragraph {
	var ps []paragraph
	for _, block := range strings.Split(strings.TrimSpace(text), "\n\n") {
		p := paragraph{}
		field := ""
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, " ."):
				p[field] += "\n"
			case strings.HasPrefix(line, " "):
				p[field] += "\n" + line[1:]
			default:
				name, value, _ := strings.Cut(line, ":")
				field = name
				p[field] = strings.TrimSpace(value)
			}
		}
		ps = append(ps, p)
	}
	return ps
}

// The .deb's copyright file is Debian's machine-readable format, with a
// paragraph for ask-confirm (Expat, the LICENSE's text) and one for each
// module the .deb's programs link and for the Go standard library, each
// naming its licence by a short name and holding its licence files' text.
func TestDebianCopyrightListsTheLinkedModules(t *testing.T) {
	r := load(t)
	dirs, err := moduleDirs()
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		deb := filepath.Join(r.dir, r.name(arch)+".deb")
		root := t.TempDir()
		run(t, "dpkg-deb", "-x", deb, root)
		b, err := os.ReadFile(filepath.Join(root, "usr/share/doc/ask-confirm/copyright"))
		if err != nil {
			t.Fatal(err)
		}
		ps := parseCopyright(string(b))
		if ps[0]["Format"] != "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" || ps[0]["Upstream-Name"] != "ask-confirm" {
			t.Errorf("%s: copyright's header paragraph is %v", deb, ps[0])
		}
		byFiles := map[string]paragraph{}
		for _, p := range ps[1:] {
			byFiles[p["Files"]] = p
		}
		license, err := os.ReadFile("../../LICENSE")
		if err != nil {
			t.Fatal(err)
		}
		if p := byFiles["*"]; !strings.HasPrefix(p["License"], "Expat\n") || !strings.Contains(p["License"], strings.TrimSpace(string(license))) {
			t.Errorf("%s: copyright's Files: * paragraph is not LICENSE, Expat: %v", deb, p)
		}
		var listed []string
		for _, m := range append(r.linked(t, "linux", arch), linkedModule{path: std}) {
			p, ok := byFiles[m.path+"/*"]
			if !ok {
				t.Errorf("%s: copyright has no paragraph for %s %s, which its programs link", deb, m.path, m.version)
				continue
			}
			listed = append(listed, m.path)
			short, text, _ := strings.Cut(p["License"], "\n")
			if short == "" || p["Copyright"] == "" {
				t.Errorf("%s: %s's paragraph names no licence or holder: %v", deb, m.path, p)
			}
			if m.path != std && !strings.Contains(p["Comment"], m.path+" "+m.version) {
				t.Errorf("%s: %s's paragraph does not name its version %s: %q", deb, m.path, m.version, p["Comment"])
			}
			var licences []string
			entries, _ := os.ReadDir(dirs[m.path][1])
			for _, e := range entries {
				if g := licenceName.FindStringSubmatch(e.Name()); g != nil && !slices.Contains([]string{"NOTICE", "PATENTS"}, strings.ToUpper(g[1])) {
					b, _ := os.ReadFile(filepath.Join(dirs[m.path][1], e.Name()))
					licences = append(licences, string(b))
				}
			}
			if !holdsLicences(t, text, licences) {
				t.Errorf("%s: %s's paragraph does not hold the text of its licence files:\n%s", deb, m.path, text)
			}
			t.Logf("%s: Files: %s/*  License: %s  Copyright: %s", filepath.Base(deb), m.path, short, strings.ReplaceAll(p["Copyright"], "\n", "; "))
		}
		if len(byFiles) != len(listed)+1 {
			t.Errorf("%s: copyright has %d paragraphs for modules, its programs link %d: %v", deb, len(byFiles)-1, len(listed), keys(byFiles))
		}
	}
}

// apacheReference is how a copyright file names the Apache License's
// text, which Debian systems have (Debian policy 12.5; lintian refuses the
// text in full).
const apacheReference = "On Debian systems, the complete text of the Apache License, Version 2.0 can be found in /usr/share/common-licenses/Apache-2.0."

// words is text with each run of white space one space: a licence's text
// wrapped anew is the same text.
func words(text string) string { return strings.Join(strings.Fields(text), " ") }

// apacheHolder is the copyright line of the Apache License's appendix,
// which a project fills in with its own.
var apacheHolder = regexp.MustCompile(`Copyright (?:\[yyyy\]|[0-9]{4})[^"]*? Licensed under the Apache License`)

// holdsLicences reports whether a copyright paragraph's licence text is a
// module's licence files' texts (what licences holds, in order): the
// same words, but, where the paragraph names the Apache License's text on
// Debian systems, words that are that text.
func holdsLicences(t *testing.T, paragraph string, licences []string) bool {
	t.Helper()
	got, want := words(paragraph), words(strings.Join(licences, "\n\n"))
	if !strings.Contains(got, apacheReference) {
		return got == want
	}
	b, err := os.ReadFile("/usr/share/common-licenses/Apache-2.0")
	if err != nil {
		t.Fatalf("the copyright file names /usr/share/common-licenses/Apache-2.0, which this Debian system lacks: %v", err)
	}
	apache := apacheHolder.ReplaceAllString(words(string(b)), "Copyright Licensed under the Apache License")
	var pattern []string
	for _, piece := range strings.Split(got, apacheReference) {
		pattern = append(pattern, regexp.QuoteMeta(strings.TrimSpace(piece)))
	}
	m := regexp.MustCompile("^" + strings.Join(pattern, " ?(.*?) ?") + "$").FindStringSubmatch(want)
	if m == nil {
		return false
	}
	for _, gap := range m[1:] {
		if !strings.Contains(apache, apacheHolder.ReplaceAllString(gap, "Copyright Licensed under the Apache License")) {
			return false
		}
	}
	return true
}

// The programs are built with the Go that go.mod's toolchain line names,
// so that "the same commit gives the same bytes" holds with a stated Go
// version; the SBOMs name it as the standard library's version.
func TestProgramsAreBuiltWithGoModsToolchain(t *testing.T) {
	r := load(t)
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^toolchain (go[0-9.]+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod pins no toolchain (a line toolchain goX.Y.Z)")
	}
	toolchain := string(m[1])
	if v := strings.TrimSpace(run(t, "go", "env", "GOVERSION")); v != toolchain {
		t.Errorf("the go command here is %s, not go.mod's toolchain %s: a release built here is not the one go.mod states", v, toolchain)
	}
	for _, tg := range targets {
		r.linked(t, tg.os, tg.arch)
		v, _ := goVersions.Load(tg.os + "/" + tg.arch)
		for _, got := range v.([]string) {
			if got != toolchain {
				t.Errorf("a program of %s is built with %s, not go.mod's toolchain %s", r.archiveName(tg.os, tg.arch), got, toolchain)
			}
		}
	}
}
