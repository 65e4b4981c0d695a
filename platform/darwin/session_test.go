package darwin

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	const me, other = 501, 502
	cases := []struct {
		name    string
		f       Facts
		ok      bool
		display string
		has     string // what Reason (or, when ok, a note) mentions
		hint    string
	}{
		{name: "Terminal in the GUI login", f: Facts{EUID: me, ConsoleUID: me, Manager: "Aqua"}, ok: true, display: "Aqua session of uid 501"},
		{name: "sudo in Terminal", f: Facts{EUID: 0, ConsoleUID: me, Manager: "Aqua"}, ok: true, display: "Aqua session of uid 0"},
		{name: "tmux started in Terminal, attached over SSH", f: Facts{EUID: me, ConsoleUID: me, Manager: "Aqua", SSH: true}, ok: true, display: "Aqua session of uid 501"},
		{name: "Aqua session switched away from", f: Facts{EUID: me, ConsoleUID: other, Manager: "Aqua"}, ok: true, display: "Aqua session of uid 501", has: "switches back"},
		{name: "SSH while the same user is at the console", f: Facts{EUID: me, ConsoleUID: me, Manager: "Background", SSH: true}, has: "SSH session", hint: "Terminal on the Mac"},
		{name: "SSH with nobody logged in", f: Facts{EUID: me, ConsoleUID: 0, Manager: "Background", SSH: true}, has: "SSH session", hint: "Terminal"},
		{name: "background agent", f: Facts{EUID: me, ConsoleUID: me, Manager: "Background", ParentIsLaunchd: true}, has: "background launchd session", hint: "LaunchAgent"},
		{name: "LaunchDaemon", f: Facts{EUID: 0, ConsoleUID: me, Manager: "System", ParentIsLaunchd: true}, has: "system session", hint: "LaunchAgent"},
		{name: "LaunchDaemon, nobody logged in", f: Facts{EUID: 0, ConsoleUID: 0, Manager: "System", ParentIsLaunchd: true}, has: "system session"},
		{name: "login window", f: Facts{EUID: 0, ConsoleUID: 0, Manager: "LoginWindow"}, has: "nobody is logged in", hint: "log in"},

		// launchctl could not tell: the console owner decides.
		{name: "unknown session, console is mine", f: Facts{EUID: me, ConsoleUID: me}, ok: true, display: "console user uid 501", has: "launchctl did not name"},
		{name: "unknown session, root with a console user", f: Facts{EUID: 0, ConsoleUID: me}, ok: true, display: "console user uid 501"},
		{name: "unknown session, root started by launchd", f: Facts{EUID: 0, ConsoleUID: me, ParentIsLaunchd: true}, has: "LaunchDaemon", hint: "LaunchAgent"},
		{name: "unknown session, console is another user's", f: Facts{EUID: me, ConsoleUID: other}, has: "another user (uid 502)", hint: "as the user"},
		{name: "unknown session, nobody at the console", f: Facts{EUID: me, ConsoleUID: 0}, has: "nobody is logged in", hint: "log in"},
		{name: "unknown session over SSH", f: Facts{EUID: me, ConsoleUID: me, SSH: true}, has: "SSH session"},
		{name: "nothing known", f: Facts{EUID: me, ConsoleUID: -1}, has: "cannot tell", hint: "Terminal"},
		{name: "unexpected session name", f: Facts{EUID: me, ConsoleUID: me, Manager: "StandardIO"}, ok: true, display: "console user uid 501"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := judge(c.f)
			if v.OK != c.ok || v.Display != c.display {
				t.Fatalf("judge(%+v) = ok %v, display %q (%q); want %v, %q", c.f, v.OK, v.Display, v.Reason, c.ok, c.display)
			}
			if v.OK != (v.Reason == "") || v.OK != (v.Hint == "") {
				t.Errorf("ok %v with reason %q and hint %q: a refusal needs both, an approval neither", v.OK, v.Reason, v.Hint)
			}
			said := v.Reason + "\n" + strings.Join(v.Notes, "\n")
			if !strings.Contains(said, c.has) {
				t.Errorf("reason and notes %q do not mention %q", said, c.has)
			}
			if !strings.Contains(v.Hint, c.hint) {
				t.Errorf("hint %q does not mention %q", v.Hint, c.hint)
			}
		})
	}
}
