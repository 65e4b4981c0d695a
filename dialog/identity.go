package dialog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"strconv"
	"strings"
)

// identityFormat versions the encoding below. Changing what goes into a hash
// must change this string, so old records can never match new requests.
const identityFormat = "ask-confirm identity v1"

// kind names a confirmation in the hash; other kinds are named by their
// own Kind, so a choice with the same texts is a different request.
const kind = "question"

// ContentHash returns the hex SHA-256 of everything the person sees and the
// scope it was asked in. Fields are length-prefixed, so moving a separator
// between fields always changes the hash.
func (r Request) ContentHash() string {
	defaultButton := "cancel"
	if r.DefaultApprove {
		defaultButton = "approve"
	}
	k := kind
	if r.Kind != Confirm {
		k = r.Kind
	}
	fields := []string{identityFormat, "content", k, r.Title, r.Message, r.OKLabel, r.CancelLabel,
		r.Icon, defaultButton, r.Scope}
	// Each addition only where it is set: the hashes of requests made
	// before it stay as they were.
	if r.Via != "" {
		fields = append(fields, "via", r.Via)
	}
	if r.Kind != Confirm {
		// Counted, so that no option can pass for another part.
		multiple := "one"
		if r.Multiple {
			multiple = "several"
		}
		fields = append(fields, "options", strconv.Itoa(len(r.Options)))
		for _, o := range r.Options {
			fields = append(fields, o.Label, o.Description)
		}
		// The options picked in advance, in the options' order: the same
		// dialog whatever order --default named them in.
		selected := slices.Clone(r.Selected)
		slices.SortStableFunc(selected, func(a, b string) int {
			return slices.Index(r.Labels(), a) - slices.Index(r.Labels(), b)
		})
		fields = append(fields, multiple, "selected", strconv.Itoa(len(selected)))
		fields = append(fields, selected...)
		fields = append(fields, "text", r.Text)
		if r.Other {
			fields = append(fields, "other")
		}
	}
	if r.ApproveFor != 0 {
		fields = append(fields, "approve-for", strconv.FormatInt(int64(r.ApproveFor), 10))
	}
	return sum(append(fields, r.approverFields()...)...)
}

// Identity returns the hex name under which the request's answer is kept: the
// hash of its key when the caller gave one, and its content hash otherwise.
// Two requests with the same key share one identity whatever their content;
// that is what lets a newer request supersede an older one.
func (r Request) Identity() string {
	switch {
	case r.Key != "" && r.Via != "":
		return sum(append([]string{identityFormat, "key", r.Key, "via", r.Via}, r.approverFields()...)...)
	case r.Key != "":
		return sum(append([]string{identityFormat, "key", r.Key}, r.approverFields()...)...)
	}
	return r.ContentHash()
}

// approverFields are what r's approvers add to its hashes: who, in any
// order they were named, and how many must approve. None for a request of
// one person, whose hashes stay as they were before named approvers.
func (r Request) approverFields() []string {
	if len(r.Approvers) == 0 {
		return nil
	}
	names := make([]string, len(r.Approvers))
	for i, a := range r.Approvers {
		names[i] = strings.ToLower(a)
	}
	slices.Sort(names)
	return append(append([]string{"approvers", strconv.Itoa(len(names))}, names...), "approvals", strconv.Itoa(r.Approvals))
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
