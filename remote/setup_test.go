package remote

import (
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// forgetGiven drops the setup TakeEnv or Give kept, once the test ends.
func forgetGiven(t *testing.T) {
	t.Cleanup(func() {
		given.Lock()
		defer given.Unlock()
		given.setup, given.ok, given.err = "", false, nil
	})
}

// TakeEnv moves the setup out of the environment: a program started
// afterwards inherits none of it, while Load, FromEnv and Given still
// read it; and a setup in remote.json is not read in its place.
func TestTakeEnvKeepsTheSetupFromChildren(t *testing.T) {
	forgetGiven(t)
	secret, _ := NewSecret()
	s := Settings{Config: Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker_env", AnswerToken: "tk_answer_env", Secret: secret}, Mode: ModeAlso}
	path := t.TempDir() + "/remote.json"
	if err := Save(path, Settings{Config: Config{Server: "https://other.example.org", Topic: "a", ReplyTopic: "b", Token: "tk_1", AnswerToken: "tk_2"}, Mode: ModeOnly}); err != nil {
		t.Fatal(err)
	}
	exported, _ := Export(s)
	t.Setenv(SetupEnv, exported)
	TakeEnv()
	if v, ok := os.LookupEnv(SetupEnv); ok {
		t.Fatalf("%s is still set after TakeEnv: %q", SetupEnv, v)
	}
	TakeEnv() // again: keeps what it took
	if got, err := Load(path); err != nil || !reflect.DeepEqual(got, s) || !FromEnv() {
		t.Fatalf("Load after TakeEnv: %+v, %v, from the environment %v; want %+v", got, err, FromEnv(), s)
	}
	if got, ok := Given(); !ok || got != exported {
		t.Fatalf("Given: %q, %v", got, ok)
	}
	if h := Handoff(); h.Env == "" || string(h.Data) != exported {
		t.Fatalf("Handoff: %+v", h)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for _, c := range []*exec.Cmd{exec.Command("env"), {Path: "/usr/bin/env", Args: []string{"env"}, Env: Environ()}} {
		out, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{SetupEnv, s.Token, s.AnswerToken, s.Secret} {
			if strings.Contains(string(out), v) {
				t.Fatalf("a program started after TakeEnv has %s in its environment:\n%s", v, out)
			}
		}
	}
}

// A holder's setup, handed over on its stdin, is the one Load reads; a
// holder told to expect one that gets nothing reads no remote.json in its
// place, and says why without quoting the pipe.
func TestGiveIsWhatLoadReads(t *testing.T) {
	forgetGiven(t)
	path := t.TempDir() + "/remote.json"
	file := Settings{Config: Config{Server: "https://other.example.org", Topic: "a", ReplyTopic: "b", Token: "tk_1", AnswerToken: "tk_2"}, Mode: ModeOnly}
	if err := Save(path, file); err != nil {
		t.Fatal(err)
	}
	s := Settings{Config: Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker", AnswerToken: "tk_answer"}, Mode: ModeFallback}
	exported, _ := Export(s)
	Give(strings.NewReader(exported + "\n"))
	if got, err := Load(path); err != nil || !reflect.DeepEqual(got, s) || !FromEnv() {
		t.Fatalf("Load after Give: %+v, %v; want %+v", got, err, s)
	}
	Give(strings.NewReader(""))
	if got, err := Load(path); err == nil || !strings.Contains(err.Error(), SetupEnv) {
		t.Fatalf("Load after an empty Give: %+v, %v; want an error, not the file", got, err)
	}
	if _, ok := Given(); ok {
		t.Fatal("Given after an empty Give: a setup to hand on")
	}
}
