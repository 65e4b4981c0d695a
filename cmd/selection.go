package cmd

import (
	"errors"

	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// selectRecords returns the record named by args[0], or every record with
// all: what cancel and forget act on.
func (a *app) selectRecords(args []string, all bool) ([]lifecycle.Stored, error) {
	switch {
	case all && len(args) > 0:
		return nil, lifecycle.Usage(errors.New(msgKeyAndAll))
	case all:
		return a.engine.All()
	case len(args) != 1:
		return nil, lifecycle.Usage(errors.New(msgKeyOrAll))
	}
	r, err := a.engine.Find(args[0])
	if err != nil {
		return nil, err
	}
	return []lifecycle.Stored{r}, nil
}
