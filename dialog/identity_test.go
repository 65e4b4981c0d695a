package dialog

import (
	"regexp"
	"testing"
)

// goldenContentHash is validRequest().ContentHash(), computed once (and
// checked against an independent implementation of the encoding: SHA-256
// over each field as an 8-byte big-endian length followed by its bytes). If this
// test fails, the encoding of the identity changed: records written by
// released versions would silently stop matching (or, worse, start matching
// other requests). Changing this constant therefore requires bumping
// identityFormat in identity.go at the same time.
const goldenContentHash = "7ffd34b32c8ec39407c203ed4d824817e39e39f912e30d7cc6ee0bab266db557"

// goldenKeyIdentity is the Identity of validRequest() with Key "deploy-prod",
// pinned for the same reason as goldenContentHash.
const goldenKeyIdentity = "1a08521bb0337b5710086a9a3410f8fa33a5efee527aa545727323c95032512d"

var hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestContentHashGolden(t *testing.T) {
	if got := validRequest().ContentHash(); got != goldenContentHash {
		t.Errorf("ContentHash() = %s, want %s; changing the encoding requires bumping identityFormat", got, goldenContentHash)
	}
	r := validRequest()
	r.Key = "deploy-prod"
	if got := r.Identity(); got != goldenKeyIdentity {
		t.Errorf("Identity() with key = %s, want %s; changing the encoding requires bumping identityFormat", got, goldenKeyIdentity)
	}
}

func TestHashShape(t *testing.T) {
	keyed := validRequest()
	keyed.Key = "k"
	for _, r := range []Request{{}, validRequest(), keyed} {
		for name, h := range map[string]string{"ContentHash": r.ContentHash(), "Identity": r.Identity()} {
			if !hexSHA256.MatchString(h) {
				t.Errorf("%s() of %+v = %q, want 64 lowercase hex digits", name, r, h)
			}
		}
	}
}

// stringFields are the texts of a request in the order ContentHash encodes
// them. Icon and DefaultApprove sit between CancelLabel and Scope.
var stringFields = []struct {
	name string
	set  func(r *Request, v string)
}{
	{"Title", func(r *Request, v string) { r.Title = v }},
	{"Message", func(r *Request, v string) { r.Message = v }},
	{"OKLabel", func(r *Request, v string) { r.OKLabel = v }},
	{"CancelLabel", func(r *Request, v string) { r.CancelLabel = v }},
	{"Icon", func(r *Request, v string) { r.Icon = v }},
	{"Scope", func(r *Request, v string) { r.Scope = v }},
}

// Moving text across the boundary between two adjacent fields must change the
// hash; with plain concatenation "a:b"+"c" and "a"+"b:c" would collide.
func TestContentHashLengthPrefixed(t *testing.T) {
	splits := []struct{ left1, right1, left2, right2 string }{
		{"a:b", "c", "a", "b:c"},
		{"ab", "", "a", "b"},
		{"", "ab", "a", "b"},
		{"a", "", "", "a"},
		// Text that looks like a length prefix must not help either.
		{"a\x00\x00\x00\x00\x00\x00\x00\x01b", "", "a", "b"},
	}
	for i := 0; i+1 < len(stringFields); i++ {
		left, right := stringFields[i], stringFields[i+1]
		for _, s := range splits {
			var a, b Request
			left.set(&a, s.left1)
			right.set(&a, s.right1)
			left.set(&b, s.left2)
			right.set(&b, s.right2)
			if a.ContentHash() == b.ContentHash() {
				t.Errorf("%s=%q %s=%q and %s=%q %s=%q have the same hash",
					left.name, s.left1, right.name, s.right1, left.name, s.left2, right.name, s.right2)
			}
		}
	}
	// The same value in different fields is a different request.
	for i := range stringFields {
		for j := range stringFields {
			if i == j {
				continue
			}
			var a, b Request
			stringFields[i].set(&a, "same")
			stringFields[j].set(&b, "same")
			if a.ContentHash() == b.ContentHash() {
				t.Errorf("%q in %s and in %s give the same hash", "same", stringFields[i].name, stringFields[j].name)
			}
		}
	}
}

func TestContentHashCoversEveryField(t *testing.T) {
	base := validRequest()
	tests := []struct {
		name string
		edit func(r *Request)
	}{
		{"Title", func(r *Request) { r.Title = "Deploy!" }},
		{"Title emptied", func(r *Request) { r.Title = "" }},
		{"Message", func(r *Request) { r.Message = "Ship v3 to prod?" }},
		{"Message trailing newline", func(r *Request) { r.Message += "\n" }},
		{"OKLabel", func(r *Request) { r.OKLabel = "Ship it" }},
		{"CancelLabel", func(r *Request) { r.CancelLabel = "Abort" }},
		{"labels swapped", func(r *Request) { r.OKLabel, r.CancelLabel = r.CancelLabel, r.OKLabel }},
		{"Icon", func(r *Request) { r.Icon = "warning" }},
		{"DefaultApprove", func(r *Request) { r.DefaultApprove = true }},
		{"Scope", func(r *Request) { r.Scope = "/home/user/other-repo" }},
		{"Scope emptied", func(r *Request) { r.Scope = "" }},
	}
	seen := map[string]string{base.ContentHash(): "base"}
	for _, tt := range tests {
		r := base
		tt.edit(&r)
		h := r.ContentHash()
		if other, dup := seen[h]; dup {
			t.Errorf("changing %s gives the same ContentHash as %s", tt.name, other)
		}
		seen[h] = tt.name
		// Without a key the identity follows the content.
		if r.Identity() != h {
			t.Errorf("%s: Identity() = %s, want ContentHash() %s", tt.name, r.Identity(), h)
		}
	}
}

func TestContentHashIsDeterministic(t *testing.T) {
	a, b := validRequest(), validRequest()
	if a.ContentHash() != b.ContentHash() || a.ContentHash() != a.ContentHash() {
		t.Errorf("equal requests hash differently")
	}
}

func TestIdentityWithoutKeyIsContentHash(t *testing.T) {
	for _, r := range []Request{{}, validRequest(), {Message: "x", Scope: "/"}} {
		if r.Identity() != r.ContentHash() {
			t.Errorf("Identity() = %s, ContentHash() = %s for %+v; want equal", r.Identity(), r.ContentHash(), r)
		}
	}
}

func TestKeyIsTheIdentity(t *testing.T) {
	a := validRequest()
	a.Key = "deploy-prod"
	b := a
	b.Title, b.Message, b.OKLabel, b.CancelLabel = "Other", "Something else entirely", "Yes", "No"
	b.Icon, b.DefaultApprove, b.Scope = "error", true, "/elsewhere"

	if a.Identity() != b.Identity() {
		t.Errorf("same key, different content: identities %s and %s differ", a.Identity(), b.Identity())
	}
	// The content hash is what tells a superseding request from a joining one.
	if a.ContentHash() == b.ContentHash() {
		t.Errorf("different content under one key has the same ContentHash")
	}
	if a.Identity() == a.ContentHash() {
		t.Errorf("with a key, Identity() equals ContentHash()")
	}
	// The key is not part of what the person sees.
	unkeyed := a
	unkeyed.Key = ""
	if a.ContentHash() != unkeyed.ContentHash() {
		t.Errorf("the key changed ContentHash()")
	}
	if a.Identity() == unkeyed.Identity() {
		t.Errorf("setting a key did not change Identity()")
	}

	c := a
	c.Key = "deploy-staging"
	if c.Identity() == a.Identity() {
		t.Errorf("keys %q and %q share an identity", a.Key, c.Key)
	}
}

// A key identity and a content identity live in separate domains: no request
// text can be chosen to land on another request's key identity.
func TestKeyAndContentDomainsAreSeparate(t *testing.T) {
	keyed := Request{Key: "x"}
	for _, r := range []Request{{Title: "x"}, {Message: "x"}, {Scope: "x"}, {}} {
		if r.Identity() == keyed.Identity() {
			t.Errorf("content %+v has the identity of key %q", r, keyed.Key)
		}
	}
}

func BenchmarkIdentity(b *testing.B) {
	r := validRequest()
	r.Message = "Run the migration 2024_11_22_add_index on the production database?\n\nThis locks the users table for about a minute."
	b.ReportAllocs()
	for b.Loop() {
		if r.Identity() == "" {
			b.Fatal("empty identity")
		}
	}
}

func BenchmarkIdentityKeyed(b *testing.B) {
	r := validRequest()
	r.Key = "deploy-prod"
	b.ReportAllocs()
	for b.Loop() {
		if r.Identity() == "" {
			b.Fatal("empty identity")
		}
	}
}
