//go:build release

package releasetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// serveRelease serves the release's files from 127.0.0.1 as GitHub serves
// a release's downloads, under /vVERSION/, with the files in replace in
// place of the release's, and returns the base URL that
// scripts/install-release takes.
func serveRelease(t *testing.T, r release, replace map[string][]byte) string {
	t.Helper()
	files := http.FileServer(http.Dir(r.dir))
	prefix := "/v" + r.version + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name, ok := strings.CutPrefix(req.URL.Path, prefix)
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, req)
			return
		}
		if b, ok := replace[name]; ok {
			w.Write(b)
			return
		}
		req.URL.Path = "/" + name
		files.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// installRelease runs scripts/install-release against base into dir and
// returns its exit code, stdout and stderr.
func installRelease(t *testing.T, base, dir string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command("sh", append([]string{"../../scripts/install-release", "--base-url", base, "--dir", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if err != nil && c.ProcessState == nil {
		t.Fatalf("install-release: %v", err)
	}
	return c.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// The install that the GitHub Action and the GitLab template run, against
// the release scripts/release built, served from 127.0.0.1: it installs
// this machine's archive, whose programs run and name the release's
// version, and says where they are.
func TestInstallReleaseInstallsTheVerifiedArchive(t *testing.T) {
	r := load(t)
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Fatalf("the install is checked on linux/amd64 or linux/arm64; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	base := serveRelease(t, r, nil)
	dir := filepath.Join(t.TempDir(), "bin")
	code, stdout, stderr := installRelease(t, base, dir, "v"+r.version)
	if code != 0 {
		t.Fatalf("install-release exited %d:\n%s", code, stderr)
	}
	if strings.TrimSpace(stdout) != dir {
		t.Errorf("install-release printed %q, want the directory %s", stdout, dir)
	}
	if !strings.Contains(stderr, r.archiveName("linux", runtime.GOARCH)+" matches its SHA-256") {
		t.Errorf("install-release does not say it checked the archive:\n%s", stderr)
	}
	for _, p := range programs {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Errorf("%s was not installed: %v", p, err)
		} else if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is installed with mode %v, not executable", p, fi.Mode())
		}
	}
	if v := run(t, filepath.Join(dir, "ask-confirm"), "version"); !strings.HasPrefix(v, "ask-confirm v"+r.version+" ") {
		t.Errorf("the installed ask-confirm version says %q, want v%s", v, r.version)
	}
	if h := run(t, filepath.Join(dir, "ask-confirm-mcp"), "--help"); !strings.Contains(h, "Model Context Protocol") {
		t.Errorf("the installed ask-confirm-mcp --help says %q", h)
	}
	// Installed again over itself, as a re-run on a runner that kept its
	// temporary directory does.
	if code, _, stderr := installRelease(t, base, dir, "v"+r.version); code != 0 {
		t.Errorf("a second install into the same directory exited %d:\n%s", code, stderr)
	}
}

// A release whose archive does not match its checksum, or whose checksums
// file does not give the archive exactly one well-formed line, is refused
// with exit 1 and a message that says so, and nothing is installed.
func TestInstallReleaseRefusesAWrongChecksum(t *testing.T) {
	r := load(t)
	archive := r.archiveName("linux", runtime.GOARCH)
	sumsName := r.name("checksums.txt")
	original, err := os.ReadFile(filepath.Join(r.dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(r.dir, sumsName))
	if err != nil {
		t.Fatal(err)
	}
	want := r.sums(t)[archive]
	if want == "" {
		t.Fatalf("%s has no line for %s", sumsName, archive)
	}
	// One byte of the archive changed, far into it: a gzip stream that may
	// still unpack.
	tampered := bytes.Clone(original)
	tampered[len(tampered)/2] ^= 0x01
	// Another valid SHA-256 in the archive's line.
	otherSum := strings.Repeat("0", 64)
	cases := []struct {
		name    string
		replace map[string][]byte
		says    string
	}{
		{"tampered archive", map[string][]byte{archive: tampered}, "checksum mismatch"},
		{"tampered checksums line", map[string][]byte{sumsName: bytes.Replace(sums, []byte(want), []byte(otherSum), 1)}, "checksum mismatch"},
		{"archive missing from the checksums", map[string][]byte{sumsName: dropLine(sums, archive)}, "has 0 lines for " + archive},
		{"archive listed twice", map[string][]byte{sumsName: append(bytes.Clone(sums), []byte(otherSum+"  "+archive+"\n")...)}, "has 2 lines for " + archive},
		{"checksum not a SHA-256", map[string][]byte{sumsName: bytes.Replace(sums, []byte(want), []byte(want[:63]+"g"), 1)}, "not a SHA-256"},
		{"no checksums file", map[string][]byte{}, "could not download"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var base string
			if tc.name == "no checksums file" {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					if strings.HasSuffix(req.URL.Path, sumsName) {
						http.NotFound(w, req)
						return
					}
					http.ServeFile(w, req, filepath.Join(r.dir, filepath.Base(req.URL.Path)))
				}))
				t.Cleanup(srv.Close)
				base = srv.URL
			} else {
				base = serveRelease(t, r, tc.replace)
			}
			dir := filepath.Join(t.TempDir(), "bin")
			code, stdout, stderr := installRelease(t, base, dir, "v"+r.version)
			if code != 1 {
				t.Errorf("install-release exited %d, want 1 (refused)\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "install-release: error: ") || !strings.Contains(stderr, tc.says) {
				t.Errorf("install-release's message does not say %q:\n%s", tc.says, stderr)
			}
			if stdout != "" {
				t.Errorf("install-release printed %q on stdout, the directory of an install", stdout)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				entries, _ := os.ReadDir(dir)
				t.Errorf("a refused install left %s (%v): %v", dir, err, entries)
			}
		})
	}
}

// A pinned install names its release: "latest", a branch or nothing is a
// usage error (exit 2), before anything is downloaded.
func TestInstallReleaseTakesOnlyAVersion(t *testing.T) {
	r := load(t)
	var asked bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		asked = true
		http.NotFound(w, req)
	}))
	t.Cleanup(srv.Close)
	for _, args := range [][]string{{"latest"}, {"main"}, {}, {"v" + r.version, "v" + r.version}} {
		code, _, stderr := installRelease(t, srv.URL, filepath.Join(t.TempDir(), "bin"), args...)
		if code != 2 || !strings.Contains(stderr, "usage: install-release") {
			t.Errorf("install-release %v exited %d, want 2 with its usage:\n%s", args, code, stderr)
		}
	}
	if asked {
		t.Error("install-release downloaded something for a usage error")
	}
}

// dropLine is the checksums file without the line of file.
func dropLine(sums []byte, file string) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(sums, []byte("\n")) {
		if !bytes.HasSuffix(bytes.TrimSpace(line), []byte("  "+file)) {
			out = append(out, line...)
		}
	}
	return out
}

// yamlDoc is the first YAML document of the repository's file, read with
// scripts/cilint's yamljson, which keeps a YAML library out of the module.
func yamlDoc(t *testing.T, file string, doc int) map[string]any {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("go", "-C", "../../scripts/cilint", "run", "./yamljson", abs)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("reading %s: %v\n%s", file, err, stderr.String())
	}
	var docs []map[string]any
	if err := json.Unmarshal(out, &docs); err != nil {
		t.Fatal(err)
	}
	return docs[doc]
}

// The GitHub Action's install step and the GitLab template's install item,
// run as the runners run them against the release served from 127.0.0.1:
// each installs the release and runs ask-confirm version; the action puts
// the directory on GITHUB_PATH and in its bin-dir output. With a tampered
// archive each fails, and the action puts nothing on PATH.
func TestCIInstallSteps(t *testing.T) {
	r := load(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var install map[string]any
	for _, s := range yamlDoc(t, "action.yml", 0)["runs"].(map[string]any)["steps"].([]any) {
		if s.(map[string]any)["id"] == "install" {
			install = s.(map[string]any)
		}
	}
	if install == nil {
		t.Fatal("action.yml has no install step")
	}
	gitlab := yamlDoc(t, "templates/ask-confirm.yml", 1)[".ask-confirm"].(map[string]any)["script"].([]any)[0].(string)
	archive := r.archiveName("linux", runtime.GOARCH)
	original, err := os.ReadFile(filepath.Join(r.dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Clone(original)
	tampered[len(tampered)/3] ^= 0x80

	for _, tc := range []struct {
		name    string
		replace map[string][]byte
	}{{"release", nil}, {"tampered archive", map[string][]byte{archive: tampered}}} {
		good := tc.replace == nil
		base := serveRelease(t, r, tc.replace)

		t.Run("GitHub "+tc.name, func(t *testing.T) {
			work := t.TempDir()
			path, output := filepath.Join(work, "path"), filepath.Join(work, "output")
			c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", install["run"].(string))
			c.Dir = work
			c.Env = append(os.Environ(), "VERSION=v"+r.version, "BASE_URL="+base, "GITHUB_ACTION_PATH="+repo,
				"RUNNER_TEMP="+work, "GITHUB_PATH="+path, "GITHUB_OUTPUT="+output)
			log, err := c.CombinedOutput()
			dir := filepath.Join(work, "ask-confirm-v"+r.version, "bin")
			gotPath, _ := os.ReadFile(path)
			if !good {
				if err == nil || !strings.Contains(string(log), "checksum mismatch") || len(gotPath) != 0 {
					t.Errorf("the action's install step on a tampered archive: %v, GITHUB_PATH %q:\n%s", err, gotPath, log)
				}
				return
			}
			if err != nil {
				t.Fatalf("the action's install step: %v\n%s", err, log)
			}
			if string(gotPath) != dir+"\n" {
				t.Errorf("GITHUB_PATH holds %q, want %s", gotPath, dir)
			}
			if out, _ := os.ReadFile(output); string(out) != "bin-dir="+dir+"\n" {
				t.Errorf("GITHUB_OUTPUT holds %q, want bin-dir=%s", out, dir)
			}
			if !strings.Contains(string(log), "ask-confirm v"+r.version+" ") {
				t.Errorf("the step did not run the installed ask-confirm version:\n%s", log)
			}
		})

		t.Run("GitLab "+tc.name, func(t *testing.T) {
			work := t.TempDir()
			// As a job's shell runs its script: set -e, and the item
			// followed by the next.
			c := exec.Command("sh", "-e", "-c", gitlab+"\ncommand -v ask-confirm-phone\n")
			c.Dir = work
			c.Env = append(os.Environ(), "ASK_CONFIRM_CI_VERSION=v"+r.version, "ASK_CONFIRM_CI_BASE_URL="+base, "TMPDIR="+work)
			log, err := c.CombinedOutput()
			dir := filepath.Join(work, "ask-confirm-v"+r.version, "bin")
			if !good {
				if err == nil || !strings.Contains(string(log), "checksum mismatch") {
					t.Errorf("the template's install on a tampered archive: %v\n%s", err, log)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("the refused install left %s", dir)
				}
				return
			}
			if err != nil {
				t.Fatalf("the template's install: %v\n%s", err, log)
			}
			if !strings.Contains(string(log), "ask-confirm v"+r.version+" ") || !strings.Contains(string(log), filepath.Join(dir, "ask-confirm-phone")) {
				t.Errorf("the template's install did not put the programs on PATH:\n%s", log)
			}
		})
	}
}
