package remote

import "testing"

// The first phone's default name is the account's, without a Windows
// domain, else $USER, else $USERNAME, and never one CheckName refuses.
func TestLocalName(t *testing.T) {
	for _, c := range []struct {
		account, user, username, want string
	}{
		{"alice", "bob", "carol", "alice"},
		{`CORP\alice`, "", "", "alice"},
		{"", "bob", "carol", "bob"},
		{"", "", "carol", "carol"},
		{"a,b", "", "carol", "carol"}, // a comma separates --approvers
		{"", " bob", "", ""},
		{"", "", "", ""},
	} {
		env := map[string]string{"USER": c.user, "USERNAME": c.username}
		if got := localName(c.account, func(k string) string { return env[k] }); got != c.want {
			t.Errorf("account %q, USER %q, USERNAME %q: %q, want %q", c.account, c.user, c.username, got, c.want)
		}
	}
}
