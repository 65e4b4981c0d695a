//go:build e2e && unix

package e2e

import (
	"os/exec"
	"strconv"
	"time"
)

// TypeInto focuses the dialog titled title once it is stable and types
// text (after selecting what is there, for an entry), without closing it.
func (h *Harness) TypeInto(title, text string, clear bool) {
	h.T.Helper()
	defer h.focus(title)()
	if clear {
		Xdotool(h.T, "key", "ctrl+a", "BackSpace")
	}
	if text != "" {
		Xdotool(h.T, "type", "--delay", "30", text)
	}
	h.Acted = time.Now()
}

// Press focuses the dialog titled title once it is stable and presses
// keys in order, without waiting for it to close: a list's End moves the
// selection to the last row without GTK's type-to-find, whose popup may not
// yet have selected a row when the next key comes on a busy machine.
func (h *Harness) Press(title string, keys ...string) {
	h.T.Helper()
	defer h.focus(title)()
	Xdotool(h.T, append([]string{"key"}, keys...)...)
	h.Acted = time.Now()
}

// SelectLastRow moves the selection of the list titled title to its last
// row, with End, without closing the dialog. It presses End until the
// window shows a selected row (RowSelected): GTK now and then drops a key
// that comes in the first moments after its window takes the focus, even
// after the window has kept its layout for WaitStable's 400 ms, and End is
// idempotent. Nothing but End is pressed, so a selected row is the last;
// and the list opens with none, which is checked first.
func (h *Harness) SelectLastRow(title string) {
	h.T.Helper()
	w := h.WaitWindow(title)
	defer h.focus(title)()
	// A list opens with no row selected: the check sees a difference.
	if RowSelected(h.T, w) {
		h.T.Fatalf("the list %s shows a selected row before any key", title)
	}
	presses := 0
	Eventually(h.T, 20*time.Second, "a selected row in "+title+" after End", func() bool {
		Xdotool(h.T, "key", "End")
		presses++
		time.Sleep(250 * time.Millisecond)
		return RowSelected(h.T, w)
	})
	if presses > 1 {
		h.T.Logf("the list %s showed a selected row after End was pressed %d times", title, presses)
	}
	h.Acted = time.Now()
}

// PressUntilReplaced presses key on the dialog titled title until its
// program has closed it and another program's window of that title has
// mapped: a list whose Other… opens its text field under the same title.
// Key would press key on the second window too, where it maps within the
// second that Key waits for the first to close; and the X server may give
// the second window the first one's id, so the two are told apart by
// their programs' process IDs. It returns the second window.
func (h *Harness) PressUntilReplaced(title, key string) string {
	h.T.Helper()
	first := h.WaitWindow(title)
	h.WaitStable(first)
	pid := XdotoolMaybe("getwindowpid", first)
	if pid == "" {
		h.T.Fatalf("the dialog %s names no process", title)
	}
	for try := 0; try < 10; try++ {
		if w := h.windowOf(title, pid, true); w != "" {
			func() {
				xdoMu.Lock()
				defer xdoMu.Unlock()
				// Pressed only where the first program's window is
				// focused: the second may have mapped since.
				if exec.Command("xdotool", "windowraise", w).Run() != nil ||
					exec.Command("xdotool", "windowfocus", "--sync", w).Run() != nil ||
					XdotoolMaybe("getwindowpid", XdotoolMaybe("getwindowfocus")) != pid {
					return
				}
				h.Acted = time.Now()
				Xdotool(h.T, "key", key)
			}()
		}
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if w := h.windowOf(title, pid, false); w != "" {
				return w
			}
		}
	}
	h.T.Fatalf("pressing %s did not replace the dialog %s with another program's", key, title)
	return ""
}

// windowOf returns a window titled title whose program's process ID is
// pid (same true) or is not (same false), or "" where there is none.
func (h *Harness) windowOf(title, pid string, same bool) string {
	for _, w := range h.Windows(title) {
		if p := XdotoolMaybe("getwindowpid", w); p != "" && (p == pid) == same {
			return w
		}
	}
	return ""
}

// Tick clicks the check boxes of rows of the --multiple list titled title,
// counted from 0. The list starts under a one-line message (tests pass
// --no-origin): GTK 3 zenity draws the first row's box at (25, 46) of the
// window and a row every 24 px. A miss shows as a wrong answer.
func (h *Harness) Tick(title string, rows ...int) {
	h.T.Helper()
	h.TickFrom(title, 46, rows...)
}

// TickFrom is tick for a list whose first row's box is first px below the
// top of the window.
func (h *Harness) TickFrom(title string, first int, rows ...int) {
	h.T.Helper()
	w := h.WaitWindow(title)
	h.WaitStable(w)
	xdoMu.Lock()
	defer xdoMu.Unlock()
	geo := h.Geometry(w)
	for _, row := range rows {
		x, y := geo["X"]+25, geo["Y"]+first+24*row
		Xdotool(h.T, "mousemove", "--sync", "0", "0")
		Xdotool(h.T, "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
		Xdotool(h.T, "click", "1")
		time.Sleep(150 * time.Millisecond)
	}
}

// ClickApproveFor presses the leftmost of the three buttons, where GTK 3
// zenity puts the extra one ("Approve for 1h"), in a dialog no wider than
// its buttons, which then fill the bottom row.
func (h *Harness) ClickApproveFor(title string) {
	h.T.Helper()
	h.UntilClosed(title, "clicking approve-for", func(w string) {
		geo := h.Geometry(w)
		Xdotool(h.T, "mousemove", "--sync", "0", "0")
		Xdotool(h.T, "mousemove", "--sync", strconv.Itoa(geo["X"]+40), strconv.Itoa(geo["Y"]+geo["HEIGHT"]-22))
		h.Acted = time.Now()
		Xdotool(h.T, "click", "1")
	})
}

// focus raises and focuses the dialog titled title once it is stable, and
// returns holding xdotool's lock, for the keys the caller sends; the
// function it returns lets go of it.
func (h *Harness) focus(title string) (unlock func()) {
	h.T.Helper()
	w := h.WaitWindow(title)
	h.WaitStable(w)
	xdoMu.Lock()
	held := false
	// Xdotool ends a failed test at once: the lock must not stay held.
	defer func() {
		if !held {
			xdoMu.Unlock()
		}
	}()
	Xdotool(h.T, "windowraise", w)
	Xdotool(h.T, "windowfocus", "--sync", w)
	held = true
	return xdoMu.Unlock
}
