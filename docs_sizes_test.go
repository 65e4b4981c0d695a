package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sizeOf is one "NAME N.N MB" of a list of binary sizes.
var sizeOf = regexp.MustCompile(`([a-z][a-z -]*?) (\d+(?:\.\d+)?) MB`)

// sizes reads the list of binary sizes that follows prefix in text: name
// to "N.N MB".
func sizes(t *testing.T, file, text, prefix string) map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(text, prefix)
	if !ok {
		t.Fatalf("%s has no %q", file, prefix)
	}
	list, _, _ := strings.Cut(strings.Join(strings.Fields(rest), " ")+" ", ". ")
	if _, after, ok := strings.Cut(list, "): "); ok {
		list = after
	}
	got := map[string]string{}
	for _, item := range strings.Split(list, ", ") {
		if m := sizeOf.FindStringSubmatch(item); m != nil {
			got[strings.TrimSpace(m[1])] = m[2]
		}
	}
	if len(got) == 0 {
		t.Fatalf("%s: no sizes after %q", file, prefix)
	}
	return got
}

// The binary sizes the docs give are the ones scripts/bench measured and
// wrote in bench/RESULTS.md, not numbers typed by hand: performance.md
// quotes the bench's line, and every other size of a binary in the docs is
// one of those, or a dated measurement of a variant. (The docs once gave
// ask-confirm three different sizes.)
func TestDocsBinarySizes(t *testing.T) {
	results, err := os.ReadFile("bench/RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	bench := sizes(t, "bench/RESULTS.md", string(results), "Binary sizes: ")
	perf, err := os.ReadFile("docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	quoted := sizes(t, "docs/performance.md", string(perf), "Binary sizes, as the install command builds them")
	for name, size := range bench {
		if quoted[name] != size {
			t.Errorf("docs/performance.md gives %s %s MB; bench/RESULTS.md %s MB", name, quoted[name], size)
		}
	}
	known := map[string]bool{}
	for _, size := range quoted {
		known[size] = true
	}
	files, _ := filepath.Glob("docs/*.md")
	number := regexp.MustCompile(`(\d+(?:\.\d+)?) MB\b`)
	for _, file := range append([]string{"README.md"}, files...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// Paragraphs and table rows.
		for _, chunk := range regexp.MustCompile(`\n\s*\n|\n\|`).Split(string(b), -1) {
			if !strings.Contains(strings.ToLower(chunk), "binar") || strings.Contains(chunk, "measured on") {
				continue
			}
			for _, m := range number.FindAllStringSubmatch(chunk, -1) {
				if !known[m[1]] {
					t.Errorf("%s gives a binary size of %s MB, which is none of the sizes performance.md quotes from the bench: %q", file, m[1], strings.TrimSpace(chunk))
				}
			}
		}
	}
}
