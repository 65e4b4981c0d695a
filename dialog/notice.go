package dialog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/ncruces/zenity"
)

// Notice shows text in a window that asks nothing: a pulsing progress
// window without buttons (no Cancel, and an OK that auto-close hides, as
// the progress never completes), which stays until ctx ends (the window
// closes) or the person closes it. It returns nil in both cases, and an
// error only when the window could not be shown. The text is shown on one
// line, literally.
//
// A window that ends sooner than anyone would have closed it is shown
// again, at most noticeRestarts times, and then the notice is an error:
// GNOME zenity now and then dies by itself about 0.3 s after exec (later
// on a busy machine), with the exit code of Cancel, before its window
// appears.
func Notice(ctx context.Context, title, text string) error {
	return notice(ctx, title, text, noticeTooSoon)
}

const (
	// noticeTooSoon is the earliest a person closes the window: it has
	// nothing to answer, only the window's close button, and a person
	// reads it first. It is longer than the engine's DefaultHumanAnswer,
	// as a needless restart costs nothing here: on a busy machine GNOME
	// zenity has been seen to die by itself 0.85 s after exec.
	noticeTooSoon  = 2 * time.Second
	noticeRestarts = 3
)

func notice(ctx context.Context, title, text string, tooSoon time.Duration) error {
	utf8Locale()
	if title == "" {
		title = DefaultTitle
	}
	for restarts := 0; ; restarts++ {
		started := time.Now()
		err := showNotice(ctx, title, text)
		switch {
		case ctx.Err() != nil:
			// Ended by the caller (ssh's SIGTERM), even as a window
			// started or took its text: the notice did its job.
			return nil
		case err != nil || time.Since(started) >= tooSoon:
			return err
		}
		if restarts == noticeRestarts {
			return fmt.Errorf("the window ended as it started, %d times", restarts+1)
		}
	}
}

// showNotice shows the window once, until ctx ends or the window does.
func showNotice(ctx context.Context, title, text string) error {
	dlg, err := zenity.Progress(zenity.Context(ctx), zenity.Title(title), zenity.Pulsate(), zenity.NoCancel(), zenity.AutoClose())
	if err != nil {
		return err
	}
	if err := dlg.Text(noticeText(text)); err != nil {
		// A program that died at once (see Notice) may have closed its
		// input already: its exit tells.
		if errors.Is(dlg.Close(), zenity.ErrCanceled) {
			return nil
		}
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
