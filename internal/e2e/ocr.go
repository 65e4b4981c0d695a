//go:build e2e && unix

package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Reading what a dialog shows, from its pixels: ask-confirm promises that
// what the person sees is what they approve, and the arguments it passes
// zenity cannot prove that. A window wider than the screen, or a line that
// GTK never wraps, shows less than zenity was given. So these helpers take
// the screen's pixels with xwd, crop them to the part of a window that is
// on the screen, and read them with tesseract, as a person would read
// them; and they check that the window would fit on the smallest screen
// ask-confirm promises to fit, 1024x768.

// SmallScreen is the smallest screen whose dialogs must fit whole.
var SmallScreen = image.Rect(0, 0, 1024, 768)

// NeedOCR fails the test when ASK_CONFIRM_E2E=require and tesseract, or
// its English data, is missing (scripts/test installs tesseract-ocr), and
// skips it otherwise.
func NeedOCR(t *testing.T) {
	t.Helper()
	var missing []string
	if _, err := exec.LookPath("tesseract"); err == nil {
		out, _ := exec.Command("tesseract", "--list-langs").CombinedOutput()
		if !strings.Contains("\n"+string(out)+"\n", "\neng\n") {
			missing = append(missing, "tesseract's English data (tesseract-ocr-eng)")
		}
	}
	needTools(t, "a test that reads the screen", "run scripts/test, which installs tesseract-ocr", missing, "tesseract", "xwd", "xdotool")
}

// Reading is what a person sees of one window: where it is, and the text
// that tesseract read on the part of it that is on the screen.
type Reading struct {
	Window  image.Rectangle // where the window is, on the X screen
	Screen  image.Rectangle // the X screen
	Text    string          // the text read on the window's visible part
	Buttons string          // the text read on its bottom strip, the button row
	Passes  int             // how many times tesseract read the screenshot, the strip's included
	Took    time.Duration   // how long the screenshot and the reading took
	shot    *image.Gray     // the visible part as the first pass read it, for a failure's record
}

// ReadWindow takes a screenshot of window w and reads the part of it that
// is on the screen, whole and then its bottom 56 pixels (GTK puts zenity's
// buttons, about 34 pixels tall, 12 from the bottom edge): OCR finds the
// short labels of a row of buttons more reliably on their own than amid a
// page of text. Only the part on the screen: xwd clips a window to the
// screen's edges, as a person's eyes do.
//
// Where a word of words is not read in the text, or a label of labels in
// the button row, it reads that part again, enlarged by another factor
// and in another page segmentation mode (textPasses, labelPasses), and
// the reading holds every pass's text. No one pass reads every screen
// right: enlarged 3 times, every mode read "~/hacksaw" at the end of a
// line of "x⟨U+034F⟩" as "~/nacksaw", which 2, 4 and 5 times read right;
// and psm 4 read "bystander" under a line of combining marks as
// "oystander", which psm 6 and 11 read right. A further pass only finds
// what is on the screen: OCR does not make up a word.
func (h *Harness) ReadWindow(w string, words, labels []string) Reading {
	h.T.Helper()
	start := time.Now()
	geo := h.Geometry(w)
	rd := Reading{Window: image.Rect(geo["X"], geo["Y"], geo["X"]+geo["WIDTH"], geo["Y"]+geo["HEIGHT"])}
	screen := strings.Fields(Xdotool(h.T, "getdisplaygeometry"))
	if len(screen) != 2 {
		h.T.Fatalf("xdotool getdisplaygeometry printed %q", screen)
	}
	sw, errW := strconv.Atoi(screen[0])
	sh, errH := strconv.Atoi(screen[1])
	if errW != nil || errH != nil {
		h.T.Fatalf("xdotool getdisplaygeometry printed %q", screen)
	}
	rd.Screen = image.Rect(0, 0, sw, sh)
	visible := rd.Window.Intersect(rd.Screen)
	if visible.Empty() {
		rd.Took = time.Since(start)
		return rd
	}
	out, err := exec.Command("xwd", "-silent", "-id", w).Output()
	if err != nil {
		h.T.Fatalf("xwd -id %s: %v", w, err)
	}
	shot, err := parseXWD(out)
	if err != nil {
		h.T.Fatalf("xwd -id %s: %v", w, err)
	}
	// The dump's pixels, in its own coordinates, that are on the screen.
	var part image.Rectangle
	switch {
	case shot.width == visible.Dx() && shot.height == visible.Dy():
		part = image.Rect(0, 0, shot.width, shot.height)
	case shot.width == rd.Window.Dx() && shot.height == rd.Window.Dy():
		part = visible.Sub(rd.Window.Min)
	default:
		h.T.Fatalf("xwd -id %s dumped %dx%d pixels of a %dx%d window whose part on the screen is %dx%d",
			w, shot.width, shot.height, rd.Window.Dx(), rd.Window.Dy(), visible.Dx(), visible.Dy())
	}
	var n int
	rd.Text, rd.shot, rd.Passes = h.readUntil(shot, part, textPasses, words)
	strip := part
	strip.Min.Y = max(strip.Min.Y, strip.Max.Y-56)
	rd.Buttons, _, n = h.readUntil(shot, strip, labelPasses, labels)
	rd.Passes += n
	rd.Took = time.Since(start)
	return rd
}

// ocrPass is one reading of a screenshot: enlarged scale times (tesseract
// reads text best 20 to 30 pixels high, and GTK's is about 10), with page
// segmentation mode psm: 4, a column of lines of several sizes, which
// read a dialog's lines of random characters best; 6, one block of text;
// 7, one line; 11, sparse text, wherever it is.
type ocrPass struct {
	scale int
	psm   string
}

// The passes ReadWindow reads a window's text and its button row in, in
// turn, until it has read what it looks for.
var (
	textPasses  = []ocrPass{{3, "4"}, {2, "4"}, {4, "6"}, {3, "11"}}
	labelPasses = []ocrPass{{3, "6"}, {2, "7"}, {4, "11"}}
)

// readUntil reads the part r of shot in each of passes in turn until every
// word of want has been read. It returns the texts read, each pass's after
// a line that names it, the image of the first pass, and how many passes
// it took.
func (h *Harness) readUntil(shot *xwdImage, r image.Rectangle, passes []ocrPass, want []string) (string, *image.Gray, int) {
	h.T.Helper()
	var texts []string
	var first *image.Gray
	for _, p := range passes {
		img := shot.gray(r, p.scale)
		if first == nil {
			first = img
		}
		texts = append(texts, fmt.Sprintf("[%dx, psm %s]\n%s", p.scale, p.psm, h.ocr(img, p)))
		all := Squash(strings.Join(texts, "\n"))
		missing := false
		for _, word := range want {
			missing = missing || !strings.Contains(all, Squash(word))
		}
		if !missing {
			break
		}
	}
	return strings.Join(texts, "\n"), first, len(texts)
}

// ocr returns the text tesseract reads on img, an image of pass p. The image
// goes to tesseract as a PGM, a header and the pixels: PNG's compression
// took a second a screenshot under the race detector.
func (h *Harness) ocr(img *image.Gray, p ocrPass) string {
	h.T.Helper()
	f, err := os.CreateTemp(h.Dir, "screen-*.pgm")
	Must(h.T, err)
	defer os.Remove(f.Name())
	b := bufio.NewWriter(f)
	fmt.Fprintf(b, "P5\n%d %d\n255\n", img.Rect.Dx(), img.Rect.Dy())
	for y := range img.Rect.Dy() {
		b.Write(img.Pix[y*img.Stride : y*img.Stride+img.Rect.Dx()])
	}
	Must(h.T, b.Flush())
	Must(h.T, f.Close())
	c := exec.Command("tesseract", f.Name(), "stdout", "--psm", p.psm, "--dpi", strconv.Itoa(96*p.scale), "-l", "eng")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	// One thread: tesseract's OpenMP threads spin on a loaded machine.
	c.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := c.Output()
	if err != nil {
		h.T.Fatalf("tesseract: %v\n%s", err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// gray returns the part r of the screenshot enlarged scale times, in
// black and white. Enlarged by interpolation, not by repeating pixels:
// tesseract reads the staircase edges of repeated pixels as noise (of a
// dialog's lines of 64 random characters it read 30% right that way, 95%
// this way). In black and white, at the grey that best splits
// the screenshot's two kinds of pixel (Otsu's threshold): GTK's text is
// antialiased, and its grey edges made tesseract merge lines. In integers,
// a row across and then between rows: scripts/test runs the race
// detector, which slows each read of memory.
func (m *xwdImage) gray(r image.Rectangle, scale int) *image.Gray {
	w, h := r.Dx(), r.Dy()
	lum := make([]int32, w*h)
	var hist [256]int
	for y := range h {
		for x := range w {
			red, green, blue := m.rgb(r.Min.X+x, r.Min.Y+y)
			l := (299*red + 587*green + 114*blue) / 1000
			lum[y*w+x] = int32(l)
			hist[l]++
		}
	}
	// The i-th of the scale samples of a pixel lies (2i+1-scale)/(2 scale)
	// pixels from the pixel's centre; d is that denominator. Rows are
	// enlarged across first, then between rows: half the reads of doing
	// both at each pixel.
	d := int32(2 * scale)
	cut := int32(Otsu(hist[:], w*h) * float64(d*d))
	taps := func(n int) (lo, hi, frac []int32) {
		lo, hi, frac = make([]int32, n*scale), make([]int32, n*scale), make([]int32, n*scale)
		for i := range lo {
			at := max(0, int32(2*i+1-scale))
			lo[i], frac[i] = at/d, at%d
			hi[i] = min(lo[i]+1, int32(n-1))
		}
		return lo, hi, frac
	}
	xLo, xHi, xFrac := taps(w)
	yLo, yHi, yFrac := taps(h)
	wide := make([]int32, h*w*scale) // each row enlarged across, times d
	for y := range h {
		row, out := lum[y*w:(y+1)*w], wide[y*w*scale:(y+1)*w*scale]
		for i := range out {
			out[i] = row[xLo[i]]*(d-xFrac[i]) + row[xHi[i]]*xFrac[i]
		}
	}
	img := image.NewGray(image.Rect(0, 0, w*scale, h*scale))
	for oy := range h * scale {
		top, bottom := wide[int(yLo[oy])*w*scale:], wide[int(yHi[oy])*w*scale:]
		f := yFrac[oy]
		out := img.Pix[oy*img.Stride : oy*img.Stride+w*scale]
		for i := range out {
			if top[i]*(d-f)+bottom[i]*f > cut {
				out[i] = 255
			}
		}
	}
	return img
}

// Otsu returns the grey level that splits a histogram of n pixels into
// two classes with the largest variance between them.
func Otsu(hist []int, n int) float64 {
	sum := 0.0
	for i, c := range hist {
		sum += float64(i * c)
	}
	best, at, sumB, wB := -1.0, 127.0, 0.0, 0
	for i, c := range hist {
		wB += c
		if wB == 0 || wB == n {
			continue
		}
		sumB += float64(i * c)
		mB, mF := sumB/float64(wB), (sum-sumB)/float64(n-wB)
		if v := float64(wB) * float64(n-wB) * (mB - mF) * (mB - mF); v > best {
			best, at = v, float64(i)+0.5
		}
	}
	return at
}

// Shows reports whether the reading holds word: in the text read, in any
// pass, with case and the spaces OCR puts in or leaves out ignored, so that
// a word hard-wrapped across two lines, or read as "zebra cake", counts.
func (rd Reading) Shows(word string) bool {
	return strings.Contains(Squash(rd.Text), Squash(word))
}

// Squash is s in lower case without its spaces, as words read by OCR are
// compared: OCR puts spaces in and leaves them out ("zebra cake").
func Squash(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), ""))
}

// Problems returns what keeps the person from seeing the window's tail and
// answering it: the window not within the X screen, too large for
// SmallScreen, the word tail not read on the screen, a button label not
// read in the button row. None means the screen shows them all.
func (rd Reading) Problems(tail string, buttons ...string) []string {
	var ps []string
	if !rd.Window.In(rd.Screen) {
		ps = append(ps, fmt.Sprintf("the window, %dx%d at %d,%d, does not lie within the %dx%d screen",
			rd.Window.Dx(), rd.Window.Dy(), rd.Window.Min.X, rd.Window.Min.Y, rd.Screen.Dx(), rd.Screen.Dy()))
	}
	if rd.Window.Dx() > SmallScreen.Dx() || rd.Window.Dy() > SmallScreen.Dy() {
		ps = append(ps, fmt.Sprintf("the window, %dx%d, is larger than a %dx%d screen",
			rd.Window.Dx(), rd.Window.Dy(), SmallScreen.Dx(), SmallScreen.Dy()))
	}
	if !rd.Shows(tail) {
		ps = append(ps, fmt.Sprintf("the tail word %q is not read on the screen", tail))
	}
	for _, b := range buttons {
		if !strings.Contains(Squash(rd.Buttons), Squash(b)) {
			ps = append(ps, fmt.Sprintf("the button %q is not read in the window's bottom row", b))
		}
	}
	return ps
}

// Report is a reading for a failure's message: where the window was, and
// what was read, whole. With ASK_CONFIRM_SCREENSHOTS naming a directory,
// the screenshot read is kept there, as NAME.png.
func (rd Reading) Report(t *testing.T, name string) string {
	t.Helper()
	if rd.Window.Empty() {
		return "no window was read"
	}
	kept := "\n(set ASK_CONFIRM_SCREENSHOTS to a directory to keep the screenshot read)"
	if dir := os.Getenv("ASK_CONFIRM_SCREENSHOTS"); dir != "" && rd.shot != nil {
		file := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".png")
		var b bytes.Buffer
		Must(t, png.Encode(&b, rd.shot))
		Must(t, os.WriteFile(file, b.Bytes(), 0o644))
		kept = "\nthe screenshot read (enlarged, in black and white): " + file
	}
	return fmt.Sprintf("the window: %dx%d at %d,%d on a %dx%d screen; read in %s, %d passes\nthe text read on the screen:\n%s\nthe text read in the bottom row: %q%s",
		rd.Window.Dx(), rd.Window.Dy(), rd.Window.Min.X, rd.Window.Min.Y, rd.Screen.Dx(), rd.Screen.Dy(),
		rd.Took.Round(time.Millisecond), rd.Passes, indent(rd.Text), rd.Buttons, kept)
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
