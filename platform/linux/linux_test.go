//go:build linux

package linux

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestXAddress(t *testing.T) {
	cases := []struct {
		display       string
		network, addr string // empty network: an error
	}{
		{":0", "unix", "/tmp/.X11-unix/X0"},
		{":1.0", "unix", "/tmp/.X11-unix/X1"},
		{"unix:2", "unix", "/tmp/.X11-unix/X2"},
		{"localhost:10.0", "tcp", "localhost:6010"},
		{"host:0", "tcp", "host:6000"},
		{"::1:0", "tcp", "[::1]:6000"},
		{"/tmp/launch-abc/org.x:0", "unix", "/tmp/launch-abc/org.x:0"},
		{"nocolon", "", ""},
		{":x", "", ""},
		{":-1", "", ""},
		{":", "", ""},
		{":59536", "", ""}, // port 65536
	}
	for _, c := range cases {
		t.Run(c.display, func(t *testing.T) {
			network, addr, err := XAddress(c.display)
			if c.network == "" {
				if err == nil {
					t.Fatalf("XAddress(%q) = %s %s, want an error", c.display, network, addr)
				}
				if !strings.Contains(err.Error(), "DISPLAY") || !strings.Contains(err.Error(), c.display) {
					t.Errorf("error %q does not name DISPLAY and its value", err)
				}
				return
			}
			if err != nil || network != c.network || addr != c.addr {
				t.Errorf("XAddress(%q) = %q %q %v, want %q %q", c.display, network, addr, err, c.network, c.addr)
			}
		})
	}
}

// env is a fake environment for Display.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// listen serves a unix socket at path until the test ends.
func listen(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

func TestDisplay(t *testing.T) {
	dir := t.TempDir()
	xSock := filepath.Join(dir, "x:0")
	listen(t, xSock)
	wayland := filepath.Join(dir, "wayland-1")
	listen(t, wayland)
	dead := filepath.Join(dir, "nobody:0")

	cases := []struct {
		name   string
		env    env
		ok     bool
		reason []string // what a failure's reason must mention
	}{
		{"no display variables", env{}, false, []string{"DISPLAY"}},
		{"empty display variables", env{"DISPLAY": "", "WAYLAND_DISPLAY": ""}, false, []string{"DISPLAY"}},
		{"X socket path that answers", env{"DISPLAY": xSock}, true, nil},
		{"X socket path with a screen number", env{"DISPLAY": xSock + ".0"}, true, nil},
		{"X socket path with nobody listening", env{"DISPLAY": dead}, false, []string{dead}},
		{"malformed DISPLAY", env{"DISPLAY": "nocolon"}, false, []string{"nocolon"}},
		{"Wayland socket by absolute path", env{"WAYLAND_DISPLAY": wayland}, true, nil},
		{"Wayland socket under XDG_RUNTIME_DIR", env{"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": dir}, true, nil},
		{"Wayland socket that does not answer", env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": dir}, false, []string{"WAYLAND_DISPLAY", filepath.Join(dir, "wayland-9")}},
		{"dead Wayland socket but a live X display", env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": dir, "DISPLAY": xSock}, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, reason := Display(c.env.get)
			if ok != c.ok {
				t.Fatalf("Display = %v (%q), want %v", ok, reason, c.ok)
			}
			if ok && reason != "" {
				t.Errorf("a reachable display comes with a reason: %q", reason)
			}
			for _, want := range c.reason {
				if !strings.Contains(reason, want) {
					t.Errorf("reason %q does not mention %q", reason, want)
				}
			}
		})
	}
}

// pathWith sets PATH to a new directory holding an executable for each
// name, and nothing else.
func pathWith(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestDialogProgram(t *testing.T) {
	cases := []struct {
		installed []string
		want      string
	}{
		{nil, ""},
		{[]string{"matedialog"}, "matedialog"},
		{[]string{"zenity"}, "zenity"},
		{[]string{"zenity", "matedialog"}, "zenity"},
		{[]string{"zenity", "qarma"}, "qarma"},
		{[]string{"qarma", "zenity", "matedialog"}, "qarma"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.installed, "+"), func(t *testing.T) {
			dir := pathWith(t, c.installed...)
			name, path := DialogProgram()
			if name != c.want {
				t.Fatalf("DialogProgram() = %q, want %q", name, c.want)
			}
			wantPath := ""
			if c.want != "" {
				wantPath = filepath.Join(dir, c.want)
			}
			if path != wantPath {
				t.Errorf("DialogProgram() path = %q, want %q", path, wantPath)
			}
		})
	}
}

// A file that is not executable is not a dialog program.
func TestDialogProgramSkipsNonExecutable(t *testing.T) {
	dir := pathWith(t, "matedialog")
	if err := os.WriteFile(filepath.Join(dir, "qarma"), []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	if name, _ := DialogProgram(); name != "matedialog" {
		t.Errorf("DialogProgram() = %q, want matedialog", name)
	}
}
