package main

import "testing"

// Only the one argument --version, exactly, with no SSH_ASKPASS_PROMPT asks
// for the version: anything OpenSSH runs the program with is a prompt.
func TestAsksVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		hint string
		want bool
	}{
		{[]string{"--version"}, "", true},
		// OpenSSH's prompts, whatever their text.
		{[]string{"--version"}, "confirm", false},
		{[]string{"--version"}, "none", false},
		{[]string{"--version"}, "something new", false},
		// Prompts that only look like it.
		{[]string{"version"}, "", false},
		{[]string{"-version"}, "", false},
		{[]string{"--version "}, "", false},
		{[]string{"--Version"}, "", false},
		{[]string{"--version=true"}, "", false},
		{[]string{"Allow use of key --version?"}, "", false},
		{[]string{"--version", "--version"}, "", false},
		{nil, "", false},
	} {
		getenv := func(name string) string {
			if name == "SSH_ASKPASS_PROMPT" {
				return tc.hint
			}
			return ""
		}
		if got := asksVersion(tc.args, getenv); got != tc.want {
			t.Errorf("args %q, SSH_ASKPASS_PROMPT=%q: asksVersion %v, want %v", tc.args, tc.hint, got, tc.want)
		}
	}
}
