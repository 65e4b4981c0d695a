//go:build e2e && unix

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// WineEnv names what scripts/test prepares for the Windows build's tests
// under Wine: the wine64 program, its prefix (with what Go programs need in
// it), an X server of the layer's own, and the directory of the Windows
// programs (ask-confirm.exe, ask-confirm-askpass.exe, inspect.exe).
const (
	WineEnv        = "ASK_CONFIRM_WINE"
	WinePrefixEnv  = "ASK_CONFIRM_WINEPREFIX"
	WineDisplayEnv = "ASK_CONFIRM_WINE_DISPLAY"
	WineBinEnv     = "ASK_CONFIRM_WINE_BIN"
)

// NewWineHarness returns a harness that runs the Windows build under Wine,
// whose real Win32 dialogs Wine draws on the X server in DISPLAY. Its
// store is the harness's own directory, which the Windows programs reach
// as Z:\…, so the test reads records and history as on Linux. Without
// Wine, an X server or xdotool, the test fails when ASK_CONFIRM_E2E=require,
// as scripts/test sets, and skips with the reason otherwise.
func NewWineHarness(t *testing.T) *Harness {
	if runtime.GOARCH != "amd64" {
		t.Skip("Debian's wine64 runs x86-64 Windows programs, and this is " + runtime.GOARCH)
	}
	var missing []string
	for _, env := range []string{WineEnv, WinePrefixEnv, WineBinEnv} {
		if os.Getenv(env) == "" {
			missing = append(missing, env)
		}
	}
	if os.Getenv("DISPLAY") == "" {
		missing = append(missing, "an X server in DISPLAY")
	}
	if _, err := exec.LookPath("xdotool"); err != nil {
		missing = append(missing, "xdotool")
	}
	if len(missing) > 0 {
		msg := "the Wine tests need " + strings.Join(missing, ", ") + "; run scripts/test, which installs and prepares them"
		if os.Getenv("ASK_CONFIRM_E2E") == "require" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	lockScreen(t, "x"+os.Getenv("DISPLAY"))
	h := NewHarness(t)
	h.Wine = os.Getenv(WineEnv)
	h.Exe = filepath.Join(os.Getenv(WineBinEnv), "ask-confirm.exe")
	env := h.Env[:0]
	for _, kv := range h.Env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "CODEX_HOME":
			kv = name + "=" + WinePath(value)
		case "WINEPREFIX", "WINEDEBUG", "HOME":
			continue
		}
		env = append(env, kv)
	}
	h.Env = append(env, "DISPLAY="+os.Getenv("DISPLAY"), "WINEPREFIX="+os.Getenv(WinePrefixEnv), "WINEDEBUG=-all",
		"HOME="+h.Dir, "PATH="+os.Getenv("PATH"))
	return h
}

// WinePath is the path Windows programs under Wine see for the Linux path
// p: drive Z: is the Linux root.
func WinePath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// WineProgram is the Windows program name in the harness's Wine programs.
func WineProgram(name string) string { return filepath.Join(os.Getenv(WineBinEnv), name) }

// RunWine runs a Windows program under the harness's Wine, with stdin,
// and returns its exit code and output.
func (h *Harness) RunWine(stdin string, program string, args ...string) (code int, stdout, stderr string) {
	h.T.Helper()
	var out, errb bytes.Buffer
	var err error
	for try := 1; ; try++ {
		c := h.wineCommand(program, args...)
		c.Stdin = strings.NewReader(stdin)
		c.Stdout, c.Stderr = &out, &errb
		began := time.Now()
		if err := c.Start(); err != nil {
			h.T.Fatal(err)
		}
		err = waitWine(c)
		if try == wineStarts || !h.wineDidNotStart(c, err, began, &out, &errb, h.T.Log) {
			break
		}
	}
	return ExitCode(h.T, err), out.String(), errb.String()
}

// wineStarts is how many times a test starts a Windows program that Wine
// did not start (wineDidNotStart) before it takes the failure as it is.
const wineStarts = 3

// wineQuickest is less than any Windows program of these tests takes to
// run at all under Wine, Wine's own start included: the quickest, a usage
// error, takes over half a second here.
const wineQuickest = 150 * time.Millisecond

// wineDidNotStart reports whether c, a Windows program run under Wine,
// ended as one Wine never started: with an exit code other than 0, no
// output at all, and sooner than any of them runs (wineQuickest). Every
// program these tests run says something when it fails, so such an end
// is Wine's, not the program's. A CI run of the whole suite met it once
// in several hundred starts (ask-confirm.exe ended with exit 1 and no
// output 10 ms after it was started), which no run of the Wine layer alone
// has reproduced; the test then starts the program again, and the log
// says so. The output buffers are emptied for the next start.
func (h *Harness) wineDidNotStart(c *exec.Cmd, err error, began time.Time, stdout, stderr *bytes.Buffer, log func(...any)) bool {
	took := time.Since(began)
	if err == nil || c.ProcessState == nil || c.ProcessState.ExitCode() <= 0 ||
		stdout.Len() > 0 || stderr.Len() > 0 || took >= wineQuickest {
		return false
	}
	log(fmt.Sprintf("Wine ended %s with exit %d and no output %s after its start, sooner than it runs any program: starting it again",
		filepath.Base(c.Args[1]), c.ProcessState.ExitCode(), took.Round(time.Millisecond)))
	stdout.Reset()
	stderr.Reset()
	return true
}

// againWhereWineDidNotStart starts ask-confirm with args again, where Wine
// did not start r's run (wineDidNotStart), at most wineStarts in all. It
// runs beside the test, which may have ended: what it says is logged by
// Wait.
func (h *Harness) againWhereWineDidNotStart(r *Running, args []string) {
	began := r.Started
	note := func(a ...any) { r.notes = append(r.notes, fmt.Sprint(a...)) }
	for try := 2; try <= wineStarts && h.wineDidNotStart(r.Cmd, r.Err, began, &r.Stdout, &r.Stderr, note); try++ {
		c := h.Command(args)
		c.Stdout, c.Stderr = &r.Stdout, &r.Stderr
		began = time.Now()
		if err := c.Start(); err != nil {
			r.Err = err
			return
		}
		r.mu.Lock()
		r.Cmd = c
		r.mu.Unlock()
		r.Err = waitWine(c)
	}
}

// wineCommand runs program, a Windows program, under the harness's Wine.
func (h *Harness) wineCommand(program string, args ...string) *exec.Cmd {
	c := exec.Command(h.Wine, append([]string{program}, args...)...)
	c.Env, c.Dir = h.Env, h.Work
	// Under Wine every process keeps the Unix stderr of the one that
	// started it, for Wine's own messages: a detached holder keeps its
	// caller's open until its dialog closes. Windows has no such thing.
	// So once the caller has exited, its output is taken as it is.
	c.WaitDelay = time.Second
	return c
}

// waitWine waits for c, whose output may stay open after it exited (see
// wineCommand), and returns what Wait would have returned had it not.
func waitWine(c *exec.Cmd) error {
	err := c.Wait()
	if errors.Is(err, exec.ErrWaitDelay) && c.ProcessState != nil {
		if c.ProcessState.Success() {
			return nil
		}
		return &exec.ExitError{ProcessState: c.ProcessState}
	}
	return err
}

// Control is a window, or a control of one, as the Windows program
// inspect sees it: class, text, and its rectangle on the screen, which
// under Wine without a window manager is the X server's.
type Control struct {
	Window bool   `json:"window"`
	Class  string `json:"class"`
	Text   string `json:"text"`
	ID     int    `json:"id"`
	Left   int    `json:"left"`
	Top    int    `json:"top"`
	Right  int    `json:"right"`
	Bottom int    `json:"bottom"`
}

// Controls returns the visible Win32 windows titled title and their
// controls, in the order Windows lists them.
func (h *Harness) Controls(title string) []Control {
	h.T.Helper()
	code, out, errs := h.RunWine("", WineProgram("inspect.exe"), title)
	if code != 0 {
		h.T.Fatalf("inspect %s: exit %d: %s", title, code, errs)
	}
	var cs []Control
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var c Control
		Must(h.T, dec.Decode(&c))
		cs = append(cs, c)
	}
	return cs
}

// ControlText returns the text of the controls of class in the dialog
// titled title, one per control.
func (h *Harness) ControlText(title, class string) []string {
	h.T.Helper()
	var texts []string
	for _, c := range h.Controls(title) {
		if !c.Window && c.Class == class {
			texts = append(texts, c.Text)
		}
	}
	return texts
}

// ClickButton clicks, with the pointer, the button labelled label in the
// Win32 dialog titled title, where inspect says it is, until the dialog
// closes.
func (h *Harness) ClickButton(title, label string) {
	h.T.Helper()
	button := func() (Control, bool) {
		for _, c := range h.Controls(title) {
			if c.Class == "Button" && c.Text == label {
				return c, true
			}
		}
		return Control{}, false
	}
	// The X window maps a moment before Windows lists the dialog.
	Eventually(h.T, 30*time.Second, "a button "+label+" in "+title, func() bool { _, ok := button(); return ok })
	h.UntilClosed(title, "clicking "+label, func(string) {
		if c, ok := button(); ok {
			x, y := (c.Left+c.Right)/2, (c.Top+c.Bottom)/2
			Xdotool(h.T, "mousemove", "--sync", "0", "0")
			Xdotool(h.T, "mousemove", "--sync", strconv.Itoa(x), strconv.Itoa(y))
			h.Acted = time.Now()
			Xdotool(h.T, "click", "1")
		}
	})
}

// killWineHolder ends a holder of the Windows build as taskkill /F does:
// at once, with no chance to close its dialog.
func (h *Harness) killWineHolder(pid int) {
	code, _, errs := h.RunWine("", "taskkill", "/F", "/PID", strconv.Itoa(pid))
	if code != 0 {
		h.T.Logf("taskkill /F /PID %d: exit %d: %s", pid, code, errs)
	}
}
