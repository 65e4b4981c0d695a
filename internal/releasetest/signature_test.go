//go:build release

package releasetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// signingKey is the minisign public key of the key that signed the release
// under test: a throwaway key scripts/test makes for each release check
// (never the maintainers', whose secret half is not in the repository),
// named by ASK_CONFIRM_RELEASE_PUBKEY.
func signingKey(t *testing.T) (file, key string) {
	t.Helper()
	file = os.Getenv("ASK_CONFIRM_RELEASE_PUBKEY")
	if file == "" {
		t.Fatal("ASK_CONFIRM_RELEASE_PUBKEY names the minisign public key whose secret half signed the release (scripts/test makes one)")
	}
	file, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, publicKey(t, file)
}

// publicKey is the key of a minisign public key file: its second line.
func publicKey(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "untrusted comment: ") || !regexp.MustCompile(`^RW[A-Za-z0-9+/]{54}$`).MatchString(lines[1]) {
		t.Fatalf("%s is not a minisign public key:\n%s", file, b)
	}
	return lines[1]
}

// minisign runs minisign -V on the checksums file in dir with the public
// key file, and returns its exit status and output.
func minisign(t *testing.T, dir, sums, pub string) (int, string) {
	t.Helper()
	c := exec.Command("minisign", "-V", "-m", sums, "-p", pub)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if c.ProcessState == nil {
		t.Fatalf("minisign: %v", err)
	}
	return c.ProcessState.ExitCode(), string(out)
}

// copyRelease copies the named files of the release into a new directory.
func copyRelease(t *testing.T, r release, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(r.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The checksums file is signed: minisign itself verifies its signature
// with the public half of the key that signed it, and shows the trusted
// comment, which names the release; a checksums file changed by one byte,
// or a signature checked against another key (the maintainers' own,
// minisign.pub, which did not sign this build), is refused.
func TestChecksumsAreSigned(t *testing.T) {
	r := load(t)
	pub, _ := signingKey(t)
	sums := r.name("checksums.txt")
	dir := copyRelease(t, r, sums, sums+".minisig")
	code, out := minisign(t, dir, sums, pub)
	t.Logf("minisign -Vm %s -p %s: exit %d\n%s", sums, filepath.Base(pub), code, out)
	if code != 0 || !strings.Contains(out, "Signature and comment signature verified") {
		t.Fatalf("minisign does not verify the release's checksums: exit %d\n%s", code, out)
	}
	if want := "Trusted comment: ask-confirm v" + r.version + ": " + sums; !strings.Contains(out, want) {
		t.Errorf("the signature's trusted comment is not %q:\n%s", want, out)
	}

	b, err := os.ReadFile(filepath.Join(dir, sums))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	if err := os.WriteFile(filepath.Join(dir, sums), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := minisign(t, dir, sums, pub); code == 0 || !strings.Contains(out, "Signature verification failed") {
		t.Errorf("minisign accepts a checksums file changed by one byte: exit %d\n%s", code, out)
	} else {
		t.Logf("a checksums file changed by one byte: minisign exits %d: %s", code, strings.TrimSpace(out))
	}

	maintainers, err := filepath.Abs("../../minisign.pub")
	if err != nil {
		t.Fatal(err)
	}
	dir = copyRelease(t, r, sums, sums+".minisig")
	if code, out := minisign(t, dir, sums, maintainers); code == 0 {
		t.Errorf("minisign.pub verifies a signature made with the release check's throwaway key:\n%s", out)
	}
}

// The signature covers every file the release publishes but the
// manifests: the checksums name each archive, package and SBOM, and not
// the signature, which GoReleaser would add after signing.
func TestChecksumsNameEveryArchivePackageAndSBOM(t *testing.T) {
	r := load(t)
	sums := r.sums(t)
	if _, ok := sums[r.name("checksums.txt.minisig")]; ok {
		t.Error("the checksums name their own signature, so that the signature no longer verifies them")
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".zip") || strings.HasSuffix(name, ".deb") ||
			strings.HasSuffix(name, ".rpm") || strings.HasSuffix(name, ".apk") || strings.HasSuffix(name, ".sbom.json") {
			if sums[name] == "" {
				t.Errorf("the checksums do not name %s", name)
			}
		}
	}
}

// minisign.pub is a minisign public key, the maintainers', and it is the
// key the README's verify step names.
func TestCommittedPublicKeyIsTheREADMEs(t *testing.T) {
	key := publicKey(t, "../../minisign.pub")
	block := readmeBlock(t, "minisign -Vm")
	if !strings.Contains(block, "-P "+key+"\n") {
		t.Errorf("the README's verify step does not name minisign.pub's key %s:\n%s", key, block)
	}
}

// readmeBlock is the README's fenced code block that holds marker.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "```")
	for i := 1; i < len(parts); i += 2 {
		block := parts[i]
		if _, rest, ok := strings.Cut(block, "\n"); ok && strings.Contains(rest, marker) {
			return rest
		}
	}
	t.Fatalf("README.md has no code block with %q", marker)
	return ""
}

// The README's verify step, run as written (with the release's version,
// and the release check's public key for the maintainers'), in a
// directory holding what a user downloaded: the archive, the checksums
// and their signature. It passes on the release; it refuses, with a
// non-zero exit, an archive changed by one byte (the checksums catch it),
// and an archive changed together with its line in the checksums (the
// signature catches it, before sha256sum runs).
func TestREADMEVerifyStepRefusesATamperedRelease(t *testing.T) {
	r := load(t)
	_, key := signingKey(t)
	block := readmeBlock(t, "minisign -Vm")
	script := strings.ReplaceAll(block, "VERSION", r.version)
	script = strings.ReplaceAll(script, publicKey(t, "../../minisign.pub"), key)
	archive := r.archiveName("linux", runtime.GOARCH)
	sums := r.name("checksums.txt")

	verify := func(dir string) (int, string) {
		c := exec.Command("sh", "-e", "-c", script)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if c.ProcessState == nil {
			t.Fatalf("sh: %v", err)
		}
		return c.ProcessState.ExitCode(), string(out)
	}

	dir := copyRelease(t, r, archive, sums, sums+".minisig")
	code, out := verify(dir)
	t.Logf("the README's verify step on the release: exit %d\n%s", code, out)
	if code != 0 || !strings.Contains(out, "Signature and comment signature verified") || !strings.Contains(out, archive+": OK") {
		t.Fatalf("the README's verify step does not pass the release: exit %d\n%s", code, out)
	}

	tamper := func(dir string) []byte {
		path := filepath.Join(dir, archive)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0x01
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return b
	}

	dir = copyRelease(t, r, archive, sums, sums+".minisig")
	tamper(dir)
	code, out = verify(dir)
	t.Logf("the README's verify step on an archive changed by one byte: exit %d\n%s", code, out)
	if code == 0 || !strings.Contains(out, archive+": FAILED") {
		t.Errorf("the README's verify step passes an archive changed by one byte: exit %d\n%s", code, out)
	}

	dir = copyRelease(t, r, archive, sums, sums+".minisig")
	b := tamper(dir)
	h := sha256.Sum256(b)
	list, err := os.ReadFile(filepath.Join(dir, sums))
	if err != nil {
		t.Fatal(err)
	}
	list = bytes.Replace(list, []byte(r.sums(t)[archive]), []byte(hex.EncodeToString(h[:])), 1)
	if err := os.WriteFile(filepath.Join(dir, sums), list, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = verify(dir)
	t.Logf("the README's verify step on an archive changed with its checksum: exit %d\n%s", code, out)
	if code == 0 || !strings.Contains(out, "Signature verification failed") || strings.Contains(out, ": OK") {
		t.Errorf("the README's verify step passes an archive whose checksum was changed with it: exit %d\n%s", code, out)
	}
}
