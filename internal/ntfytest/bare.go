package ntfytest

import (
	"os"
	"path/filepath"
)

// Password is the password of every account ntfy's CLI makes for a
// server of this package: a person's phone signs in with it.
const Password = "not-used-here"

// NewBare starts a server with no accounts and no tokens, for a test that
// makes them itself, as an operator would (a doc's ntfy lines, run with
// CLIEnv). Its Topic, ReplyTopic and tokens are empty. It stops with the
// test.
func NewBare(t TB) *Server {
	t.Helper()
	s := newServer(t, nil)
	// The server makes its auth file when it first starts.
	s.Start()
	return s.handedOver()
}

// Bin is the ntfy program s runs.
func (s *Server) Bin() string { return s.bin }

// CLIEnv is the environment, beyond the process's own, in which ntfy's
// CLI works on s's accounts: `ntfy user add` there takes Password. A token
// added while the server runs can be refused for a while: Stop and Start
// it after.
func (s *Server) CLIEnv() []string {
	return append(os.Environ(), "NTFY_AUTH_FILE="+filepath.Join(s.dir, "auth.db"), "NTFY_PASSWORD="+Password)
}
