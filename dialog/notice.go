package dialog

import (
	"context"
	"errors"
	"runtime"
	"strings"

	"github.com/ncruces/zenity"
)

// Notice shows text in a window that asks nothing: a pulsing progress
// window without buttons (no Cancel, and an OK that auto-close hides, as
// the progress never completes), which stays until ctx ends (the window
// closes) or the person closes it. It returns nil in both cases, and an
// error only when the window could not be shown. The text is shown on one
// line, literally.
func Notice(ctx context.Context, title, text string) error {
	utf8Locale()
	if title == "" {
		title = DefaultTitle
	}
	dlg, err := zenity.Progress(zenity.Context(ctx), zenity.Title(title), zenity.Pulsate(), zenity.NoCancel(), zenity.AutoClose())
	if err != nil {
		return err
	}
	if err := dlg.Text(noticeText(text)); err != nil {
		_ = dlg.Close()
		return err
	}
	select {
	case <-ctx.Done():
	case <-dlg.Done():
	}
	if err := dlg.Close(); err != nil && ctx.Err() == nil && !errors.Is(err, zenity.ErrCanceled) {
		return err
	}
	return nil
}

// noticeText is text as the progress window's one line of text: newlines
// become spaces, and on Linux and the BSDs, where zenity reads the line
// with g_strcompress, backslashes are doubled so they stay as they are.
func noticeText(text string) string {
	s := Literal(strings.Join(strings.Fields(text), " "), false)
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	return s
}
