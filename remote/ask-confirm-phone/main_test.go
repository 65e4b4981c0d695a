package main

import "testing"

// version, as the program's other words are given, and --version ask for
// the version; nothing else does.
func TestAsksVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"version"}, true},
		{[]string{"--version"}, true},
		{[]string{"ask"}, false},
		{[]string{"-version"}, false},
		{[]string{"version", "ask"}, false},
		{nil, false},
	} {
		if got := asksVersion(tc.args); got != tc.want {
			t.Errorf("%q: asksVersion %v, want %v", tc.args, got, tc.want)
		}
	}
}
