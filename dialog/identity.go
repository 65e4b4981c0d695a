package dialog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// identityFormat versions the encoding below. Changing what goes into a hash
// must change this string, so old records can never match new requests.
const identityFormat = "ask-confirm identity v1"

// kind names the dialog kind in the hash, so a future kind of dialog with the
// same texts is a different request.
const kind = "question"

// ContentHash returns the hex SHA-256 of everything the person sees and the
// scope it was asked in. Fields are length-prefixed, so moving a separator
// between fields always changes the hash.
func (r Request) ContentHash() string {
	defaultButton := "cancel"
	if r.DefaultApprove {
		defaultButton = "approve"
	}
	fields := []string{identityFormat, "content", kind, r.Title, r.Message, r.OKLabel, r.CancelLabel,
		r.Icon, defaultButton, r.Scope}
	if r.Via != "" {
		// Only then: a dialog's hashes stay as they were.
		fields = append(fields, "via", r.Via)
	}
	return sum(fields...)
}

// Identity returns the hex name under which the request's answer is kept: the
// hash of its key when the caller gave one, and its content hash otherwise.
// Two requests with the same key share one identity whatever their content;
// that is what lets a newer request supersede an older one.
func (r Request) Identity() string {
	switch {
	case r.Key != "" && r.Via != "":
		return sum(identityFormat, "key", r.Key, "via", r.Via)
	case r.Key != "":
		return sum(identityFormat, "key", r.Key)
	}
	return r.ContentHash()
}

func sum(fields ...string) string {
	h := sha256.New()
	for _, f := range fields {
		writeField(h, f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, f string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(f)))
	h.Write(n[:])
	h.Write([]byte(f))
}

// shortIdentityLen is how much of an identity people are shown, as with
// git's short hashes; any unique prefix of 4 or more characters names the
// request again.
const shortIdentityLen = 12

// ShortIdentity returns the first shortIdentityLen characters of id, or all
// of it when it is shorter.
func ShortIdentity(id string) string {
	if len(id) > shortIdentityLen {
		return id[:shortIdentityLen]
	}
	return id
}
