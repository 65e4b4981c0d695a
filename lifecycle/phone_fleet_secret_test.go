//go:build unix

package lifecycle

import (
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/remote"
)

// A setup given in ASK_CONFIRM_REMOTE without a fleet secret (exported
// before fleets) still asks the phone, and says that a re-run elsewhere
// asks anew; with a secret, or from remote.json, it says nothing.
func TestPhoneSetupWithoutFleetSecretFromTheEnvironmentWarns(t *testing.T) {
	s := remote.Settings{Config: remote.Config{Server: "http://127.0.0.1:1", Topic: "requests", ReplyTopic: "replies", Token: "tk_asker", AnswerToken: "tk_answer"}, Mode: remote.ModeFallback}
	secret, err := remote.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, secret string
		env, warned  bool
	}{
		{name: "exported before fleets", env: true, warned: true},
		{name: "exported with a secret", secret: secret, env: true},
		{name: "remote.json made before fleets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			s := s
			s.Secret = tc.secret
			if tc.env {
				exported, err := remote.Export(s)
				if err != nil {
					t.Fatal(err)
				}
				t.Setenv(remote.SetupEnv, exported)
			} else if err := remote.Save(te.remoteFile, s); err != nil {
				t.Fatal(err)
			}
			c := testCall("Deploy?")
			c.IfHeadless = IfHeadlessFail
			way, r, warning := te.phoneFor(c, false)
			if way != phoneOnly || r != nil {
				t.Fatalf("phoneFor = %q, %+v; want the phone alone", way, r)
			}
			switch {
			case tc.warned && (warning == nil || !strings.Contains(warning.Error(), "no fleet secret") || !strings.Contains(warning.Error(), "asks anew")):
				t.Fatalf("warning %v, want one saying the setup has no fleet secret and a re-run asks anew", warning)
			case !tc.warned && warning != nil:
				t.Fatalf("warning %v, want none", warning)
			}
		})
	}
}
