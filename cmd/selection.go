package cmd

import (
	"errors"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// selectRecords returns the record named by args[0], or every record with
// all: what cancel and forget act on. find names the one record
// (Engine.Find, or for cancel Engine.FindOpen).
func (a *app) selectRecords(args []string, all bool, find func(string) (lifecycle.Stored, error)) ([]lifecycle.Stored, error) {
	switch {
	case all && len(args) > 0:
		return nil, lifecycle.Usage(errors.New(msgKeyAndAll))
	case all:
		return a.engine.All()
	case len(args) != 1:
		return nil, lifecycle.Usage(errors.New(msgKeyOrAll))
	}
	r, err := find(args[0])
	if err != nil {
		return nil, err
	}
	return []lifecycle.Stored{r}, nil
}
