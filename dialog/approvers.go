package dialog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxApprovers bounds the people one request asks: each gets a message of
// their own, and every vote a follow-up to each of them.
const MaxApprovers = 16

// Vote is one person's answer to a request that several people are asked
// (Request.Approvers): who, whether they approved (and for how long, with
// the Approve-for button), and when, by the server's clock that took it.
type Vote struct {
	By       string        `json:"by"`
	Approved bool          `json:"approved"`
	For      time.Duration `json:"for,omitempty"`
	At       time.Time     `json:"at"`
	// Removed says By was removed from the setup after the request was
	// asked (remote approver remove): their vote, told before, counts
	// for nothing, and none of theirs will.
	Removed bool `json:"removed,omitempty"`
}

// Voted says whether the request is decided by votes, and how: approved
// once approvals different people approved, denied as soon as one of them
// denied. Votes are taken in order; a person's second vote counts for
// nothing.
func Voted(votes []Vote, approvals int) (decided, approved bool) {
	n := 0
	seen := map[string]bool{}
	for _, v := range votes {
		if seen[v.By] {
			continue
		}
		seen[v.By] = true
		if !v.Approved {
			return true, false
		}
		if n++; n >= approvals {
			return true, true
		}
	}
	return false, false
}

// Progress says where a vote stands: "1 of 2".
func Progress(votes []Vote, approvals int) string {
	n := 0
	for _, v := range votes {
		if v.Approved {
			n++
		}
	}
	return strconv.Itoa(n) + " of " + strconv.Itoa(approvals)
}

// Names joins names as a person reads them: "Alice", "Alice and Bob",
// "Alice, Bob and Carol".
func Names(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// CheckApproversGiven refuses what a front end's --approvers was given
// where it names nobody: an empty value, or an empty or blank name in it
// ("alice,"). Leaving --approvers out asks everyone set up; an empty
// value, which is what an empty variable in a script gives, must not
// widen the request to them. The error is an *InvalidError.
func CheckApproversGiven(names []string) error {
	if len(names) == 0 {
		return &InvalidError{"--approvers", "is empty, which names nobody: give NAME,..., or leave --approvers out to ask everyone set up"}
	}
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return &InvalidError{"--approvers", fmt.Sprintf("name %d of %d is empty: give NAME,... without an empty one, or leave --approvers out to ask everyone set up", i+1, len(names))}
		}
	}
	return nil
}

// validateApprovers reports what is wrong with r's approvers: any on a
// choice or an input, which keep one person; a name given twice; more
// than MaxApprovers; or approvals below 1 or above the approvers named.
// The names themselves are the setup's (remote.CheckName).
func (r Request) validateApprovers() error {
	if len(r.Approvers) == 0 {
		if r.Approvals > 1 {
			return &InvalidError{"--approvals", fmt.Sprintf("%d approvals need as many approvers; no approvers are named", r.Approvals)}
		}
		return nil
	}
	if r.Kind != Confirm {
		return &InvalidError{"--approvers", "belongs to a yes/no question: a choice or a text is one person's answer"}
	}
	if len(r.Approvers) > MaxApprovers {
		return &InvalidError{"--approvers", fmt.Sprintf("names %d people; the limit is %d", len(r.Approvers), MaxApprovers)}
	}
	seen := map[string]bool{}
	for _, a := range r.Approvers {
		if a == "" {
			return &InvalidError{"--approvers", "holds an empty name"}
		}
		if seen[strings.ToLower(a)] {
			return &InvalidError{"--approvers", fmt.Sprintf("names %q twice", a)}
		}
		seen[strings.ToLower(a)] = true
	}
	if r.Approvals < 1 || r.Approvals > len(r.Approvers) {
		return &InvalidError{"--approvals", fmt.Sprintf("%d is outside 1 to %d, the number of approvers named", r.Approvals, len(r.Approvers))}
	}
	return nil
}
