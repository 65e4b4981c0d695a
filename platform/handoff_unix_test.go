//go:build unix

package platform

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// handoffTestEnv names the handed-over pipe in these tests.
const handoffTestEnv = "ASK_CONFIRM_TEST_HANDOFF_FD"

// ReadHandoff reads the pipe the variable names, once, and unsets it; a
// descriptor that is not a pipe is refused unread.
func TestReadHandoff(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(p[1], []byte("the setup")); err != nil {
		t.Fatal(err)
	}
	unix.Close(p[1])
	t.Setenv(handoffTestEnv, strconv.Itoa(p[0]))
	data, ok, err := ReadHandoff(handoffTestEnv)
	if string(data) != "the setup" || !ok || err != nil {
		t.Fatalf("ReadHandoff: %q, %v, %v", data, ok, err)
	}
	if _, set := os.LookupEnv(handoffTestEnv); set {
		t.Fatal("the variable is still set")
	}
	if _, ok, _ := ReadHandoff(handoffTestEnv); ok {
		t.Fatal("ReadHandoff again: ok")
	}

	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv(handoffTestEnv, strconv.Itoa(int(f.Fd())))
	if _, ok, err := ReadHandoff(handoffTestEnv); !ok || err == nil {
		t.Fatalf("ReadHandoff of /dev/null: %v, %v; want it refused", ok, err)
	}
}

// TestExecHandoffHelper is not a test: it is the program that Exec
// replaces in TestExecHandsOver.
func TestExecHandoffHelper(t *testing.T) {
	if os.Getenv("ASK_CONFIRM_TEST_EXEC_HELPER") != "1" {
		t.Skip("runs only as the child of TestExecHandsOver")
	}
	os.Unsetenv("ASK_CONFIRM_TEST_EXEC_HELPER")
	_, err := Exec("/bin/sh", []string{"sh", "-c", `eval "cat <&$` + handoffTestEnv + `"; echo; env`}, Handoff{Env: handoffTestEnv, Data: []byte("tk_handed_over")})
	t.Fatalf("Exec returned: %v", err)
}

// The program Exec runs reads what was handed over on the pipe the
// variable names, and finds it nowhere in its environment.
func TestExecHandsOver(t *testing.T) {
	c := exec.Command(os.Args[0], "-test.run=^TestExecHandoffHelper$")
	c.Env = append(os.Environ(), "ASK_CONFIRM_TEST_EXEC_HELPER=1")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	read, env, _ := strings.Cut(string(out), "\n")
	if read != "tk_handed_over" || !strings.Contains(env, handoffTestEnv+"=") || strings.Contains(env, "tk_handed_over") {
		t.Fatalf("the program read %q; its environment:\n%s", read, env)
	}
}
