package hook

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// CodexHook is one ask-confirm hook a Codex configuration declares, and
// whether Codex will run it.
type CodexHook struct {
	// File is the file that declares it, and Key the name Codex records
	// its trust under: FILE:EVENT:GROUP:HANDLER.
	File, Key string
	Event     string
	Command   string
	// Timeout is Codex's timeout for it (600 s where none is set).
	Timeout time.Duration
	// Trusted is true when the person approved it (a trusted_hash is
	// recorded under Key). Codex compares that hash with the hook as it
	// is now, so one changed since still needs approving again: that
	// cannot be told without Codex's own hashing, which changes between
	// its versions.
	Trusted bool
	// Disabled is true when the person turned it off (enabled = false),
	// or turned hooks off altogether ([features] hooks = false).
	Disabled bool
}

// codexEventLabels are the event labels of Codex's trust keys.
var codexEventLabels = map[string]string{EventPermissionRequest: "permission_request", EventPreToolUse: "pre_tool_use"}

// codexDefaultTimeout is Codex's timeout of a hook that sets none.
const codexDefaultTimeout = 600 * time.Second

// codexHooks is the part of a Codex configuration this reads: the hooks
// by event, and the trust state by key.
type codexHooks struct {
	PermissionRequest []codexGroup          `toml:"PermissionRequest" json:"PermissionRequest"`
	PreToolUse        []codexGroup          `toml:"PreToolUse" json:"PreToolUse"`
	State             map[string]codexState `toml:"state" json:"state"`
}

type codexGroup struct {
	Matcher string         `toml:"matcher" json:"matcher"`
	Hooks   []codexHandler `toml:"hooks" json:"hooks"`
}

type codexHandler struct {
	Type    string `toml:"type" json:"type"`
	Command string `toml:"command" json:"command"`
	Timeout *int64 `toml:"timeout" json:"timeout"`
	// TimeoutSec is the older name Codex still accepts for timeout.
	TimeoutSec *int64 `toml:"timeoutSec" json:"timeoutSec"`
}

// codexState is one entry of [hooks.state], read loosely: Codex skips an
// entry it cannot read, and so does this.
type codexState = map[string]any

// CodexConfig reads Codex's user configuration (config.toml, at
// configPath) and, where hooksPath names one, its hooks.json, and returns
// the ask-confirm hooks they declare. Trust is read from config.toml's
// [hooks.state] only, as Codex does for the user's own layer. Either file
// may be nil (absent).
func CodexConfig(configPath string, config []byte, hooksPath string, hooksJSON []byte) ([]CodexHook, error) {
	var cfg struct {
		Hooks    codexHooks `toml:"hooks"`
		Features struct {
			Hooks *bool `toml:"hooks"`
		} `toml:"features"`
	}
	if config != nil {
		if err := toml.Unmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("reading %s: %w", configPath, err)
		}
	}
	off := cfg.Features.Hooks != nil && !*cfg.Features.Hooks
	hooks := cfg.Hooks.declared(configPath, cfg.Hooks.State, off)
	if hooksJSON != nil {
		var file struct {
			Hooks codexHooks `json:"hooks"`
		}
		if err := json.Unmarshal(hooksJSON, &file); err != nil {
			return nil, fmt.Errorf("reading %s: %w", hooksPath, err)
		}
		hooks = append(hooks, file.Hooks.declared(hooksPath, cfg.Hooks.State, off)...)
	}
	return hooks, nil
}

// declared returns the ask-confirm hooks of h, declared in file, with
// their trust as state records it.
func (h codexHooks) declared(file string, state map[string]codexState, off bool) []CodexHook {
	var found []CodexHook
	for _, ev := range []struct {
		name   string
		groups []codexGroup
	}{{EventPermissionRequest, h.PermissionRequest}, {EventPreToolUse, h.PreToolUse}} {
		for gi, g := range ev.groups {
			for hi, hd := range g.Hooks {
				if !isOurCodexHook(hd) {
					continue
				}
				key := fmt.Sprintf("%s:%s:%d:%d", file, codexEventLabels[ev.name], gi, hi)
				st := state[key]
				timeout := codexDefaultTimeout
				if t := cmp.Or(hd.Timeout, hd.TimeoutSec); t != nil {
					// Clamped: a timeout of centuries is as good as none.
					timeout = time.Duration(min(max(*t, 1), 1<<30)) * time.Second
				}
				hash, _ := st["trusted_hash"].(string)
				enabled, isBool := st["enabled"].(bool)
				found = append(found, CodexHook{
					File: file, Key: key, Event: ev.name, Command: hd.Command, Timeout: timeout,
					Trusted:  hash != "",
					Disabled: off || (isBool && !enabled),
				})
			}
		}
	}
	return found
}

// isOurCodexHook reports whether hd runs ask-confirm hook codex: a
// command whose words include ask-confirm (or a path ending in it), hook
// and codex, whatever flags stand between.
func isOurCodexHook(hd codexHandler) bool {
	if hd.Type != "" && hd.Type != "command" {
		return false
	}
	words := strings.Fields(hd.Command)
	i := slices.IndexFunc(words, func(w string) bool { return w == "ask-confirm" || strings.HasSuffix(w, "/ask-confirm") })
	return i >= 0 && slices.Contains(words[i+1:], "hook") && slices.Contains(words[i+1:], "codex")
}
