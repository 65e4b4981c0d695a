//go:build release

package releasetest

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A release's version as each package format writes it: Debian and RPM
// put a pre-release after a tilde, which sorts before the release
// (nfpm's rule); Alpine as a suffix and a number, _rc1 (release-files').
func debVersion(v string) string { return strings.Replace(v, "-", "~", 1) }
func rpmVersion(v string) string { return strings.Replace(v, "-", "~", 1) }
func apkVersion(v string) string {
	final, pre, ok := strings.Cut(v, "-")
	if !ok {
		return v
	}
	return final + "_" + strings.ReplaceAll(pre, ".", "")
}

// apkGrammar is apk-tools' version grammar (its src/version.c):
// digit{.digit}...{letter}{_suf{#}}...{~hash}{-r#}, where a suffix is one
// of alpha, beta, pre and rc, which sort before the version without it,
// or cvs, svn, git, hg and p, which sort after.
var apkGrammar = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*[a-z]?(_(alpha|beta|pre|rc|cvs|svn|git|hg|p)[0-9]*)*(~[0-9a-f]+)?(-r[0-9]+)?$`)

// apkSuffixes are the suffixes in apk's order; "" marks where a version
// without one sorts.
var apkSuffixes = []string{"alpha", "beta", "pre", "rc", "", "cvs", "svn", "git", "hg", "p"}

// An apkToken is one part of an apk version, in apk's kinds, whose order
// is the grammar's.
type apkToken struct {
	kind int
	num  uint64
	text string
}

const (
	apkInitial = iota
	apkDigit
	apkLetter
	apkSuffix
	apkSuffixNumber
	apkHash
	apkRevision
	apkEnd
)

var apkPart = regexp.MustCompile(`^(?:(\.?)([0-9]+)|([a-z])|_([a-z]+)([0-9]*)|~([0-9a-f]+)|-r([0-9]+))`)

func apkTokens(v string) []apkToken {
	var tokens []apkToken
	for v != "" {
		m := apkPart.FindStringSubmatch(v)
		v = v[len(m[0]):]
		switch {
		case m[2] != "":
			n, _ := strconv.ParseUint(m[2], 10, 64)
			kind := apkDigit
			if len(tokens) == 0 {
				kind = apkInitial
			}
			tokens = append(tokens, apkToken{kind, n, m[2]})
		case m[3] != "":
			tokens = append(tokens, apkToken{apkLetter, uint64(m[3][0]), m[3]})
		case m[4] != "":
			for i, s := range apkSuffixes {
				if s == m[4] {
					tokens = append(tokens, apkToken{apkSuffix, uint64(i), m[4]})
				}
			}
			if m[5] != "" {
				n, _ := strconv.ParseUint(m[5], 10, 64)
				tokens = append(tokens, apkToken{apkSuffixNumber, n, m[5]})
			}
		case m[6] != "":
			tokens = append(tokens, apkToken{apkHash, 0, m[6]})
		default:
			n, _ := strconv.ParseUint(m[7], 10, 64)
			tokens = append(tokens, apkToken{apkRevision, n, m[7]})
		}
	}
	return tokens
}

// apkCompare orders two valid apk versions as apk-tools does: part by
// part, a digit with a leading zero as text; where one runs out, it is the
// older, unless the other goes on with a pre-release suffix.
func apkCompare(a, b string) int {
	ta, tb := apkTokens(a), apkTokens(b)
	i := 0
	for ; i < len(ta) && i < len(tb) && ta[i].kind == tb[i].kind; i++ {
		x, y := ta[i], tb[i]
		if x.kind == apkHash || (x.kind == apkDigit && (x.text[0] == '0' || y.text[0] == '0')) {
			if c := strings.Compare(x.text, y.text); c != 0 {
				return c
			}
			continue
		}
		if x.num != y.num {
			if x.num < y.num {
				return -1
			}
			return 1
		}
	}
	kind := func(t []apkToken) apkToken {
		if i < len(t) {
			return t[i]
		}
		return apkToken{kind: apkEnd}
	}
	x, y := kind(ta), kind(tb)
	none := uint64(4) // apkSuffixes' ""
	switch {
	case x.kind == y.kind:
		return 0
	case x.kind == apkSuffix && x.num < none:
		return -1
	case y.kind == apkSuffix && y.num < none:
		return 1
	case x.kind > y.kind:
		return -1
	default:
		return 1
	}
}

// The versions scripts/release takes, in the order they are released: each
// format's own comparison must keep that order, a pre-release before its
// release, for what nfpm and release-files write.
var releaseOrder = []string{"1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-beta.1", "1.2.3-pre.1", "1.2.3-rc.1",
	"1.2.3-rc.2", "1.2.3-rc.10", "1.2.3", "1.2.4-rc.1", "1.2.4", "1.10.0"}

func TestPreReleasesSortBeforeTheirReleaseInEveryFormat(t *testing.T) {
	var lua strings.Builder
	for i := 1; i < len(releaseOrder); i++ {
		older, newer := releaseOrder[i-1], releaseOrder[i]
		if err := exec.Command("dpkg", "--compare-versions", debVersion(older), "lt", debVersion(newer)).Run(); err != nil {
			t.Errorf("dpkg: %s is not older than %s", debVersion(older), debVersion(newer))
		}
		fmt.Fprintf(&lua, "print(rpm.vercmp(%q, %q) .. \" \") ", rpmVersion(older), rpmVersion(newer))
		a, b := apkVersion(older), apkVersion(newer)
		for _, v := range []string{a, b} {
			if !apkGrammar.MatchString(v) || !apkGrammar.MatchString(v+"-r0") {
				t.Errorf("%s is no version apk takes", v)
			}
		}
		if apkCompare(a, b) >= 0 || apkCompare(b, a) <= 0 {
			t.Errorf("apk: %s is not older than %s", a, b)
		}
	}
	for _, v := range releaseOrder {
		if out, err := exec.Command("dpkg", "--validate-version", debVersion(v)).CombinedOutput(); err != nil {
			t.Errorf("dpkg --validate-version %s: %v %s", debVersion(v), err, out)
		}
	}
	// RPM's own comparison, through rpm's Lua.
	got := strings.Fields(run(t, "rpm", "--eval", "%{lua: "+lua.String()+"}"))
	for i, c := range got {
		if c != "-1" {
			t.Errorf("rpm: rpm.vercmp(%s, %s) = %s, not -1", rpmVersion(releaseOrder[i]), rpmVersion(releaseOrder[i+1]), c)
		}
	}
	if len(got) != len(releaseOrder)-1 {
		t.Errorf("rpm compared %d pairs: %v", len(got), got)
	}
	// apk's grammar as this test reads it: what apk-tools refuses, it
	// refuses, and its order is apk's on apk's own examples.
	for _, v := range []string{"1.2.3_rc.1", "1.2.3-rc.1", "1.2.3_check", "1.2.3_rc1.2", "01.2.3~", "1.2.3-r", ""} {
		if apkGrammar.MatchString(v) {
			t.Errorf("apk's grammar takes %q, which apk-tools refuses", v)
		}
	}
	for _, pair := range [][2]string{{"1.0_alpha1", "1.0_beta"}, {"1.0_rc9", "1.0_rc10"}, {"1.0_rc1", "1.0"}, {"1.0", "1.0_p1"},
		{"1.0", "1.0a"}, {"1.0-r0", "1.0-r1"}, {"1.0", "1.0.1"}, {"1.01", "1.1"}, {"1.9", "1.10"}} {
		if apkCompare(pair[0], pair[1]) != -1 || apkCompare(pair[1], pair[0]) != 1 {
			t.Errorf("apk orders %s before %s; this test does not", pair[0], pair[1])
		}
	}
}

// The release's packages carry its version as each format takes it: the
// .deb's and .rpm's as their tools read it, the .apk's by apk's grammar;
// and a pre-release sorts before its release in each.
func TestPackageVersionsAreValidInEachFormat(t *testing.T) {
	r := load(t)
	final, _, pre := strings.Cut(r.version, "-")
	for _, arch := range []string{"amd64", "arm64"} {
		deb := filepath.Join(r.dir, r.name(arch)+".deb")
		if v := strings.TrimSpace(run(t, "dpkg-deb", "--field", deb, "Version")); v != debVersion(r.version) {
			t.Errorf("%s: Version %s, want %s", deb, v, debVersion(r.version))
		} else if pre {
			if err := exec.Command("dpkg", "--compare-versions", v, "lt", final).Run(); err != nil {
				t.Errorf("dpkg: %s does not sort before %s", v, final)
			}
		}
		rpmFile := filepath.Join(r.dir, r.name(arch)+".rpm")
		if v := run(t, "rpm", "-qp", "--queryformat", "%{VERSION}", rpmFile); v != rpmVersion(r.version) {
			t.Errorf("%s: VERSION %s, want %s", rpmFile, v, rpmVersion(r.version))
		} else if pre {
			if c := strings.TrimSpace(run(t, "rpm", "--eval", fmt.Sprintf("%%{lua: print(rpm.vercmp(%q, %q))}", v, final))); c != "-1" {
				t.Errorf("rpm: %s does not sort before %s (%s)", v, final, c)
			}
		}
		apk := filepath.Join(r.dir, r.name(arch)+".apk")
		v := apkPkgver(t, apk)
		if v != apkVersion(r.version) || !apkGrammar.MatchString(v) {
			t.Errorf("%s: pkgver %s, want %s, by apk's grammar", apk, v, apkVersion(r.version))
		} else if pre && apkCompare(v, final) != -1 {
			t.Errorf("apk: %s does not sort before %s", v, final)
		}
		t.Logf("%s: .deb %s, .rpm %s, .apk %s", arch, debVersion(r.version), rpmVersion(r.version), v)
	}
}

// apkPkgver is the pkgver of an .apk's .PKGINFO.
func apkPkgver(t *testing.T, apk string) string {
	t.Helper()
	f, err := os.Open(apk)
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
		if err != nil {
			t.Fatalf("%s has no .PKGINFO: %v", apk, err)
		}
		if h.Name == ".PKGINFO" {
			b, _ := io.ReadAll(tr)
			m := regexp.MustCompile(`(?m)^pkgver = (.*)$`).FindStringSubmatch(string(b))
			if m == nil {
				t.Fatalf("%s: .PKGINFO has no pkgver:\n%s", apk, b)
			}
			return m[1]
		}
	}
}

// scripts/release refuses, as a usage error (exit 2) and before it builds
// anything, a version some package format cannot carry or that is no
// semantic version: leading zeros, a pre-release apk has no suffix for.
func TestReleaseRefusesAVersionAPackageCannotCarry(t *testing.T) {
	for _, v := range []string{"01.2.3", "1.02.3", "1.2.03", "v01.2.3", "1.2.3-rc.01", "1.2.3-check", "1.2.3-rc.1.2", "1.2.3-dev.1", "1.2", "1.2.3+build", "latest"} {
		out := filepath.Join(t.TempDir(), "out")
		c := exec.Command("bash", "../../scripts/release", v, out)
		b, err := c.CombinedOutput()
		if c.ProcessState == nil {
			t.Fatalf("scripts/release: %v", err)
		}
		if c.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "usage: scripts/release") {
			t.Errorf("scripts/release %s exited %d, want 2 with its usage:\n%s", v, c.ProcessState.ExitCode(), b)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("scripts/release %s made %s", v, out)
		}
	}
}
