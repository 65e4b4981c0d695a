package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/hook"
)

// codexHookCheck is one ask-confirm hook in the person's Codex
// configuration, and what stands between it and being run.
type codexHookCheck struct {
	Key     string `json:"key"`
	Trusted bool   `json:"trusted"`
	// Problem is what keeps Codex from running it well, or empty.
	Problem string `json:"problem,omitempty"`
}

// checkCodexHooks reads the person's Codex configuration ($CODEX_HOME, or
// ~/.codex): its config.toml and hooks.json. A configuration that names
// no ask-confirm hook gives nothing; one that cannot be read, a line
// saying so.
func (a *app) checkCodexHooks() ([]codexHookCheck, error) {
	home := a.getenv("CODEX_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		home = filepath.Join(h, ".codex")
	}
	// Codex names the files of its trust keys by their absolute path.
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	configPath, hooksPath := filepath.Join(home, "config.toml"), filepath.Join(home, "hooks.json")
	config, err := readIfPresent(configPath)
	if err != nil {
		return nil, err
	}
	hooksJSON, err := readIfPresent(hooksPath)
	if err != nil {
		return nil, err
	}
	hooks, err := hook.CodexConfig(configPath, config, hooksPath, hooksJSON)
	if err != nil {
		return nil, err
	}
	var checks []codexHookCheck
	for _, h := range hooks {
		c := codexHookCheck{Key: h.Key, Trusted: h.Trusted}
		wait := hookWait(h.Command)
		switch {
		case h.Disabled:
			c.Problem = msgDoctorCodexDisabled
		case !h.Trusted:
			c.Problem = msgDoctorCodexUntrusted
		case h.Timeout <= wait:
			c.Problem = fmt.Sprintf(msgDoctorCodexTimeout, int(h.Timeout.Seconds()), dialog.ShortDuration(wait))
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// readIfPresent reads path, or returns nil for a file that is not there.
func readIfPresent(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// hookWait is the --wait of a hook command line, as ask-confirm hook
// would read it, or the default.
func hookWait(command string) time.Duration {
	s := hook.DefaultSettings()
	f := pflag.NewFlagSet("hook", pflag.ContinueOnError)
	f.ParseErrorsAllowlist.UnknownFlags = true
	f.SetOutput(io.Discard)
	f.DurationVar(&s.Wait, "wait", s.Wait, "")
	_ = f.Parse(strings.Fields(command))
	return s.Wait
}
