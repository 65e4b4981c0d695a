package ntfytest

import (
	"fmt"
	"net/http"
	"strings"
)

// Person is one of a server's named approvers: the topic their phone
// reads, with an account of their own that reads it and nothing else.
type Person struct {
	Name, Topic, Token string
}

// NewWithPeople is New for a server with several people, each asked on
// a phone of their own: the first reads Topic with the phone's account;
// each other has an account of their own ("phone-NAME") that reads
// "requests-NAME" only, which the asking account writes and does not
// read.
func NewWithPeople(t TB, names ...string) (*Server, []Person) {
	t.Helper()
	var grants [][]string
	for _, n := range names[1:] {
		topic := "requests-" + strings.ToLower(n)
		grants = append(grants, []string{"asker", topic, "wo"})
	}
	s := newWith(t, nil, grants...)
	people := []Person{{Name: names[0], Topic: s.Topic, Token: s.PhoneToken}}
	for _, n := range names[1:] {
		user, topic := "phone-"+strings.ToLower(n), "requests-"+strings.ToLower(n)
		s.ntfy("user", "add", user)
		s.ntfy("access", user, topic, "ro")
		people = append(people, Person{Name: n, Topic: topic, Token: s.token(user)})
	}
	// A token added while the server runs is refused for a while.
	s.Stop()
	s.Start()
	return s.handedOver(), people
}

// NewPhoneOf is NewPhone for p's phone: it reads p's topic with p's
// account.
func NewPhoneOf(t TB, s *Server, p Person) *Phone {
	t.Helper()
	return newPhone(t, s, p.Topic, p.Token, "")
}

// Publish sends text to the request topic with the asking token, as the
// asking side would: a reference message, or a marker after which nothing
// more comes.
func (s *Server) Publish(text string) error {
	req, err := http.NewRequest(http.MethodPost, s.URL+"/"+s.Topic, strings.NewReader(text))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.AskerToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("publishing to %s: %s", s.Topic, resp.Status)
	}
	return nil
}
