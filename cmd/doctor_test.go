//go:build e2e && unix

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// withDialogProgram puts a scripted dialog program called name, which
// prints version for --version, alone on h's PATH, and returns its path.
// Alone, so that a qarma elsewhere on PATH cannot win over it.
func withDialogProgram(h *harness, name, version string) string {
	h.t.Helper()
	dir := filepath.Join(h.dir, "dialog-bin")
	must(h.t, os.MkdirAll(dir, 0o700))
	prog := filepath.Join(dir, name)
	// Like GNOME zenity, it lists --extra-button among its general options.
	must(h.t, os.WriteFile(prog, []byte("#!/bin/sh\nif [ \"$1\" = --help-general ]; then echo '  --extra-button=TEXT  Add an extra button'; else echo '"+version+"'; fi\n"), 0o700))
	h.env = append(h.env, "PATH="+dir) // the last PATH wins
	return prog
}

// doctorJSON runs ask-confirm doctor --json and decodes its report.
func doctorJSON(h *harness) (outcome, map[string]any) {
	h.t.Helper()
	o := h.run("doctor", "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(o.stdout), &rep); err != nil {
		h.t.Fatalf("stdout is not one JSON object: %v\n%s\nstderr: %s", err, o.stdout, o.stderr)
	}
	if code, _ := rep["exit_code"].(float64); int(code) != o.code {
		h.t.Errorf("exit_code %v in the report, but the process exited %d", rep["exit_code"], o.code)
	}
	return o, rep
}

// pathEntry returns the report's check of the path called name.
func pathEntry(t *testing.T, rep map[string]any, name string) map[string]any {
	t.Helper()
	paths, _ := rep["paths"].([]any)
	for _, p := range paths {
		if e, _ := p.(map[string]any); e["name"] == name {
			return e
		}
	}
	t.Fatalf("no %q in the report's paths: %v", name, rep["paths"])
	return nil
}

func TestDoctorWithDisplay(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	prog := withDialogProgram(h, "zenity", "3.44.0")

	o, rep := doctorJSON(h)
	if o.code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
	if o.stderr != "" {
		t.Errorf("stderr %q, want nothing when a person can be asked", o.stderr)
	}
	want := map[string]any{
		"can_ask":         true,
		"session":         "x11",
		"display":         "DISPLAY=" + filepath.Join(h.dir, "x:0"),
		"backend":         "zenity",
		"backend_path":    prog,
		"backend_version": "3.44.0",
	}
	for k, v := range want {
		if rep[k] != v {
			t.Errorf("%s = %v, want %v", k, rep[k], v)
		}
	}
	if holder, _ := rep["holder"].(map[string]any); holder["can_detach"] != true || !strings.Contains(holder["how"].(string), "setsid") {
		t.Errorf("holder = %v, want it detachable with setsid", rep["holder"])
	}
	if rep["mcp_server"] != "" {
		t.Errorf("mcp_server = %v, want none: PATH holds only the dialog program", rep["mcp_server"])
	}
	if rep["approve_for_button"] != "offered: zenity --extra-button" {
		t.Errorf("approve_for_button = %v, want it offered", rep["approve_for_button"])
	}
	answers := pathEntry(t, rep, "answers")
	if answers["path"] != filepath.Join(h.dir, "cache", "ask-confirm", "answers.db") || answers["exists"] != false || answers["safe"] != true {
		t.Errorf("answers = %v, want the harness's store, not there yet, safe", answers)
	}

	// The same, for a person.
	o = h.run("doctor")
	if o.code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstderr: %s", o.code, o.stderr)
	}
	for _, want := range []string{"session", "x11", "zenity 3.44.0 (" + prog + ")", "mcp server", "none beside ask-confirm", "can ask", "yes"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout does not mention %q:\n%s", want, o.stdout)
		}
	}

	// doctor only looks: it created none of ask-confirm's directories.
	for _, dir := range []string{"cache", "state"} {
		if _, err := os.Stat(filepath.Join(h.dir, dir)); !os.IsNotExist(err) {
			t.Errorf("doctor created %s: %v", dir, err)
		}
	}
}

// doctor names the MCP server program that ask-confirm mcp would run.
func TestDoctorFindsTheMCPServer(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	withDialogProgram(h, "zenity", "3.44.0")
	server := filepath.Join(filepath.Dir(h.exe), mcpProgram)
	h.env = mcpServerEnv(t, h.env)
	if _, err := os.Stat(server); err == nil {
		t.Fatalf("%s exists beside the test's ask-confirm; the test needs it found on PATH", server)
	}
	o, rep := doctorJSON(h)
	if got, _ := rep["mcp_server"].(string); filepath.Base(got) != mcpProgram || filepath.Dir(got) != mcpServer.dir {
		t.Fatalf("mcp_server = %v, want the one on PATH in %s\nstderr: %s", rep["mcp_server"], mcpServer.dir, o.stderr)
	}
}

func TestDoctorWithoutDisplay(t *testing.T) {
	h := newHarness(t) // no DISPLAY, no WAYLAND_DISPLAY
	h.exe = lookPathOrFail(t, "ask-confirm")
	withDialogProgram(h, "zenity", "3.44.0")

	o, rep := doctorJSON(h)
	if o.code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d\nstdout: %s\nstderr: %s", o.code, lifecycle.ExitHeadless, o.stdout, o.stderr)
	}
	if rep["can_ask"] != false || rep["session"] != "headless" || !strings.Contains(rep["reason"].(string), "DISPLAY") {
		t.Errorf("report %v, want can_ask false, session headless, and a reason naming DISPLAY", rep)
	}
	if !strings.HasPrefix(o.stderr, "ask-confirm: hint: ") {
		t.Errorf("stderr %q, want a hint", o.stderr)
	}

	o = h.run("doctor")
	if o.code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d", o.code, lifecycle.ExitHeadless)
	}
	if !strings.Contains(o.stdout, "can ask") || !strings.Contains(o.stdout, "no: no display") {
		t.Errorf("stdout does not say nobody can be asked:\n%s", o.stdout)
	}
	lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ask-confirm: error: nobody can be asked: ") || !strings.HasPrefix(lines[1], "ask-confirm: hint: ") {
		t.Errorf("stderr %q, want the outcome and a hint", o.stderr)
	}
}

func TestDoctorWithoutDialogProgram(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	h.env = append(h.env, "PATH="+t.TempDir())

	o, rep := doctorJSON(h)
	if o.code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d\nstderr: %s", o.code, lifecycle.ExitHeadless, o.stderr)
	}
	// The display answers; the missing program is what stops it.
	if rep["session"] != "x11" || rep["backend"] != "" || !strings.Contains(rep["reason"].(string), "no dialog program") {
		t.Errorf("report %v, want an x11 session with no backend, refused for the missing program", rep)
	}
	if !strings.Contains(o.stderr, "hint: install zenity") {
		t.Errorf("stderr %q, want a hint to install zenity", o.stderr)
	}
}

// A directory the store would refuse makes doctor fail as the store would,
// with exit 8, and say which one and why.
func TestDoctorReportsUnsafeDirectory(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := newFakeHarness(t)
	withDialogProgram(h, "zenity", "3.44.0")
	elsewhere := filepath.Join(h.dir, "elsewhere")
	must(t, os.Mkdir(elsewhere, 0o700))
	must(t, os.Mkdir(filepath.Join(h.dir, "cache"), 0o700))
	must(t, os.Symlink(elsewhere, filepath.Join(h.dir, "cache", "ask-confirm")))
	must(t, os.MkdirAll(filepath.Join(h.dir, "state", "ask-confirm"), 0o755))

	o, rep := doctorJSON(h)
	if o.code != int(lifecycle.ExitInternal) {
		t.Fatalf("doctor exited %d, want %d\nstdout: %s\nstderr: %s", o.code, lifecycle.ExitInternal, o.stdout, o.stderr)
	}
	if d := pathEntry(t, rep, "answers directory"); d["safe"] != false || d["problem"] != store.ProblemSymlink {
		t.Errorf("answers directory = %v, want unsafe as a symbolic link", d)
	}
	// Too open is worth a note, but the store accepts it.
	if d := pathEntry(t, rep, "state directory"); d["safe"] != true || d["mode"] != "0755" || !strings.Contains(d["note"].(string), "chmod 700") {
		t.Errorf("state directory = %v, want safe, mode 0755, with a note to chmod it", d)
	}
	if !strings.Contains(rep["message"].(string), filepath.Join(h.dir, "cache", "ask-confirm")+" is a symbolic link") {
		t.Errorf("message %q does not name the unsafe directory", rep["message"])
	}
}

// Under a real X server with GNOME zenity (scripts/test provides both), a
// person can be asked and zenity tells its version.
func TestDoctorRealDisplay(t *testing.T) {
	h := newRealHarness(t)
	o, rep := doctorJSON(h)
	if o.code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
	if rep["session"] != "x11" || rep["backend"] != "zenity" || rep["backend_version"] == nil || rep["backend_version"] == "" {
		t.Errorf("report %v, want an x11 session with zenity and its version", rep)
	}
}
