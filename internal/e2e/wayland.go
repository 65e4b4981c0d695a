//go:build e2e && linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Wayland harness: real GNOME zenity dialogs on a headless sway, which
// scripts/test starts (start_sway in scripts/lib.sh), found by title in
// swaymsg's tree, answered with wtype through the virtual-keyboard protocol,
// and photographed with grim. ask-confirm runs as in a Wayland desktop
// session: WAYLAND_DISPLAY names the socket under XDG_RUNTIME_DIR, and
// DISPLAY is unset, so nothing can fall back to X.
//
// The compositor is shared by every test that uses it, and its windows are
// on one workspace: like the X tests, the Wayland tests run one at a time
// (no t.Parallel) and make their titles unique with h.title.

// Where start_sway tells the tests to find its compositor. It does not set
// WAYLAND_DISPLAY itself, lest every other test see a Wayland session.
const (
	WaylandDisplayEnv    = "ASK_CONFIRM_WAYLAND_DISPLAY"     // the socket's name, e.g. wayland-1
	waylandRuntimeDirEnv = "ASK_CONFIRM_WAYLAND_RUNTIME_DIR" // the compositor's XDG_RUNTIME_DIR
	swaySockEnv          = "ASK_CONFIRM_SWAYSOCK"            // its IPC socket, for swaymsg
)

// wlHarness is a harness whose dialogs appear on the Wayland compositor.
// It keeps everything of harness that runs ask-confirm and reads its store
// and history, and replaces the methods that find and answer windows with
// xdotool by ones that do it on Wayland: windows, waitWindow, waitStable,
// waitNoWindow and key; click, which needs a pointer that headless sway
// has not got, fails the test.
type wlHarness struct {
	*Harness
	toolEnv []string // the environment of swaymsg, wtype and grim
}

// WlWindow is one window on the compositor, as swaymsg's tree describes it.
type WlWindow struct {
	ID    int64           // sway's container id, for [con_id=ID] criteria
	PID   int             // the process that draws the window
	AppID string          // the Wayland app_id: "zenity"
	Title string          // what the window's title bar shows
	Rect  image.Rectangle // where its content is on the output, borders included
}

// NewWaylandHarness returns a harness that shows real zenity dialogs on the
// compositor start_sway started. Without it (or without zenity, swaymsg,
// wtype or grim) the test fails when ASK_CONFIRM_E2E=require, as
// scripts/test sets, and skips with the reason otherwise.
func NewWaylandHarness(t *testing.T) *wlHarness {
	t.Helper()
	display, runtimeDir, swaysock := os.Getenv(WaylandDisplayEnv), os.Getenv(waylandRuntimeDirEnv), os.Getenv(swaySockEnv)
	var missing []string
	if display == "" || runtimeDir == "" || swaysock == "" {
		missing = append(missing, "a Wayland compositor in "+WaylandDisplayEnv+", "+waylandRuntimeDirEnv+" and "+swaySockEnv)
	} else if _, err := os.Stat(filepath.Join(runtimeDir, display)); err != nil {
		missing = append(missing, "the Wayland socket "+filepath.Join(runtimeDir, display))
	}
	realZenity := needTools(t, "Wayland test", "run scripts/test, which installs sway, grim and wtype and starts a headless sway", missing, "swaymsg", "wtype", "grim")

	lockScreen(t, "wayland"+filepath.Join(runtimeDir, display))
	h := NewHarness(t)
	// NewHarness left out DISPLAY and WAYLAND_DISPLAY. The runtime
	// directory is the compositor's, as in a desktop session: GTK 3 will
	// not open a Wayland display without XDG_RUNTIME_DIR, and the store
	// and its locks live under the cache and state homes, not there.
	// GDK_BACKEND could steer GTK away from Wayland.
	env := h.Env[:0:0]
	for _, kv := range h.Env {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "XDG_RUNTIME_DIR", "GDK_BACKEND", "SWAYSOCK":
			continue
		}
		env = append(env, kv)
	}
	h.Env = append(env, "WAYLAND_DISPLAY="+display, "XDG_RUNTIME_DIR="+runtimeDir, "NO_AT_BRIDGE=1",
		h.realZenityPath(realZenity))

	w := &wlHarness{Harness: h}
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SWAYSOCK":
			continue
		}
		w.toolEnv = append(w.toolEnv, kv)
	}
	w.toolEnv = append(w.toolEnv, "WAYLAND_DISPLAY="+display, "XDG_RUNTIME_DIR="+runtimeDir, "SWAYSOCK="+swaysock)
	return w
}

// tool runs swaymsg, wtype or grim against the compositor and returns its
// standard output, failing the test if it fails.
func (w *wlHarness) tool(name string, stdin []byte, args ...string) []byte {
	w.T.Helper()
	c := exec.Command(name, args...)
	c.Env = w.toolEnv
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		w.T.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// swayNode is the part of a node of swaymsg -t get_tree that the harness
// reads. A node with a pid is a window.
type swayNode struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	PID     int    `json:"pid"`
	AppID   string `json:"app_id"`
	Visible bool   `json:"visible"`
	Rect    struct {
		X      int `json:"x"`
		Y      int `json:"y"`
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"rect"`
	Nodes         []swayNode `json:"nodes"`
	FloatingNodes []swayNode `json:"floating_nodes"`
}

// allWindows returns every visible window on the compositor.
func (w *wlHarness) allWindows() []WlWindow {
	w.T.Helper()
	var root swayNode
	if err := json.Unmarshal(w.tool("swaymsg", nil, "-r", "-t", "get_tree"), &root); err != nil {
		w.T.Fatalf("reading swaymsg -t get_tree: %v", err)
	}
	var found []WlWindow
	var walk func(n swayNode)
	walk = func(n swayNode) {
		if n.PID > 0 && n.Visible {
			found = append(found, WlWindow{ID: n.ID, PID: n.PID, AppID: n.AppID, Title: n.Name,
				Rect: image.Rect(n.Rect.X, n.Rect.Y, n.Rect.X+n.Rect.Width, n.Rect.Y+n.Rect.Height)})
		}
		for _, c := range append(n.Nodes, n.FloatingNodes...) {
			walk(c)
		}
	}
	walk(root)
	return found
}

// Windows returns the visible Windows titled exactly title.
func (w *wlHarness) Windows(title string) []WlWindow {
	w.T.Helper()
	var ws []WlWindow
	for _, win := range w.allWindows() {
		if win.Title == title {
			ws = append(ws, win)
		}
	}
	return ws
}

// WaitWindow waits for exactly one window titled title and returns it.
func (w *wlHarness) WaitWindow(title string) WlWindow {
	w.T.Helper()
	var ws []WlWindow
	Eventually(w.T, 30*time.Second, "one Wayland window titled "+title, func() bool {
		ws = w.Windows(title)
		return len(ws) == 1
	})
	return ws[0]
}

// WaitStable waits until the window titled title has kept the same place
// and size for 400 ms, and returns it: GTK settles its layout after the
// window first appears, and the wait keeps the test slower than any person,
// whose answer ask-confirm only takes from 0.4 s after the dialog program
// starts.
func (w *wlHarness) WaitStable(title string) WlWindow {
	w.T.Helper()
	last := w.WaitWindow(title)
	Eventually(w.T, 30*time.Second, "a stable layout of the Wayland window "+title, func() bool {
		time.Sleep(400 * time.Millisecond)
		now := w.WaitWindow(title)
		stable := now == last
		last = now
		return stable
	})
	return last
}

// WaitNoWindow waits until no window is titled title.
func (w *wlHarness) WaitNoWindow(title string, limit time.Duration) {
	w.T.Helper()
	Eventually(w.T, limit, "no Wayland window titled "+title, func() bool { return len(w.Windows(title)) == 0 })
}

// wtypeMu serialises focusing a window and typing into it: two sequences
// must not interleave.
var wtypeMu sync.Mutex

// send focuses win and types into it with wtype, which adds a virtual
// keyboard for the length of one run. Two traps, measured with sway 1.7 and
// GTK 3 (Escape to a fresh zenity, five tries each): keys sent at once are
// lost while GTK binds the new keyboard (1 of 5 closed it), so wtype first
// pauses; and GTK ignores a Return or an Escape that is the last key of a
// keyboard (0 of 5), so a spare key (F20, which nothing binds) follows.
// wtype also pauses before it exits, so the keyboard outlives its keys.
// args are wtype's: "-k", "Tab" presses a key, "-" types stdin.
func (w *wlHarness) send(win WlWindow, stdin []byte, args ...string) {
	w.T.Helper()
	wtypeMu.Lock()
	defer wtypeMu.Unlock()
	w.tool("swaymsg", nil, fmt.Sprintf("[con_id=%d] focus", win.ID))
	w.Acted = time.Now()
	w.tool("wtype", stdin, append(append([]string{"-s", "300"}, args...), "-k", "F20", "-s", "300")...)
}

// press waits for the window titled title to settle and presses keys in it
// once, leaving it open: for moving about a dialog before answering it.
// Keys are XKB names: Tab, Return, Escape, Down, space.
func (w *wlHarness) press(title string, keys ...string) {
	w.T.Helper()
	var args []string
	for _, k := range keys {
		args = append(args, "-k", k)
	}
	w.send(w.WaitStable(title), nil, args...)
}

// TypeText waits for the window titled title to settle and types text
// into the widget that has the focus, leaving the window open.
func (w *wlHarness) TypeText(title, text string) {
	w.T.Helper()
	w.send(w.WaitStable(title), []byte(text), "-")
}

// Answer waits for the window titled title to settle, presses keys in it,
// and waits for it to close. Keys that all went missing (the window is
// still open and its program still running) are sent again, twice at
// most; each retry is logged. A retry can only make an approval fail, never
// approve: a second Tab of a Tab, Return whose Return alone was lost moves
// the focus on from Approve.
func (w *wlHarness) Answer(title string, keys ...string) {
	w.T.Helper()
	win := w.WaitStable(title)
	var args []string
	for _, k := range keys {
		args = append(args, "-k", k)
	}
	for try := 1; try <= 3; try++ {
		if try > 1 {
			w.T.Logf("the window %s stayed open after %s; pressing again (try %d)", title, strings.Join(keys, ", "), try)
		}
		w.send(win, nil, args...)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			ws := w.Windows(title)
			if len(ws) == 0 {
				return
			}
			win = ws[0]
			time.Sleep(20 * time.Millisecond)
		}
	}
	w.T.Fatalf("pressing %s did not close the Wayland window %s", strings.Join(keys, ", "), title)
}

// Approve presses the Approve button of the confirmation titled title:
// Tab moves the focus from Cancel, the default button, to Approve, and
// Return presses it.
func (w *wlHarness) Approve(title string) { w.T.Helper(); w.Answer(title, "Tab", "Return") }

// Deny closes the confirmation titled title with Escape.
func (w *wlHarness) Deny(title string) { w.T.Helper(); w.Answer(title, "Escape") }

// Key presses Key in the window titled title until it closes, as
// harness.Key does with xdotool.
func (w *wlHarness) Key(title, key string) { w.T.Helper(); w.Answer(title, key) }

// Click fails the test: headless sway has no pointer to Click with.
func (w *wlHarness) Click(title, button string) {
	w.T.Helper()
	w.T.Fatalf("clicking %s in %s: the headless compositor has no pointer; use approve, deny, key or press", button, title)
}

// Screenshot returns what the compositor shows in r, taken with grim.
func (w *wlHarness) Screenshot(r image.Rectangle) *image.RGBA {
	w.T.Helper()
	geometry := fmt.Sprintf("%d,%d %dx%d", r.Min.X, r.Min.Y, r.Dx(), r.Dy())
	img, err := png.Decode(bytes.NewReader(w.tool("grim", nil, "-t", "png", "-g", geometry, "-")))
	if err != nil {
		w.T.Fatalf("decoding grim's screenshot of %s: %v", geometry, err)
	}
	rgba := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// Colours counts the distinct Colours in img.
func Colours(img *image.RGBA) int {
	seen := map[[4]uint8]bool{}
	for i := 0; i+3 < len(img.Pix); i += 4 {
		seen[[4]uint8(img.Pix[i:i+4])] = true
	}
	return len(seen)
}

// SamePixels reports whether a and b are the same size and every pixel is
// the same.
func SamePixels(a, b *image.RGBA) bool {
	return a.Bounds().Size() == b.Bounds().Size() && bytes.Equal(a.Pix, b.Pix)
}

func (win WlWindow) String() string {
	return fmt.Sprintf("%q (%s, pid %d, con %d, at %v)", win.Title, win.AppID, win.PID, win.ID, win.Rect)
}
