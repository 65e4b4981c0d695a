package remote

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestConfigCheck(t *testing.T) {
	good := Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker", AnswerToken: "tk_answer"}
	if err := good.Check(); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"plain http beyond loopback", func(c *Config) { c.Server = "http://ntfy.example.org" }, "https"},
		{"not a URL", func(c *Config) { c.Server = "ntfy.example.org" }, "not an http or https URL"},
		{"another scheme", func(c *Config) { c.Server = "ftp://ntfy.example.org" }, "not an http or https URL"},
		{"a query", func(c *Config) { c.Server = "https://ntfy.example.org/?x=1" }, "not an http or https URL"},
		{"a user and password", func(c *Config) { c.Server = "https://alice:s3cret@ntfy.example.org" }, "user name or password"},
		{"a user alone", func(c *Config) { c.Server = "https://alice@ntfy.example.org" }, "user name or password"},
		{"localhost by name", func(c *Config) { c.Server = "http://localhost:8080" }, "not a name"},
		{"a name that looks local", func(c *Config) { c.Server = "http://127.0.0.1.example.org" }, "not a name"},
		{"a topic with a slash", func(c *Config) { c.Topic = "a/b" }, "topic"},
		{"an empty reply topic", func(c *Config) { c.ReplyTopic = "" }, "reply topic"},
		{"a topic of 65 letters", func(c *Config) { c.Topic = strings.Repeat("a", 65) }, "topic"},
		{"one topic both ways", func(c *Config) { c.ReplyTopic = c.Topic }, "must differ"},
		{"no answer token", func(c *Config) { c.AnswerToken = "" }, "both tokens"},
		{"one token both ways", func(c *Config) { c.AnswerToken = c.Token }, "must not be the asking side's"},
	} {
		c := good
		tc.change(&c)
		err := c.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
	for _, server := range []string{"http://127.0.0.1:8080", "http://127.0.0.2", "http://[::1]:80", "https://localhost"} {
		c := good
		c.Server = server
		if err := c.Check(); err != nil {
			t.Errorf("%s on loopback: %v", server, err)
		}
	}
	c := good
	c.Server = "http://10.0.0.2"
	if err := c.Check(); !errors.Is(err, ErrInsecure) {
		t.Errorf("http on the network: %v, want ErrInsecure", err)
	}
}

// A fleet's secret is 256 random bits, never the same twice, and a setup
// whose secret is shorter, or not hex, is refused without quoting it.
func TestFleetSecret(t *testing.T) {
	a, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSecret()
	if len(a) != 2*SecretBytes || a == b {
		t.Fatalf("secrets %q and %q: want two different ones of %d hex digits", a, b, 2*SecretBytes)
	}
	good := Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker", AnswerToken: "tk_answer", Secret: a}
	if err := good.Check(); err != nil || len(good.SecretKey()) != SecretBytes {
		t.Fatalf("a setup with a secret: %v", err)
	}
	for _, bad := range []string{a[:62], "zz" + a[2:]} {
		c := good
		c.Secret = bad
		err := c.Check()
		if err == nil || strings.Contains(err.Error(), bad) {
			t.Errorf("secret %q: %v, want an error that does not quote it", bad, err)
		}
	}
}

// ASK_CONFIRM_REMOTE, set to what remote export prints, is the setup,
// in place of the file; one that does not parse is an error that quotes
// none of it.
func TestLoadFromEnvironment(t *testing.T) {
	secret, _ := NewSecret()
	s := Settings{Config: Config{Server: "https://ntfy.example.org", Topic: "ask-requests", ReplyTopic: "ask-replies", Token: "tk_asker", AnswerToken: "tk_answer", Secret: secret}, Mode: ModeOnly}
	path := t.TempDir() + "/remote.json"
	if err := Save(path, Settings{Config: Config{Server: "https://other.example.org", Topic: "a", ReplyTopic: "b", Token: "tk_1", AnswerToken: "tk_2"}, Mode: ModeAlso}); err != nil {
		t.Fatal(err)
	}
	exported, err := Export(s)
	if err != nil || strings.Contains(exported, "\n") {
		t.Fatalf("export %q, %v: want one line", exported, err)
	}
	t.Setenv(SetupEnv, exported)
	got, err := Load(path)
	if err != nil || !reflect.DeepEqual(got, s) || !FromEnv() {
		t.Fatalf("Load with %s set: %+v, %v; want %+v", SetupEnv, got, err, s)
	}
	t.Setenv(SetupEnv, `{"server":"https://x","token":"tk_leaked_secret"`)
	if _, err := Load(path); err == nil || strings.Contains(err.Error(), "tk_leaked") || !strings.Contains(err.Error(), SetupEnv) {
		t.Fatalf("a broken %s: %v, want an error naming it and quoting none of it", SetupEnv, err)
	}
	t.Setenv(SetupEnv, "")
	if got, err := Load(path); err != nil || got.Server != "https://other.example.org" {
		t.Fatalf("an empty %s: %+v, %v; want the file", SetupEnv, got, err)
	}
}
