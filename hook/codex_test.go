package hook

import (
	"testing"
	"time"
)

// The ask-confirm hooks of a Codex configuration, inline in config.toml
// and in hooks.json, and whether Codex will run them: trusted once a
// trusted_hash is recorded under FILE:EVENT:GROUP:HANDLER in config.toml,
// not when only another hook is, and never when turned off.
func TestCodexConfig(t *testing.T) {
	const config = `
model = "gpt-5-codex"

[[hooks.PermissionRequest]]
matcher = "Bash"
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "/usr/local/bin/notify-me"
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "ask-confirm hook codex --wait 5m"
timeout = 360

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/ask-confirm hook --wait 4m codex"
timeoutSec = 30

[hooks.state."/home/dana/.codex/config.toml:permission_request:0:1"]
trusted_hash = "sha256:0f3c"

[hooks.state."/home/dana/.codex/config.toml:permission_request:0:0"]
trusted_hash = "sha256:aa11"

[hooks.state."/home/dana/.codex/hooks.json:permission_request:0:0"]
trusted_hash = "sha256:bb22"
enabled = false

[hooks.state."/home/dana/.codex/config.toml:pre_tool_use:7:0"]
enabled = "no"
`
	const hooksJSON = `{"hooks": {"PermissionRequest": [{"matcher": ".*", "hooks": [{"type": "command", "command": "ask-confirm hook codex"}]}]}}`
	got, err := CodexConfig("/home/dana/.codex/config.toml", []byte(config), "/home/dana/.codex/hooks.json", []byte(hooksJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := []CodexHook{
		{File: "/home/dana/.codex/config.toml", Key: "/home/dana/.codex/config.toml:permission_request:0:1", Event: EventPermissionRequest,
			Command: "ask-confirm hook codex --wait 5m", Timeout: 360 * time.Second, Trusted: true},
		{File: "/home/dana/.codex/config.toml", Key: "/home/dana/.codex/config.toml:pre_tool_use:0:0", Event: EventPreToolUse,
			Command: "/usr/local/bin/ask-confirm hook --wait 4m codex", Timeout: 30 * time.Second},
		{File: "/home/dana/.codex/hooks.json", Key: "/home/dana/.codex/hooks.json:permission_request:0:0", Event: EventPermissionRequest,
			Command: "ask-confirm hook codex", Timeout: 600 * time.Second, Trusted: true, Disabled: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d hooks: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("hook %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}

	off, err := CodexConfig("c.toml", []byte(config+"\n[features]\nhooks = false\n"), "", nil)
	if err != nil || len(off) != 2 || !off[0].Disabled || !off[1].Disabled {
		t.Fatalf("with hooks turned off: %+v %v", off, err)
	}
	if _, err := CodexConfig("c.toml", []byte("[[hooks.PermissionRequest]\n"), "", nil); err == nil {
		t.Fatal("a broken config.toml read without an error")
	}
	if none, err := CodexConfig("c.toml", nil, "", nil); err != nil || len(none) != 0 {
		t.Fatalf("no configuration: %+v %v", none, err)
	}
}
