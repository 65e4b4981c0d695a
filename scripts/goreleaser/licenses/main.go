// Command licenses writes the licence notices a release ships beside its
// programs, from the modules the build links: for each OS, the licence
// files (and the NOTICE and PATENTS files) of every module that a program
// built for one of its targets links, and the Go standard library's, as
// OUT/OS/MODULE/FILE and OUT/OS/go/FILE; and, for linux, the .deb's
// copyright file in Debian's machine-readable format, one paragraph per
// module with its licence's short name and text. scripts/release-files
// runs it:
//
//	go -C scripts/goreleaser run ./licenses -module DIR -out DIR -copyright FILE \
//	  -targets linux/amd64,linux/arm64,... PACKAGE...
//
// The modules are what go list -deps names for the PACKAGEs (the programs'
// main packages, in the module at -module) with each target's GOOS and
// GOARCH and CGO_ENABLED=0, as GoReleaser builds them. A module without a
// licence file, or whose licence licensecheck cannot name, stops it: a
// release must not ship code whose licence it does not carry.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/google/licensecheck"
)

func main() {
	module := flag.String("module", "", "the directory of the module whose programs are built")
	out := flag.String("out", "", "where to write OS/MODULE/FILE")
	copyright := flag.String("copyright", "", "where to write the .deb's copyright file (of linux's modules)")
	targets := flag.String("targets", "", "the targets built, OS/ARCH,...")
	flag.Parse()
	if *module == "" || *out == "" || *copyright == "" || *targets == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: licenses -module DIR -out DIR -copyright FILE -targets OS/ARCH,... PACKAGE...")
		os.Exit(2)
	}
	if err := run(*module, *out, *copyright, strings.Split(*targets, ","), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "licenses: error:", err)
		os.Exit(1)
	}
}

// A module is one whose code the programs link, with the files that carry
// its licence.
type module struct {
	Path, Version, Dir string
	// Files are its licence, NOTICE and PATENTS files, by name.
	Files []notice
	// Licences are the SPDX identifiers of its licence files' licences.
	Licences []string
}

type notice struct {
	Name string
	Kind kind
	Text []byte
	// Matches are where licensecheck found each licence in Text.
	Matches []licensecheck.Match
}

type kind int

const (
	licence kind = iota
	noticeFile
	patents
)

// std is the Go standard library's name among the modules, as a directory
// and in the copyright file.
const std = "go"

func run(moduleDir, out, copyright string, targets, packages []string) error {
	modules := map[string]*module{}
	// byOS is the modules linked for each OS, on any of its targets.
	byOS := map[string][]*module{}
	var systems []string
	for _, target := range targets {
		goos, goarch, ok := strings.Cut(target, "/")
		if !ok {
			return fmt.Errorf("target %q is not OS/ARCH", target)
		}
		mods, err := linked(moduleDir, goos, goarch, packages)
		if err != nil {
			return err
		}
		if _, ok := byOS[goos]; !ok {
			systems = append(systems, goos)
		}
		for _, m := range mods {
			if modules[m.Path] == nil {
				if err := m.read(); err != nil {
					return err
				}
				modules[m.Path] = m
			}
			if !slices.Contains(byOS[goos], modules[m.Path]) {
				byOS[goos] = append(byOS[goos], modules[m.Path])
			}
		}
	}
	goroot, goversion, err := goEnv(moduleDir)
	if err != nil {
		return err
	}
	stdlib := &module{Path: std, Version: goversion, Dir: goroot}
	project, err := mainModule(moduleDir)
	if err != nil {
		return err
	}
	for _, m := range []*module{stdlib, project} {
		if err := m.read(); err != nil {
			return err
		}
	}
	for _, goos := range systems {
		mods := byOS[goos]
		slices.SortFunc(mods, func(a, b *module) int { return strings.Compare(a.Path, b.Path) })
		dir := filepath.Join(out, goos)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		for _, m := range append(slices.Clip(mods), stdlib) {
			for _, f := range m.Files {
				path := filepath.Join(dir, filepath.FromSlash(m.Path), f.Name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(path, f.Text, 0o644); err != nil {
					return err
				}
			}
		}
		fmt.Printf("licenses: %s: %d modules (%s) and the Go standard library, in %s\n", goos, len(mods), summary(mods), dir)
		if goos == "linux" {
			var b bytes.Buffer
			debianCopyright(&b, project, append(slices.Clip(mods), stdlib))
			if err := os.WriteFile(copyright, b.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// linked are the modules, but the main one, that provide a package to one
// of packages built for goos and goarch, as GoReleaser builds them.
func linked(moduleDir, goos, goarch string, packages []string) ([]*module, error) {
	args := append([]string{"list", "-deps", "-f",
		`{{with .Module}}{{if not .Main}}{{.Path}}{{"\t"}}{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}{{"\t"}}{{.Dir}}{{end}}{{end}}`}, packages...)
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the modules linked for %s/%s: %w", goos, goarch, err)
	}
	var mods []*module
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || slices.ContainsFunc(mods, func(m *module) bool { return m.Path == f[0] }) {
			continue
		}
		if f[2] == "" {
			return nil, fmt.Errorf("module %s %s is not in the module cache (go mod download)", f[0], f[1])
		}
		mods = append(mods, &module{Path: f[0], Version: f[1], Dir: f[2]})
	}
	return mods, nil
}

func goEnv(moduleDir string) (goroot, goversion string, err error) {
	cmd := exec.Command("go", "env", "GOROOT", "GOVERSION")
	cmd.Dir = moduleDir
	b, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return "", "", fmt.Errorf("go env GOROOT GOVERSION says %q", b)
	}
	return f[0], f[1], nil
}

func mainModule(moduleDir string) (*module, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}")
	cmd.Dir = moduleDir
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	return &module{Path: strings.TrimSpace(string(b)), Dir: moduleDir}, nil
}

// noticeName tells the files that carry a module's licence, and their
// kind, by their names: LICENSE, LICENCE, COPYING and UNLICENSE (and
// LICENSE-MIT, LICENSE.txt and the like) are licences; NOTICE files are
// Apache-2.0's notices; PATENTS files are the Go project's patent grant.
var noticeName = regexp.MustCompile(`(?i)^(LICEN[CS]E|COPYING|UNLICENSE|NOTICE|PATENTS)([-_.][A-Za-z0-9-]*)?(\.txt|\.md|\.rst)?$`)

// read reads the module's licence, NOTICE and PATENTS files, and names its
// licences; it fails for a module with no licence file, or one whose
// licence licensecheck does not know.
func (m *module) read() error {
	entries, err := os.ReadDir(m.Dir)
	if err != nil {
		return fmt.Errorf("reading module %s: %w", m.Path, err)
	}
	for _, e := range entries {
		g := noticeName.FindStringSubmatch(e.Name())
		if g == nil || !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(m.Dir, e.Name()))
		if err != nil {
			return err
		}
		n := notice{Name: e.Name(), Text: text}
		switch strings.ToUpper(g[1]) {
		case "NOTICE":
			n.Kind = noticeFile
		case "PATENTS":
			n.Kind = patents
		default:
			for _, match := range licensecheck.Scan(text).Match {
				// A URL names a licence (the MCP SDK's for its
				// documentation); the text is what binds.
				if match.IsURL {
					continue
				}
				n.Matches = append(n.Matches, match)
				if !slices.Contains(m.Licences, match.ID) {
					m.Licences = append(m.Licences, match.ID)
				}
			}
		}
		m.Files = append(m.Files, n)
	}
	if !slices.ContainsFunc(m.Files, func(n notice) bool { return n.Kind == licence }) {
		return fmt.Errorf("module %s %s has no licence file (LICENSE, COPYING) in %s: a release must carry its licence; add it by hand or drop the module", m.Path, m.Version, m.Dir)
	}
	if len(m.Licences) == 0 {
		return fmt.Errorf("module %s %s: licensecheck does not know the licence in %s: name it by hand before it ships", m.Path, m.Version, m.Dir)
	}
	return nil
}

// debianNames are Debian's short names (copyright-format 1.0) of the SPDX
// identifiers that differ.
var debianNames = map[string]string{
	"MIT":          "Expat",
	"BSD-2-Clause": "BSD-2-clause",
	"BSD-3-Clause": "BSD-3-clause",
	"BSD-4-Clause": "BSD-4-clause",
}

func (m *module) debianLicence() string {
	var names []string
	for _, id := range m.Licences {
		if n, ok := debianNames[id]; ok {
			id = n
		}
		names = append(names, id)
	}
	// Parts of the code are under each (the MCP SDK's MIT and Apache-2.0
	// contributions): "and", not a choice.
	return strings.Join(names, " and ")
}

var (
	copyrightLine = regexp.MustCompile(`(?i)^\s*(?://\s*)?(copyright\b|\(c\)|©)`)
	year          = regexp.MustCompile(`\b(19|20)[0-9][0-9]\b`)
	copyrightWord = regexp.MustCompile(`(?i)^\s*(?://\s*)?(copyright\s*)?((\(c\)|©)\s*)?`)
)

// holders are the copyright lines of the module's licence and NOTICE
// files (those with a year: not a licence's own wording), or, where they
// name none (Apache-2.0's text does not), the first such line of its Go
// files' headers, without the word Copyright.
func (m *module) holders() []string {
	var lines []string
	add := func(text []byte) {
		for _, l := range strings.Split(string(text), "\n") {
			if copyrightLine.MatchString(l) && year.MatchString(l) && !strings.ContainsAny(l, "[{") {
				h := strings.TrimSpace(copyrightWord.ReplaceAllString(l, ""))
				if !slices.Contains(lines, h) {
					lines = append(lines, h)
				}
			}
		}
	}
	for _, f := range m.Files {
		if f.Kind != patents {
			add(f.Text)
		}
	}
	if len(lines) == 0 {
		names, _ := filepath.Glob(filepath.Join(m.Dir, "*.go"))
		slices.Sort(names)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			header, _, _ := bytes.Cut(b, []byte("\npackage "))
			add(header)
			if len(lines) > 0 {
				break
			}
		}
	}
	if len(lines) == 0 {
		return []string{"the authors of " + m.Path + " (its licence and sources name none)"}
	}
	return lines
}

// debianCopyright writes Debian's machine-readable copyright file: the
// project's paragraph, then one per linked module, then the Go standard
// library's. Files names the module's source, which /usr/bin's programs
// link; License gives its licence's short name and its licence files'
// text, and Comment its version and NOTICE files.
func debianCopyright(w *bytes.Buffer, project *module, mods []*module) {
	fmt.Fprintf(w, "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
	fmt.Fprintf(w, "Upstream-Name: ask-confirm\n")
	fmt.Fprintf(w, "Source: https://github.com/ask-confirm/ask-confirm\n")
	field(w, "Comment", "The programs in /usr/bin are static Go programs. Beside ask-confirm's own\n"+
		"code, each links the Go standard library and the Go modules below: each\n"+
		"paragraph's Files names a module, its License the module's licence, with\n"+
		"its licence files' text, and its Comment the module's version.")
	paragraph(w, "*", project, "")
	for _, m := range mods {
		comment := "Go module " + m.Path + " " + m.Version + "."
		if m.Path == std {
			comment = "The Go standard library and runtime, " + m.Version + "."
		}
		paragraph(w, m.Path+"/*", m, comment)
	}
}

func paragraph(w *bytes.Buffer, files string, m *module, comment string) {
	fmt.Fprintf(w, "\nFiles: %s\n", files)
	fmt.Fprintf(w, "Copyright: %s\n", strings.Join(m.holders(), "\n "))
	var texts [][]byte
	var notices []string
	for _, f := range m.Files {
		switch f.Kind {
		case licence:
			texts = append(texts, bytes.TrimSpace(debianText(f)))
		case noticeFile:
			notices = append(notices, f.Name+":\n"+string(bytes.TrimSpace(f.Text)))
		}
	}
	fmt.Fprintf(w, "License: %s\n", m.debianLicence())
	writeText(w, string(bytes.Join(texts, []byte("\n\n"))))
	if len(notices) > 0 {
		comment = strings.TrimSpace(comment + "\n\n" + strings.Join(notices, "\n\n"))
	}
	if comment != "" {
		field(w, "Comment", comment)
	}
}

// commonLicenses are the licences every Debian system has in
// /usr/share/common-licenses, whose text a copyright file names there
// rather than repeats (Debian policy 12.5; lintian refuses Apache-2.0's
// text in full).
var commonLicenses = map[string]string{
	"Apache-2.0": "On Debian systems, the complete text of the Apache License, Version 2.0\n" +
		"can be found in /usr/share/common-licenses/Apache-2.0.",
}

// debianText is a licence file's text with the text of each licence
// Debian systems have replaced by where they have it.
func debianText(f notice) []byte {
	var b []byte
	at := 0
	for _, m := range f.Matches {
		if ref, ok := commonLicenses[m.ID]; ok && m.Start >= at {
			b = append(append(b, f.Text[at:m.Start]...), ref+"\n\n"...)
			at = m.End
		}
	}
	return blankLines.ReplaceAll(append(b, f.Text[at:]...), []byte("\n\n"))
}

var blankLines = regexp.MustCompile(`\n\s*\n\s*\n`)

// field writes a field whose value may run over several lines.
func field(w *bytes.Buffer, name, value string) {
	first, rest, _ := strings.Cut(value, "\n")
	fmt.Fprintf(w, "%s: %s\n", name, first)
	writeText(w, rest)
}

// writeText writes text as a field's continuation lines: each indented by
// a space, an empty one as " .".
func writeText(w *bytes.Buffer, text string) {
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			w.WriteString(" .\n")
		} else {
			w.WriteString(" " + l + "\n")
		}
	}
}

// summary counts the modules by licence.
func summary(mods []*module) string {
	count := map[string]int{}
	for _, m := range mods {
		for _, id := range m.Licences {
			count[id]++
		}
	}
	var parts []string
	for id, n := range count {
		parts = append(parts, fmt.Sprintf("%s %d", id, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
