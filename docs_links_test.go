package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every link in README.md and docs/ reaches a file of the repository, and
// every #anchor a heading of its file, by GitHub's rule for a heading's
// anchor. Links to other sites are not followed: the tests reach no network.
func TestDocsLinks(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	cli, _ := filepath.Glob("docs/cli/*.md")
	files = append(append([]string{"README.md"}, files...), cli...)
	anchors := map[string]map[string]bool{}
	links := 0
	for _, file := range files {
		text := readText(t, file)
		for _, l := range markdownLinks(text) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(l.target, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: %s: no such file", file, l.line, l.target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if anchors[target] == nil {
				anchors[target] = headingAnchors(readText(t, target))
			}
			if !anchors[target][anchor] {
				t.Errorf("%s:%d: %s: %s has no heading with that anchor", file, l.line, l.target, target)
			}
		}
	}
	if links < 50 {
		t.Errorf("only %d links in %d files: the walk is not reading them", links, len(files))
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type link struct {
	target string
	line   int
}

var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// markdownLinks returns the targets of the [text](target) and
// ![alt](target) links outside fenced code blocks and code spans.
func markdownLinks(text string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range linkPattern.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			out = append(out, link{m[1], i + 1})
		}
	}
	return out
}

func withoutCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "")
}

// headingAnchors returns the anchors GitHub gives the file's headings:
// lower case, spaces to hyphens, punctuation other than - and _ dropped,
// and -1, -2 ... after a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}
