//go:build e2e && unix

package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/e2e"

	"github.com/ask-confirm/ask-confirm/lifecycle"
	"github.com/ask-confirm/ask-confirm/store"
)

// withDialogProgram puts a scripted dialog program called name, which
// prints version for --version, alone on h's PATH, and returns its path.
// Alone, so that a qarma elsewhere on PATH cannot win over it.
func withDialogProgram(h *e2e.Harness, name, version string) string {
	h.T.Helper()
	dir := filepath.Join(h.Dir, "dialog-bin")
	e2e.Must(h.T, os.MkdirAll(dir, 0o700))
	prog := filepath.Join(dir, name)
	// Like GNOME zenity, it lists --extra-button among its general options.
	e2e.Must(h.T, os.WriteFile(prog, []byte("#!/bin/sh\nif [ \"$1\" = --help-general ]; then echo '  --extra-button=TEXT  Add an extra button'; else echo '"+version+"'; fi\n"), 0o700))
	h.Env = append(h.Env, "PATH="+dir) // the last PATH wins
	return prog
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
	h := e2e.NewFakeHarness(t)
	prog := withDialogProgram(h, "zenity", "3.44.0")

	o, rep := e2e.DoctorJSON(h)
	if o.Code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.Code, o.Stdout, o.Stderr)
	}
	if o.Stderr != "" {
		t.Errorf("stderr %q, want nothing when a person can be asked", o.Stderr)
	}
	want := map[string]any{
		"can_ask":         true,
		"session":         "x11",
		"display":         "DISPLAY=" + filepath.Join(h.Dir, "x:0"),
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
	if answers["path"] != filepath.Join(h.Dir, "cache", "ask-confirm", "answers.db") || answers["exists"] != false || answers["safe"] != true {
		t.Errorf("answers = %v, want the harness's store, not there yet, safe", answers)
	}

	// The same, for a person.
	o = h.Run("doctor")
	if o.Code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstderr: %s", o.Code, o.Stderr)
	}
	for _, want := range []string{"session", "x11", "zenity 3.44.0 (" + prog + ")", "mcp server", "none beside ask-confirm", "can ask", "yes"} {
		if !strings.Contains(o.Stdout, want) {
			t.Errorf("stdout does not mention %q:\n%s", want, o.Stdout)
		}
	}

	// doctor only looks: it created none of ask-confirm's directories.
	for _, dir := range []string{"cache", "state"} {
		if _, err := os.Stat(filepath.Join(h.Dir, dir)); !os.IsNotExist(err) {
			t.Errorf("doctor created %s: %v", dir, err)
		}
	}
}

// doctor names the MCP server program that ask-confirm mcp would run.
func TestDoctorFindsTheMCPServer(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	withDialogProgram(h, "zenity", "3.44.0")
	server := filepath.Join(filepath.Dir(h.Exe), "ask-confirm-mcp")
	h.Env = e2e.MCPServerEnv(t, h.Env)
	if _, err := os.Stat(server); err == nil {
		t.Fatalf("%s exists beside the test's ask-confirm; the test needs it found on PATH", server)
	}
	o, rep := e2e.DoctorJSON(h)
	if got, _ := rep["mcp_server"].(string); filepath.Base(got) != "ask-confirm-mcp" || filepath.Dir(got) != e2e.MCPServerDir() {
		t.Fatalf("mcp_server = %v, want the one on PATH in %s\nstderr: %s", rep["mcp_server"], e2e.MCPServerDir(), o.Stderr)
	}
}

func TestDoctorWithoutDisplay(t *testing.T) {
	h := e2e.NewHarness(t) // no DISPLAY, no WAYLAND_DISPLAY
	h.Exe = e2e.LookPathOrFail(t, "ask-confirm")
	withDialogProgram(h, "zenity", "3.44.0")

	o, rep := e2e.DoctorJSON(h)
	if o.Code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d\nstdout: %s\nstderr: %s", o.Code, lifecycle.ExitHeadless, o.Stdout, o.Stderr)
	}
	if rep["can_ask"] != false || rep["session"] != "headless" || !strings.Contains(rep["reason"].(string), "DISPLAY") {
		t.Errorf("report %v, want can_ask false, session headless, and a reason naming DISPLAY", rep)
	}
	if !strings.HasPrefix(o.Stderr, "ask-confirm: hint: ") {
		t.Errorf("stderr %q, want a hint", o.Stderr)
	}

	o = h.Run("doctor")
	if o.Code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d", o.Code, lifecycle.ExitHeadless)
	}
	if !strings.Contains(o.Stdout, "can ask") || !strings.Contains(o.Stdout, "no: no display") {
		t.Errorf("stdout does not say nobody can be asked:\n%s", o.Stdout)
	}
	lines := strings.Split(strings.TrimSpace(o.Stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ask-confirm: error: nobody can be asked: ") || !strings.HasPrefix(lines[1], "ask-confirm: hint: ") {
		t.Errorf("stderr %q, want the outcome and a hint", o.Stderr)
	}
}

// A DISPLAY that is set but does not answer is named as such, not as
// "none".
func TestDoctorWithDeadDisplay(t *testing.T) {
	h := e2e.NewHarness(t)
	h.Exe = e2e.LookPathOrFail(t, "ask-confirm")
	withDialogProgram(h, "zenity", "3.44.0")
	h.Env = append(h.Env, "DISPLAY=:1957") // no X server listens there
	o := h.Run("doctor")
	if o.Code != int(lifecycle.ExitHeadless) {
		t.Fatalf("doctor exited %d, want %d", o.Code, lifecycle.ExitHeadless)
	}
	var display string
	for _, line := range strings.Split(o.Stdout, "\n") {
		if k, v, _ := strings.Cut(line, " "); k == "display" {
			display = strings.TrimSpace(v)
		}
	}
	if !strings.HasPrefix(display, "none answers: DISPLAY=:1957 does not answer") {
		t.Errorf("display line %q, want the dead DISPLAY named\n%s", display, o.Stdout)
	}
}

func TestDoctorWithoutDialogProgram(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	h.Env = append(h.Env, "PATH="+t.TempDir())

	o, rep := e2e.DoctorJSON(h)
	// A request there could not show its dialog (exit 6), and doctor says
	// the same.
	if o.Code != int(lifecycle.ExitFailed) {
		t.Fatalf("doctor exited %d, want %d\nstderr: %s", o.Code, lifecycle.ExitFailed, o.Stderr)
	}
	// The display answers; the missing program is what stops it.
	if rep["session"] != "x11" || rep["backend"] != "" || !strings.Contains(rep["reason"].(string), "no dialog program") {
		t.Errorf("report %v, want an x11 session with no backend, refused for the missing program", rep)
	}
	if !strings.Contains(o.Stderr, "hint: install zenity") {
		t.Errorf("stderr %q, want a hint to install zenity", o.Stderr)
	}
}

// A directory the store would refuse makes doctor fail as the store would,
// with exit 8, and say which one and why.
func TestDoctorReportsUnsafeDirectory(t *testing.T) {
	t.Parallel() // scripted dialogs only: no window, no shared display
	h := e2e.NewFakeHarness(t)
	withDialogProgram(h, "zenity", "3.44.0")
	elsewhere := filepath.Join(h.Dir, "elsewhere")
	e2e.Must(t, os.Mkdir(elsewhere, 0o700))
	e2e.Must(t, os.Mkdir(filepath.Join(h.Dir, "cache"), 0o700))
	e2e.Must(t, os.Symlink(elsewhere, filepath.Join(h.Dir, "cache", "ask-confirm")))
	e2e.Must(t, os.MkdirAll(filepath.Join(h.Dir, "state", "ask-confirm"), 0o755))

	o, rep := e2e.DoctorJSON(h)
	if o.Code != int(lifecycle.ExitInternal) {
		t.Fatalf("doctor exited %d, want %d\nstdout: %s\nstderr: %s", o.Code, lifecycle.ExitInternal, o.Stdout, o.Stderr)
	}
	if d := pathEntry(t, rep, "answers directory"); d["safe"] != false || d["problem"] != store.ProblemSymlink {
		t.Errorf("answers directory = %v, want unsafe as a symbolic link", d)
	}
	// Too open is worth a note, but the store accepts it.
	if d := pathEntry(t, rep, "state directory"); d["safe"] != true || d["mode"] != "0755" || !strings.Contains(d["note"].(string), "chmod 700") {
		t.Errorf("state directory = %v, want safe, mode 0755, with a note to chmod it", d)
	}
	if !strings.Contains(rep["message"].(string), filepath.Join(h.Dir, "cache", "ask-confirm")+" is a symbolic link") {
		t.Errorf("message %q does not name the unsafe directory", rep["message"])
	}
}

// Under a real X server with GNOME zenity (scripts/test provides both), a
// person can be asked and zenity tells its version.
func TestDoctorRealDisplay(t *testing.T) {
	h := e2e.NewRealHarness(t)
	o, rep := e2e.DoctorJSON(h)
	if o.Code != int(lifecycle.ExitApproved) {
		t.Fatalf("doctor exited %d, want 0\nstdout: %s\nstderr: %s", o.Code, o.Stdout, o.Stderr)
	}
	if rep["session"] != "x11" || rep["backend"] != "zenity" || rep["backend_version"] == nil || rep["backend_version"] == "" {
		t.Errorf("report %v, want an x11 session with zenity and its version", rep)
	}
}

// doctor tells a person whose Codex configuration names the hook whether
// Codex runs it: not until it is trusted, and not well with a timeout at
// or below the hook's --wait.
func TestDoctorReportsCodexHooks(t *testing.T) {
	t.Parallel() // scripted dialogs only
	h := e2e.NewFakeHarness(t)
	withDialogProgram(h, "zenity", "3.44.0")
	codex := filepath.Join(h.Dir, "codex")
	e2e.Must(t, os.MkdirAll(codex, 0o700))
	config := filepath.Join(codex, "config.toml")
	e2e.Must(t, os.WriteFile(config, []byte(`[[hooks.PermissionRequest]]
matcher = "Bash"
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "ask-confirm hook codex"
timeout = 360

[[hooks.PermissionRequest]]
matcher = "apply_patch"
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "ask-confirm hook codex --wait 10m"
timeout = 300

[hooks.state."`+config+`:permission_request:1:0"]
trusted_hash = "sha256:5e1f"
`), 0o600))
	o, rep := e2e.DoctorJSON(h)
	hooks, _ := rep["codex_hooks"].([]any)
	if len(hooks) != 2 {
		t.Fatalf("codex_hooks = %v\n%s", rep["codex_hooks"], o.Stderr)
	}
	first, second := hooks[0].(map[string]any), hooks[1].(map[string]any)
	if first["trusted"] != false || !strings.Contains(first["problem"].(string), "not trusted yet") || first["key"] != config+":permission_request:0:0" {
		t.Errorf("the untrusted hook: %v", first)
	}
	if second["trusted"] != true || !strings.Contains(second["problem"].(string), "timeout (300 s) is not above the hook's --wait (10m)") {
		t.Errorf("the trusted hook with a short timeout: %v", second)
	}
	text := h.Run("doctor")
	if !strings.Contains(text.Stdout, "codex hook") || !strings.Contains(text.Stdout, "/hooks") {
		t.Errorf("doctor's text does not report the Codex hooks:\n%s", text.Stdout)
	}
}
