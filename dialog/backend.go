package dialog

import (
	"context"
	"errors"

	"github.com/ncruces/zenity"
)

// Backend puts a request on screen and waits for the person.
//
// Ask returns (true, nil) only when the person pressed the approve button and
// (false, nil) when they pressed cancel, pressed Esc or closed the window.
// When ctx ends first, the dialog is closed and Ask returns ctx's error. Any
// other error means the dialog could not be shown or crashed.
type Backend interface {
	Ask(ctx context.Context, r Request) (approved bool, err error)
}

// Zenity is the Backend built on github.com/ncruces/zenity: zenity, qarma or
// matedialog on Linux, osascript on macOS and Win32 on Windows.
type Zenity struct{}

// Ask implements Backend.
func (Zenity) Ask(ctx context.Context, r Request) (bool, error) {
	utf8Locale()
	title := r.Title
	if title == "" {
		title = DefaultTitle
	}
	opts := []zenity.Option{
		zenity.Context(ctx),
		zenity.Title(title),
		zenity.OKLabel(r.OKLabel),
		zenity.CancelLabel(r.CancelLabel),
	}
	switch r.Icon {
	case "question":
		opts = append(opts, zenity.QuestionIcon)
	case "warning":
		opts = append(opts, zenity.WarningIcon)
	case "error":
		opts = append(opts, zenity.ErrorIcon)
	case "info":
		opts = append(opts, zenity.InfoIcon)
	case "none":
		opts = append(opts, zenity.NoIcon)
	}
	if !r.DefaultApprove {
		// Enter presses the default button; it must not approve by accident.
		opts = append(opts, zenity.DefaultCancel())
	}
	closes, _ := ctx.Deadline()
	err := zenity.Question(r.Shown(closes), opts...)
	switch {
	case ctx.Err() != nil:
		// Prefer our own reason for closing over whatever the dialog reported.
		return false, ctx.Err()
	case err == nil:
		return true, nil
	case errors.Is(err, zenity.ErrCanceled):
		return false, nil
	default:
		return false, err
	}
}
