//go:build e2e && linux

package winetest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/internal/e2e"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// TestMain points xdotool, and the dialogs, at the layer's own X server
// (ASK_CONFIRM_WINE_DISPLAY), which scripts/test starts beside the one the
// other real-dialog tests share.
func TestMain(m *testing.M) {
	if d := os.Getenv(e2e.WineDisplayEnv); d != "" {
		os.Setenv("DISPLAY", d)
	}
	code := m.Run()
	// Nothing of the layer's Wine outlives it: its server, and with it
	// any process a failed test left.
	if wine, prefix := os.Getenv(e2e.WineEnv), os.Getenv(e2e.WinePrefixEnv); wine != "" && prefix != "" {
		c := exec.Command(filepath.Join(filepath.Dir(wine), "wineserver"), "-k")
		c.Env = append(os.Environ(), "WINEPREFIX="+prefix)
		_ = c.Run()
	}
	os.Exit(code)
}

// timed logs how long the Windows programs of a case took under Wine.
func timed(t *testing.T) {
	start := time.Now()
	t.Cleanup(func() { t.Logf("%s: %s under Wine", t.Name(), time.Since(start).Round(10*time.Millisecond)) })
}

func confirmArgs(title string, extra ...string) []string {
	return append([]string{"--json", "--title", title, "--message", "Ship v2 to production?"}, extra...)
}

// The Win32 message box answers as on Linux: Approve 0; Cancel, Esc and
// the window closed (Alt+F4) 1; each answer in the history.
func TestWineAnswers(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	for _, c := range []struct {
		name   string
		answer func(title string)
		code   int
		status string
	}{
		{"approve", func(title string) { h.ClickButton(title, "Approve") }, 0, lifecycle.StatusApproved},
		{"cancel", func(title string) { h.ClickButton(title, "Cancel") }, 1, lifecycle.StatusDenied},
		{"Esc", func(title string) { h.Key(title, "Escape") }, 1, lifecycle.StatusDenied},
		{"closed", func(title string) { h.Key(title, "alt+F4") }, 1, lifecycle.StatusDenied},
	} {
		title := h.Title("W-" + c.name)
		r := h.Start(confirmArgs(title, "--wait", "60s")...)
		c.answer(title)
		h.Expect(r.Wait(60*time.Second), c.code, c.status)
	}
	outcomes := map[string]int{}
	for _, ev := range h.History() {
		if ev["event"] == "answered" {
			outcomes[ev["outcome"].(string)]++
		}
	}
	if outcomes["approved"] != 1 || outcomes["denied"] != 3 {
		t.Fatalf("answers in the history: %v", outcomes)
	}
}

// --wait runs out (3) while the dialog stays with its detached holder; a
// click answers it; the same command collects the answer (0, remembered);
// past --remember the same command asks anew.
func TestWinePendingThenCollect(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-pending")
	args := confirmArgs(title, "--wait", "3s", "--remember", "2s")
	h.Expect(h.Run(args...), 3, lifecycle.StatusPending)
	h.ClickButton(title, "Approve")
	h.WaitAnswered()
	o := h.Run(args...)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if !o.Res.Remembered {
		t.Fatalf("the collected answer is not marked remembered: %+v", o.Res)
	}
	time.Sleep(2500 * time.Millisecond) // past --remember
	r := h.Start(confirmArgs(title, "--wait", "60s", "--remember", "2s")...)
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// Ten identical callers at once share one dialog, and its answer.
func TestWineHerd(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-herd")
	var runs []*e2e.Running
	for range 10 {
		runs = append(runs, h.Start(confirmArgs(title, "--wait", "90s")...))
	}
	h.WaitStable(h.WaitWindow(title))
	most := 0
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		most = max(most, len(h.Windows(title)))
	}
	if most != 1 {
		t.Fatalf("%d windows at once for one request", most)
	}
	h.ClickButton(title, "Approve")
	for _, r := range runs {
		h.Expect(r.Wait(90*time.Second), 0, lifecycle.StatusApproved)
	}
	if n := h.DialogsRequested(); n != 1 {
		t.Fatalf("%d dialogs were requested, want 1", n)
	}
}

// The holder killed as taskkill /F kills (its dialog goes with it): the
// next run recovers with a new dialog, never an approval.
func TestWineHolderKilled(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-killed")
	h.Expect(h.Run(confirmArgs(title, "--wait", "2s")...), 3, lifecycle.StatusPending)
	h.WaitStable(h.WaitWindow(title))
	pid := h.OnlyRecord().HolderPID
	if code, _, errs := h.RunWine("", "taskkill", "/F", "/PID", itoa(pid)); code != 0 {
		t.Fatalf("taskkill /F /PID %d: exit %d: %s", pid, code, errs)
	}
	h.WaitNoWindow(title, 30*time.Second)
	r := h.Start(confirmArgs(title, "--wait", "60s")...)
	h.WaitStable(h.WaitWindow(title))
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
	if n := h.DialogsRequested(); n != 2 {
		t.Fatalf("%d dialogs were requested, want 2", n)
	}
}

// A new question under the same --key supersedes the open one (7), and
// ask-confirm cancel ends the request from outside (1).
func TestWineSupersedeAndCancel(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	oldTitle, newTitle := h.Title("W-old"), h.Title("W-new")
	old := h.Start("--json", "--key", "release", "--title", oldTitle, "--message", "Tag v1?", "--wait", "60s")
	h.WaitStable(h.WaitWindow(oldTitle))
	newer := h.Start("--json", "--key", "release", "--title", newTitle, "--message", "Tag v2 instead?", "--wait", "60s")
	h.Expect(old.Wait(60*time.Second), 7, lifecycle.StatusSuperseded)
	h.WaitNoWindow(oldTitle, 30*time.Second)
	h.WaitStable(h.WaitWindow(newTitle))
	if o := h.Run("cancel", "release"); o.Code != 0 {
		t.Fatalf("cancel: exit %d: %s %s", o.Code, o.Stdout, o.Stderr)
	}
	h.Expect(newer.Wait(60*time.Second), 1, lifecycle.StatusCancelled)
	h.WaitNoWindow(newTitle, 30*time.Second)
}

// choose and input through zenity's Win32 list and entry dialogs, with the
// keyboard and the pointer.
func TestWineChooseAndInput(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-choose")
	r := h.Start("choose", "--json", "--title", title, "--message", "Deploy to?",
		"--option", "staging", "--option", "production", "--option", "qa", "--wait", "60s")
	h.Press(title, "Home", "Down")
	h.ClickButton(title, "OK")
	o := r.Wait(60 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "production" {
		t.Fatalf("chose %#v, want production", o.Res.Answer)
	}

	title = h.Title("W-input")
	r = h.Start("input", "--json", "--title", title, "--message", "Release name?", "--wait", "60s")
	h.TypeInto(title, "canary 5 percent", false)
	h.ClickButton(title, "OK")
	o = r.Wait(60 * time.Second)
	h.Expect(o, 0, lifecycle.StatusApproved)
	if o.Res.Answer != "canary 5 percent" {
		t.Fatalf("typed %#v", o.Res.Answer)
	}
}

// Unicode, markup and a leading "-" are shown literally: the message box's
// text is the message as given, read back from the control (in rows of
// the message box's columns: without the line breaks dialog.Fit put in,
// after a space or between two characters), and a picture of it is kept
// where ASK_CONFIRM_WINE_SHOTS names a directory.
func TestWineLiteralText(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	title := h.Title("W-literal")
	message := "-rf <b>bold</b> &amp; & Déploiement → 生产 🚀"
	r := h.Start("--json", "--title", title, "--message", message, "--no-origin", "--wait", "60s")
	h.WaitStable(h.WaitWindow(title))
	texts := h.ControlText(title, "Static")
	var unbroken []string
	for _, text := range texts {
		unbroken = append(unbroken, strings.ReplaceAll(text, "\n", ""))
	}
	if !contains(unbroken, message) {
		t.Fatalf("the message box shows %q, want %q in rows", texts, message)
	}
	if dir := os.Getenv("ASK_CONFIRM_WINE_SHOTS"); dir != "" {
		shot := filepath.Join(dir, "literal.png")
		code, _, errs := h.RunWine("", e2e.WineProgram("inspect.exe"), "-shot", e2e.WinePath(shot), title)
		if code != 0 {
			t.Fatalf("inspect -shot: exit %d: %s", code, errs)
		}
		t.Logf("a picture of the dialog: %s", shot)
	}
	h.ClickButton(title, "Cancel")
	h.Expect(r.Wait(60*time.Second), 1, lifecycle.StatusDenied)
}

// smallScreen is the smallest screen ask-confirm promises that a dialog
// fits on whole.
var smallScreen = image.Rect(0, 0, 1024, 768)

// A text too long for a dialog is fitted to the screen on Windows too
// (dialog.Fit): broken by ask-confirm into rows of the message box's
// columns (22, dialog/screen_windows.go), at most 32 rows, and a text
// longer than that cut to its head and its tail. Checked from what
// Windows and the X server say, not from what ask-confirm was given: the
// message box (inspect) and its X window lie within the X screen of the
// layer's display, and the message box within 1024x768; both buttons and
// the text lie within the window; the text says so where it is cut; and
// the tail word is read, with OCR, on a picture of the window (inspect
// -shot). Then Cancel denies (1), and so does Enter on a cut text, whose
// default button is Cancel.
//
// The message box lays the text out again, in its own font (Wine's
// Tahoma, which need_wine in scripts/lib.sh puts in the prefix): a row
// wider than its width (264 pixels) is wrapped again, or kept whole and
// given two lines, and a row drawn wider than measured loses its end at
// the right. So the picture is checked too, row by row (textLayout): one
// line of ink for each row, the rows as far apart where they repeat as
// the text's height says, and no ink in the text control's last column.
// The rows of % are as wide as Fit makes any row of ASCII: % is the
// widest character there (12 pixels), and 22 of them are the width.
func TestWineLongTextFitsTheScreen(t *testing.T) {
	var lines []string
	for i := 1; i <= 200; i++ {
		lines = append(lines, "line "+strconv.Itoa(i))
	}
	// 240 random bytes are 320 base64 characters; a fixed seed, so that
	// a failure is the same text again.
	random := make([]byte, 240)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		name, message string
		cut           bool // too long for 32 rows: dialog.Fit keeps its head and its tail
		enter         bool // answered with Enter, the default button, not a click on Cancel
	}{
		{"ls-and-3000-A", "ls" + strings.Repeat("A", 3000) + " ; rm -rf ~/zebracake", true, false},
		{"200-lines", strings.Join(lines, "\n") + "\nrm -rf ~/zebracake", true, true},
		// 17 rows, with room left for the lines under them (where it
		// was asked, in a long temporary directory): shown whole.
		{"echo-and-320-base64", "echo " + base64.StdEncoding.EncodeToString(random) + " ; rm -rf ~/zebracake", false, false},
		// Words: Wine's message box wraps a row too wide for it again at
		// its spaces (at 60 columns, this made a window 1,033 pixels high).
		{"words-of-W", "echo " + strings.Repeat("WWWWW ", 300) + "; rm -rf ~/zebracake", true, false},
		// Two columns a character. Wine's Tahoma has none of them, and
		// draws a box, 11 pixels wide, as wide as one of its size.
		{"CJK", strings.Repeat(strings.Repeat("界", 200)+"\n", 40) + "rm -rf ~/zebracake", true, false},
		// Rows of the widest character, as wide as the message box.
		{"rows-of-percent", strings.Repeat("%", 1000) + " ; rm -rf ~/zebracake", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := e2e.NewWineHarness(t)
			timed(t)
			if _, err := exec.LookPath("tesseract"); err != nil {
				if os.Getenv("ASK_CONFIRM_E2E") == "require" {
					t.Fatal("the test reads the dialog with tesseract; run scripts/test, which installs tesseract-ocr")
				}
				t.Skip("the test reads the dialog with tesseract (tesseract-ocr)")
			}
			const tail = "zebracake"
			title := h.Title("W-long")
			r := h.Start("--json", "--title", title, "--message", c.message, "--wait", "60s")
			w := h.WaitWindow(title)
			h.WaitStable(w)
			var problems []string
			fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

			controls := h.Controls(title)
			screen := xScreen(t)
			geo := h.Geometry(w)
			xWindow := image.Rect(geo["X"], geo["Y"], geo["X"]+geo["WIDTH"], geo["Y"]+geo["HEIGHT"])
			var window, text image.Rectangle
			var windows int
			buttons := map[string]image.Rectangle{}
			var static []string
			var statics []e2e.Control // the ones with text
			for _, ctl := range controls {
				rect := image.Rect(ctl.Left, ctl.Top, ctl.Right, ctl.Bottom)
				switch {
				case ctl.Window:
					window = rect
					windows++
				case ctl.Class == "Button":
					buttons[ctl.Text] = rect
				case ctl.Class == "Static" && ctl.Text != "":
					static = append(static, ctl.Text)
					statics = append(statics, ctl)
					text = text.Union(rect)
				}
			}
			if windows != 1 {
				t.Fatalf("Windows lists %d windows titled %s, want 1:\n%s", windows, title, describeControls(controls))
			}
			if !window.In(screen) || !xWindow.In(screen) {
				fail("the window, %v (the X window: %v), does not lie within the X screen, %v", window, xWindow, screen)
			}
			if window.Dx() > smallScreen.Dx() || window.Dy() > smallScreen.Dy() {
				fail("the window, %dx%d, is larger than a %dx%d screen", window.Dx(), window.Dy(), smallScreen.Dx(), smallScreen.Dy())
			}
			for _, label := range []string{"Approve", "Cancel"} {
				b, ok := buttons[label]
				switch {
				case !ok:
					fail("Windows lists no button %q", label)
				case b.Empty() || !b.In(window) || !b.In(screen):
					fail("the button %q, %v, does not lie within the window, %v, and the screen, %v", label, b, window, screen)
				}
			}
			if text.Empty() || !text.In(window) {
				fail("the text, %v, does not lie within the window, %v", text, window)
			}
			// Its first line, broken into rows after a space.
			if said := strings.HasPrefix(strings.ReplaceAll(strings.Join(static, "\n"), "\n", ""), "Too long to show whole"); said != c.cut {
				fail("the message box's text says it is too long to show whole: %v, want %v", said, c.cut)
			}

			shot := filepath.Join(h.Dir, c.name+".png")
			if dir := os.Getenv("ASK_CONFIRM_WINE_SHOTS"); dir != "" {
				shot = filepath.Join(dir, c.name+".png")
			}
			if code, _, errs := h.RunWine("", e2e.WineProgram("inspect.exe"), "-shot", e2e.WinePath(shot), title); code != 0 {
				t.Fatalf("inspect -shot: exit %d: %s", code, errs)
			}
			data, err := os.ReadFile(shot)
			e2e.Must(t, err)
			picture, err := png.Decode(bytes.NewReader(data))
			e2e.Must(t, err)
			var layout []string
			for _, ctl := range statics {
				// Where the control lies on the picture of the window.
				rect := image.Rect(ctl.Left, ctl.Top, ctl.Right, ctl.Bottom).Sub(window.Min).Add(picture.Bounds().Min)
				said, wrong := textLayout(picture, rect, ctl.Text)
				layout = append(layout, said)
				problems = append(problems, wrong...)
			}
			began := time.Now()
			read, passes := readPicture(t, h.Dir, shot, tail)
			t.Logf("%s: a %dx%d window at %d,%d (its text %dx%d: %s) on a %dx%d screen; %d OCR passes in %s",
				c.name, window.Dx(), window.Dy(), window.Min.X, window.Min.Y, text.Dx(), text.Dy(), strings.Join(layout, "; "),
				screen.Dx(), screen.Dy(), passes, time.Since(began).Round(time.Millisecond))
			if !strings.Contains(e2e.Squash(read), tail) {
				fail("the tail word %q is not read on the picture of the window (%s)", tail, shot)
			}

			answer := "a click on Cancel"
			if c.enter {
				answer = "Enter"
				h.Key(title, "Return")
			} else {
				h.ClickButton(title, "Cancel")
			}
			if o := r.Wait(60 * time.Second); o.Code != 1 || o.Res.Status != lifecycle.StatusDenied {
				fail("after %s: exit %d, %q, want 1, denied; stderr: %s", answer, o.Code, o.Res.Status, o.Stderr)
			}
			if len(problems) > 0 {
				t.Errorf("%s\nthe case %s, %d bytes:\n%q\nwhat Windows lists (the X screen: %v; the X window: %v):\n%s\nthe message box's text:\n%s\nthe text read on the picture (%s; ASK_CONFIRM_WINE_SHOTS=DIR keeps it):\n%s",
					strings.Join(problems, "\n"), c.name, len(c.message), c.message, screen, xWindow, describeControls(controls),
					strings.Join(static, "\n"), shot, read)
			}
		})
	}
}

// An inkLine is a line of text on a picture: a run of pixel rows with
// dark pixels in them, from top to bottom (inclusive), and its right-most
// dark column.
type inkLine struct{ top, bottom, right int }

// inkLines are the lines of ink within rect of img, top to bottom. The
// message box draws black text, without smoothing, on a light grey.
func inkLines(img image.Image, rect image.Rectangle) []inkLine {
	var lines []inkLine
	in := false
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		right := -1
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if 299*(r>>8)+587*(g>>8)+114*(b>>8) < 128*1000 {
				right = x
			}
		}
		switch {
		case right < 0:
			in = false
		case !in:
			lines = append(lines, inkLine{y, y, right})
			in = true
		default:
			l := &lines[len(lines)-1]
			l.bottom, l.right = y, max(l.right, right)
		}
	}
	return lines
}

// textLayout checks a text control of the message box, at rect on the
// picture img, against its text: every row of the text is one line of
// ink (none wrapped again); where rows repeat, they are as many lines
// apart as rows, and the control is as many of those lines high as the
// text has rows (no row given two lines: Wine counts the extra line in
// the height only); and no line's ink reaches the control's last column
// (none cut off at the right: the control is as wide as the widest row
// measures). It returns what it measured, and what is wrong. A widest
// row that ends in v, x, y or _, whose ink fills their width in Tahoma,
// would read as cut off: the widest rows of the cases end otherwise.
func textLayout(img image.Image, rect image.Rectangle, text string) (said string, problems []string) {
	rows := strings.Split(text, "\n")
	var inked []int // the rows with something to show
	for i, r := range rows {
		if strings.TrimSpace(r) != "" {
			inked = append(inked, i)
		}
	}
	lines := inkLines(img, rect)
	right := -1
	var cut []int // the lines whose ink reaches the control's last column
	for j, l := range lines {
		right = max(right, l.right-rect.Min.X)
		if l.right >= rect.Max.X-1 {
			cut = append(cut, j)
		}
	}
	said = fmt.Sprintf("%d rows, %d lines of ink, the right-most %d pixels into %d", len(rows), len(lines), right+1, rect.Dx())
	if len(cut) > 0 {
		first := fmt.Sprintf("line %d", cut[0]+1)
		if len(lines) == len(inked) {
			first = fmt.Sprintf("row %d, %q", inked[cut[0]]+1, rows[inked[cut[0]]])
		}
		problems = append(problems, fmt.Sprintf("the ink of %d lines reaches the text's right edge (%d pixels wide): they are cut off there; the first, %s",
			len(cut), rect.Dx(), first))
	}
	if len(lines) != len(inked) {
		return said, append(problems, fmt.Sprintf("the %d rows of the text with something on them show as %d lines of ink: a row was wrapped again",
			len(inked), len(lines)))
	}
	// Rows of the same text lie at the same height within their lines:
	// the first and the last of the most repeated give the lines' pitch.
	first, last, count := map[string]int{}, map[string]int{}, map[string]int{}
	most := ""
	for j, i := range inked {
		r := rows[i]
		if _, ok := first[r]; !ok {
			first[r] = j
		}
		last[r] = j
		if count[r]++; count[r] > count[most] {
			most = r
		}
	}
	if count[most] < 2 {
		return said, problems
	}
	a, b := first[most], last[most]
	span, apart := lines[b].top-lines[a].top, inked[b]-inked[a]
	said += fmt.Sprintf(", a line every %.1f pixels", float64(span)/float64(apart))
	if span%apart != 0 || rect.Dy() != len(rows)*(span/apart) {
		problems = append(problems, fmt.Sprintf("rows %d and %d, %q, are %d pixels apart, and the text %d pixels high for %d rows: a row took more than one line",
			inked[a]+1, inked[b]+1, most, span, rect.Dy(), len(rows)))
	}
	return said, problems
}

// xScreen is the X screen the dialogs show on, as the X server says.
func xScreen(t *testing.T) image.Rectangle {
	t.Helper()
	var w, h int
	geo := e2e.Xdotool(t, "getdisplaygeometry")
	if _, err := fmt.Sscan(geo, &w, &h); err != nil {
		t.Fatalf("xdotool getdisplaygeometry printed %q", geo)
	}
	return image.Rect(0, 0, w, h)
}

func describeControls(cs []e2e.Control) string {
	var b strings.Builder
	for _, c := range cs {
		kind := "  control"
		if c.Window {
			kind = "window"
		}
		fmt.Fprintf(&b, "%s %s %q: (%d,%d)-(%d,%d), %dx%d\n", kind, c.Class, c.Text, c.Left, c.Top, c.Right, c.Bottom,
			c.Right-c.Left, c.Bottom-c.Top)
	}
	return b.String()
}

// ocrPasses are the ways readPicture reads a picture, in turn, until it
// reads the word it looks for: enlarged scale times (tesseract reads text
// best 20 to 30 pixels high; the message box's is about 11), in page
// segmentation mode psm (4: a column of lines; 6: one block; 11: sparse
// text).
var ocrPasses = []struct {
	scale int
	psm   string
}{{3, "4"}, {2, "6"}, {4, "11"}}

// readPicture reads the PNG picture file with tesseract, in each of
// ocrPasses until word is read, and returns what each pass read, under a
// line naming it, and how many passes it took.
func readPicture(t *testing.T, dir, file, word string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(file)
	e2e.Must(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	e2e.Must(t, err)
	var texts []string
	for i, p := range ocrPasses {
		var b bytes.Buffer
		e2e.Must(t, (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, enlargedGray(img, p.scale)))
		in := filepath.Join(dir, fmt.Sprintf("ocr-%d.png", i))
		e2e.Must(t, os.WriteFile(in, b.Bytes(), 0o600))
		c := exec.Command("tesseract", in, "stdout", "--psm", p.psm, "--dpi", strconv.Itoa(96*p.scale), "-l", "eng")
		// One thread: tesseract's OpenMP threads spin on a loaded machine.
		c.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			t.Fatalf("tesseract %s: %v\n%s", in, err, stderr.Bytes())
		}
		texts = append(texts, fmt.Sprintf("[%dx, psm %s]\n%s", p.scale, p.psm, strings.TrimSpace(string(out))))
		if strings.Contains(e2e.Squash(strings.Join(texts, "\n")), e2e.Squash(word)) {
			break
		}
	}
	return strings.Join(texts, "\n"), len(texts)
}

// enlargedGray is img in grey, enlarged scale times by interpolation
// (tesseract reads the staircase edges of repeated pixels as noise), in
// black and white at the grey that best splits its pixels in two (Otsu's
// threshold): the text's antialiased edges otherwise merge its lines.
func enlargedGray(img image.Image, scale int) *image.Gray {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	lum := make([]int32, w*h)
	var hist [256]int
	for y := range h {
		for x := range w {
			cr, cg, cb, _ := img.At(r.Min.X+x, r.Min.Y+y).RGBA()
			l := (299*int32(cr>>8) + 587*int32(cg>>8) + 114*int32(cb>>8)) / 1000
			lum[y*w+x] = l
			hist[l]++
		}
	}
	cut := e2e.Otsu(hist[:], w*h)
	out := image.NewGray(image.Rect(0, 0, w*scale, h*scale))
	// Each output pixel's centre, in the source's pixels, is
	// (2o+1-scale)/(2 scale) from a source pixel's centre: d is that
	// denominator.
	d := int32(2 * scale)
	for oy := range h * scale {
		ay := max(0, int32(2*oy+1-scale))
		y0, fy := int(ay/d), ay%d
		y1 := min(y0+1, h-1)
		for ox := range w * scale {
			ax := max(0, int32(2*ox+1-scale))
			x0, fx := int(ax/d), ax%d
			x1 := min(x0+1, w-1)
			top := lum[y0*w+x0]*(d-fx) + lum[y0*w+x1]*fx
			bottom := lum[y1*w+x0]*(d-fx) + lum[y1*w+x1]*fx
			if float64(top*(d-fy)+bottom*fy) > cut*float64(d*d) {
				out.Pix[oy*out.Stride+ox] = 255
			}
		}
	}
	return out
}

func contains(texts []string, s string) bool {
	for _, t := range texts {
		if t == s {
			return true
		}
	}
	return false
}

// doctor, run as a Windows program, says what it sees: Windows, the Win32
// backend, a holder that can be detached, and the store on a Windows path.
func TestWineDoctor(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	o := h.Run("doctor")
	if o.Code != 0 {
		t.Fatalf("doctor: exit %d: %s %s", o.Code, o.Stdout, o.Stderr)
	}
	for _, want := range []string{"windows/amd64", "backend            win32", "can be detached", `answers            Z:\`, "can ask            yes"} {
		if !strings.Contains(o.Stdout, want) {
			t.Fatalf("doctor does not say %q:\n%s", want, o.Stdout)
		}
	}
}

// ask-confirm-askpass.exe, as OpenSSH for Windows would run it, and the
// agent hook with Claude Code's documented payload on stdin.
func TestWineAskpassAndHook(t *testing.T) {
	h := e2e.NewWineHarness(t)
	timed(t)
	var wg sync.WaitGroup
	var code int
	var stdout, stderr string
	h.Env = append(h.Env, "SSH_ASKPASS_PROMPT=confirm")
	prompt := "Allow use of key " + h.Suffix + "?"
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, stdout, stderr = h.RunWine("", e2e.WineProgram("ask-confirm-askpass.exe"), prompt)
	}()
	h.ClickButton(e2e.AskpassTitle, "Allow")
	wg.Wait()
	if code != 0 || stdout != "" {
		t.Fatalf("askpass: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}

	project := h.Title("W-hook")
	payload, err := json.Marshal(map[string]any{
		"session_id": "wine-e2e", "transcript_path": nil, "cwd": `C:\src\` + project,
		"hook_event_name": "PermissionRequest", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git push origin main", "description": "Push the release"},
	})
	e2e.Must(t, err)
	title := "Claude Code: Bash in " + project
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, stdout, stderr = h.RunWine(string(payload), h.Exe, "hook", "claude-code", "--wait", "60s")
	}()
	h.ClickButton(title, "Allow")
	wg.Wait()
	if code != 0 || !strings.Contains(stdout, `"behavior":"allow"`) {
		t.Fatalf("hook: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
