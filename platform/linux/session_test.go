package linux

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// env is a fake environment.
type env map[string]string

func (e env) get(k string) string { return e[k] }

// answering is a fake dialer: only the addresses it lists answer.
func answering(addrs ...string) dialer {
	return func(network, addr string) bool { return slices.Contains(addrs, network+" "+addr) }
}

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
			network, addr, err := xAddress(c.display)
			if c.network == "" {
				if err == nil {
					t.Fatalf("xAddress(%q) = %s %s, want an error", c.display, network, addr)
				}
				if !strings.Contains(err.Error(), "DISPLAY") || !strings.Contains(err.Error(), c.display) {
					t.Errorf("error %q does not name DISPLAY and its value", err)
				}
				return
			}
			if err != nil || network != c.network || addr != c.addr {
				t.Errorf("xAddress(%q) = %q %q %v, want %q %q", c.display, network, addr, err, c.network, c.addr)
			}
		})
	}
}

func TestIsWSL(t *testing.T) {
	const (
		wsl2   = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0) #1 SMP"
		wsl1   = "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1237-Microsoft"
		debian = "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0)"
	)
	cases := []struct {
		name    string
		env     env
		version string
		want    bool
	}{
		{"WSL 2 kernel", env{}, wsl2, true},
		{"WSL 1 kernel", env{}, wsl1, true},
		{"WSL_DISTRO_NAME", env{"WSL_DISTRO_NAME": "Ubuntu"}, "", true},
		{"WSL_INTEROP", env{"WSL_INTEROP": "/run/WSL/8_interop"}, debian, true},
		{"plain Linux", env{}, debian, false},
		{"nothing known", env{}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isWSL(c.env.get, c.version); got != c.want {
				t.Errorf("isWSL = %v, want %v", got, c.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	const (
		x0      = "unix /tmp/.X11-unix/X0"
		x0abs   = "unix @/tmp/.X11-unix/X0"
		wl0     = "unix /run/user/1000/wayland-0"
		wslgWL  = "unix /mnt/wslg/runtime-dir/wayland-0"
		tcpX10  = "tcp localhost:6010"
		program = "zenity"
	)
	cases := []struct {
		name    string
		env     env
		wsl     bool
		program string
		up      []string // addresses that answer
		ok      bool
		kind    string
		display string
		has     []string // what Reason (or, when ok, a note) must mention
		hint    string   // what Hint must mention
	}{
		{name: "nothing set", env: env{}, kind: kindHeadless,
			has: []string{"neither DISPLAY nor WAYLAND_DISPLAY"}, hint: "desktop session"},
		{name: "X11", env: env{"DISPLAY": ":0"}, up: []string{x0}, ok: true, kind: kindX11, display: "DISPLAY=:0"},
		{name: "X11 through the abstract socket only", env: env{"DISPLAY": ":0"}, up: []string{x0abs}, ok: true, kind: kindX11, display: "DISPLAY=:0"},
		{name: "X11 over SSH forwarding", env: env{"DISPLAY": "localhost:10.0"}, up: []string{tcpX10}, ok: true, kind: kindX11, display: "DISPLAY=localhost:10.0"},
		{name: "X11 set but dead", env: env{"DISPLAY": ":0"}, kind: kindHeadless,
			has: []string{"DISPLAY=:0 does not answer at /tmp/.X11-unix/X0"}, hint: "desktop session"},
		{name: "malformed DISPLAY", env: env{"DISPLAY": "nocolon"}, kind: kindHeadless, has: []string{`DISPLAY="nocolon"`}},
		{name: "Wayland with Xwayland", env: env{"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000", "DISPLAY": ":0"},
			up: []string{wl0, x0}, ok: true, kind: kindWayland, display: "WAYLAND_DISPLAY=wayland-0, DISPLAY=:0"},
		{name: "Wayland only", env: env{"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000"},
			up: []string{wl0}, ok: true, kind: kindWayland, display: "WAYLAND_DISPLAY=wayland-0", has: []string{"Wayland only"}},
		{name: "Wayland by absolute path", env: env{"WAYLAND_DISPLAY": "/run/user/1000/wayland-0", "XDG_RUNTIME_DIR": "/run/user/1000"},
			up: []string{wl0}, ok: true, kind: kindWayland, display: "WAYLAND_DISPLAY=/run/user/1000/wayland-0"},
		// GTK 3 opens no Wayland display without a runtime directory, even
		// where the socket answers.
		{name: "Wayland by absolute path without a runtime directory", env: env{"WAYLAND_DISPLAY": "/run/user/1000/wayland-0"},
			up: []string{wl0}, kind: kindHeadless},
		{name: "Wayland name without XDG_RUNTIME_DIR", env: env{"WAYLAND_DISPLAY": "wayland-0"}, up: []string{wl0}, kind: kindHeadless,
			has: []string{"XDG_RUNTIME_DIR is not set"}},
		{name: "dead Wayland, live X falls back to X11", env: env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": "/run/user/1000", "DISPLAY": ":0"},
			up: []string{x0}, ok: true, kind: kindX11, display: "DISPLAY=:0", has: []string{"WAYLAND_DISPLAY=wayland-9 does not answer"}},
		{name: "both dead", env: env{"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": "/run/user/1000", "DISPLAY": ":5"}, kind: kindHeadless,
			has: []string{"WAYLAND_DISPLAY=wayland-9", "DISPLAY=:5"}},
		{name: "WSLg", wsl: true, env: env{"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/mnt/wslg/runtime-dir", "DISPLAY": ":0"},
			up: []string{wslgWL, x0}, ok: true, kind: kindWSL, display: "WAYLAND_DISPLAY=wayland-0, DISPLAY=:0", has: []string{"WSLg"}},
		{name: "WSL with an X server on Windows", wsl: true, env: env{"DISPLAY": "localhost:10.0"},
			up: []string{tcpX10}, ok: true, kind: kindWSL, display: "DISPLAY=localhost:10.0"},
		{name: "WSL without WSLg", wsl: true, env: env{}, kind: kindHeadless,
			has: []string{"neither DISPLAY nor WAYLAND_DISPLAY"}, hint: "wsl --update"},
		{name: "display but no dialog program", env: env{"DISPLAY": ":0"}, program: "-", up: []string{x0}, kind: kindX11,
			display: "DISPLAY=:0", has: []string{"no dialog program"}, hint: "apt-get install zenity"},
		{name: "neither display nor dialog program", env: env{}, program: "-", kind: kindHeadless,
			has: []string{"no dialog program"}, hint: "apt-get install zenity"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := program
			if c.program == "-" {
				prog = ""
			}
			v := judge(c.env.get, c.wsl, prog, answering(c.up...))
			if v.OK != c.ok || v.Kind != c.kind || v.Display != c.display {
				t.Fatalf("judge = ok %v, kind %q, display %q (%q); want %v, %q, %q", v.OK, v.Kind, v.Display, v.Reason, c.ok, c.kind, c.display)
			}
			if v.OK != (v.Reason == "") || v.OK != (v.Hint == "") {
				t.Errorf("ok %v with reason %q and hint %q: a refusal needs both, an approval neither", v.OK, v.Reason, v.Hint)
			}
			said := v.Reason + "\n" + strings.Join(v.Notes, "\n")
			for _, want := range c.has {
				if !strings.Contains(said, want) {
					t.Errorf("reason and notes %q do not mention %q", said, want)
				}
			}
			if !strings.Contains(v.Hint, c.hint) {
				t.Errorf("hint %q does not mention %q", v.Hint, c.hint)
			}
		})
	}
}

func TestVersionLine(t *testing.T) {
	cases := map[string]string{
		"3.44.0\n":                      "3.44.0",
		"\n  \nqarma 1.0.0\nQt 5.15\n":  "qarma 1.0.0",
		"":                              "",
		strings.Repeat("x", 300) + "\n": strings.Repeat("x", 100),
	}
	for in, want := range cases {
		if got := versionLine([]byte(in)); got != want {
			t.Errorf("versionLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrettyName(t *testing.T) {
	cases := map[string]string{
		"NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n": "Debian GNU/Linux 12 (bookworm)",
		"PRETTY_NAME=Alpine":         "Alpine",
		"PRETTY_NAME='Arch Linux'\n": "Arch Linux",
		"NAME=Fedora\n":              "",
		"":                           "",
	}
	for in, want := range cases {
		if got := prettyName(in); got != want {
			t.Errorf("prettyName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whether the dialog program offers the approve-for button is read from its
// --help-general.
func TestThirdButtonFrom(t *testing.T) {
	cases := []struct {
		help string
		err  error
		want string
	}{
		{"  --extra-button=TEXT   Add an extra button\n", nil, "offered: zenity --extra-button"},
		{"  --title=TITLE\n", nil, "not offered: zenity has no --extra-button, so a request with --approve-for cannot be shown there (exit 6)"},
		{"", errors.New("exit status 1"), "not checked: zenity --help-general failed: exit status 1"},
		{"--extra-button", errors.New("exit status 1"), "offered: zenity --extra-button"},
	}
	for _, c := range cases {
		if got := thirdButtonFrom("zenity", c.help, c.err); got != c.want {
			t.Errorf("thirdButtonFrom(%q, %v) = %q, want %q", c.help, c.err, got, c.want)
		}
	}
}

// The displays named but not answering are kept apart from the reason, so
// that doctor can name them even where the reason is another (no dialog
// program): a dead DISPLAY once read "display none".
func TestJudgeNamesUnreachableDisplays(t *testing.T) {
	e := env{"DISPLAY": ":5", "WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": "/run/user/1000"}
	for _, prog := range []string{"zenity", ""} {
		v := judge(e.get, false, prog, answering())
		if len(v.Unreachable) != 2 || !strings.Contains(v.Unreachable[0], "WAYLAND_DISPLAY=wayland-9") || !strings.Contains(v.Unreachable[1], "DISPLAY=:5 does not answer") {
			t.Errorf("program %q: Unreachable = %q, want both displays", prog, v.Unreachable)
		}
	}
	if v := judge(env{}.get, false, "zenity", answering()); len(v.Unreachable) != 0 {
		t.Errorf("nothing set: Unreachable = %q", v.Unreachable)
	}
}
