package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mit = `MIT License

Copyright (c) 2024 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`

func moduleWith(t *testing.T, files map[string]string) *module {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &module{Path: "example.com/m", Version: "v1.0.0", Dir: dir}
}

// A module without a licence file stops the release, and so does one
// whose licence licensecheck cannot name: nothing ships without its
// licence.
func TestAModuleWithoutALicenceStopsTheRelease(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no licence file":     {"README.md": "see the licence", "NOTICE": "Copyright 2024 Someone", "license.go": "package m"},
		"unknown licence":     {"LICENSE": "You may do what the author lets you."},
		"a PATENTS file only": {"PATENTS": "Additional IP Rights Grant (Patents)"},
	} {
		if err := moduleWith(t, files).read(); err == nil {
			t.Errorf("%s: a module with %v is read without an error", name, files)
		}
	}
}

// A module's licence, NOTICE and PATENTS files are what it carries, each
// by its kind, and its licence is named from the text.
func TestAModulesLicenceFilesAreRead(t *testing.T) {
	m := moduleWith(t, map[string]string{"LICENSE.txt": mit, "NOTICE": "This product includes software by Someone.",
		"PATENTS": "patents", "license.go": "package m", "README.md": "readme"})
	if err := m.read(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.Files {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "LICENSE.txt NOTICE PATENTS" {
		t.Errorf("the module carries %v", names)
	}
	if m.debianLicence() != "Expat" || strings.Join(m.holders(), ";") != "2024 Someone" {
		t.Errorf("the module's licence is %q by %q", m.debianLicence(), m.holders())
	}
	var b bytes.Buffer
	paragraph(&b, m.Path+"/*", m, "Go module example.com/m v1.0.0.")
	for _, want := range []string{"Files: example.com/m/*\n", "Copyright: 2024 Someone\n", "License: Expat\n MIT License\n .\n Copyright (c) 2024 Someone\n",
		"Comment: Go module example.com/m v1.0.0.\n .\n NOTICE:\n This product includes software by Someone.\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the paragraph lacks %q:\n%s", want, b.String())
		}
	}
}
