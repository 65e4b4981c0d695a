package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// MaxHistoryBytes is the size at which the history file is rotated: the
// current file becomes history.jsonl.1, replacing an older one.
const MaxHistoryBytes = 4 << 20

// Event is one line of the audit history. AppendEvent writes it with
// appendEventJSON, which must stay in step with these fields and tags.
type Event struct {
	Time     time.Time `json:"time"`
	Event    string    `json:"event"`
	Identity string    `json:"identity"`
	Title    string    `json:"title,omitempty"`
	// MessageHash is the SHA-256 of the message; the text itself is not
	// kept in the history.
	MessageHash string `json:"message_sha256,omitempty"`
	Outcome     string `json:"outcome,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Attempt     int    `json:"attempt,omitempty"`
	PID         int    `json:"pid"`
	Dir         string `json:"cwd,omitempty"`
	// Channel names how the person was asked when it was not a dialog
	// (Record.Channel), such as "elicitation".
	Channel string `json:"channel,omitempty"`
	// Origin says who asked and where: "deploy.sh in ~/src/app".
	Origin string `json:"origin,omitempty"`
	// Answer is what a person chose (the labels of a choice's options). Free
	// text is never kept here: AnswerHash is its SHA-256.
	Answer     []string `json:"answer,omitempty"`
	AnswerHash string   `json:"answer_sha256,omitempty"`
	// ApprovedFor is how long an approval given with the approve-for
	// button is kept ("1h"), on the event that records it.
	ApprovedFor string `json:"approved_for,omitempty"`
	// Phone says whether the request was asked on the phone as well
	// ("also") or there alone ("only") (Record.Phone).
	Phone string `json:"phone,omitempty"`
	// AnsweredBy names the way of asking that ended the request, on the
	// event that records its end, when it was not the request's own
	// dialog or Channel: "phone".
	AnsweredBy string `json:"answered_by,omitempty"`
	// Approvers and Approvals are the request's (Record.Approvers), on
	// the events of a request of several approvers.
	Approvers []string `json:"approvers,omitempty"`
	Approvals int      `json:"approvals,omitempty"`
	// By is who voted, on a vote event, whose Outcome says approved or
	// denied, and VotedAt when, by the clock that took the vote.
	By      string    `json:"by,omitempty"`
	VotedAt time.Time `json:"voted_at,omitzero"`
	// ApprovedBy and DeniedBy name who decided a request of several
	// approvers, on the event that records its end.
	ApprovedBy []string `json:"approved_by,omitempty"`
	DeniedBy   []string `json:"denied_by,omitempty"`
}

// AppendEvent writes e as one JSON line at the end of the history file at
// path, creating it (0600) and its directory (0700) as needed, restricting
// an existing one to its owner (0600), and rotating it once it passes
// MaxHistoryBytes.
func AppendEvent(path string, e Event) error {
	line, err := appendEventJSON(make([]byte, 0, 512), &e)
	if err != nil {
		return fmt.Errorf("encoding history event: %w", err)
	}
	line = append(line, '\n')
	if err := EnsureDir(filepath.Dir(path)); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Size()+int64(len(line)) > MaxHistoryBytes {
		// Losing the race to rotate is harmless: the loser's rename fails or
		// rotates a file that has just been started.
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening history: %w", err)
	}
	if fi, serr := f.Stat(); serr == nil && openToOthers(fi) {
		// A history made by another program (0666): O_CREATE's mode
		// applies only to a file it creates.
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return fmt.Errorf("restricting %s to its owner: %w", path, err)
		}
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing history: %w", err)
	}
	return nil
}

// ReadEvents returns the events of the history at path, the rotated file's
// first, oldest first. Lines that do not decode (a torn write after a crash)
// are skipped and counted in bad.
func ReadEvents(path string) (events []Event, bad int, err error) {
	for _, p := range []string{path + ".1", path} {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("reading history: %w", err)
		}
		for _, line := range bytes.Split(b, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var e Event
			if json.Unmarshal(line, &e) != nil {
				bad++
				continue
			}
			events = append(events, e)
		}
	}
	return events, bad, nil
}
