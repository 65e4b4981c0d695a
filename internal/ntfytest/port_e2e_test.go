//go:build e2e && linux

package ntfytest

import (
	"net"
	"net/http"
	"testing"
)

// A port another server took between newServer's choice and Start is
// noticed, though that server answers the health check: a server being
// made moves to another port, and answers there itself. (Two tests' ntfy
// servers once met so, and the web app's test talked to the other, which
// serves no web app.)
func TestStartNoticesATakenPort(t *testing.T) {
	s := newServer(t, nil)
	other, err := net.Listen("tcp", s.Addr)
	for tries := 1; err != nil && tries < 5; tries++ {
		// Taken by another test first: another.
		s.choosePort()
		other, err = net.Listen("tcp", s.Addr)
	}
	if err != nil {
		t.Fatal(err)
	}
	taken := s.Addr
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })}
	go srv.Serve(other)
	t.Cleanup(func() { srv.Close() })

	s.Start()
	if s.Addr == taken || !listensOn(s.cmd.Process.Pid, s.Addr) {
		t.Fatalf("the server took %s, the taken port %s, or does not listen there itself", s.Addr, taken)
	}
	if listensOn(s.cmd.Process.Pid, taken) {
		t.Fatal("the server is said to listen on the port another holds")
	}
	s.handedOver()
}
