//go:build e2e && unix

package e2e

import (
	"encoding/binary"
	"fmt"
	"os/exec"
	"testing"
)

// RowSelected reports whether window w shows a selected row: a band, at
// least 12 pixels tall, of rows of pixels that are mostly the blue in which
// GTK 3's default theme (Adwaita) paints a list's selected row (#3584e4).
// It reads the window's pixels with xwd, so that a test can see that a key
// took effect before it presses the next one: GTK now and then drops a key
// that comes as its window takes the focus, and a list's Return with no
// row selected is an answer (no choice), not something to retry.
func RowSelected(t *testing.T, w string) bool {
	t.Helper()
	out, err := exec.Command("xwd", "-silent", "-id", w).Output()
	if err != nil {
		t.Fatalf("xwd -id %s: %v", w, err)
	}
	img, err := parseXWD(out)
	if err != nil {
		t.Fatalf("xwd -id %s: %v", w, err)
	}
	band := 0
	for y := 0; y < img.height; y++ {
		blue := 0
		for x := 0; x < img.width; x++ {
			r, g, b := img.rgb(x, y)
			if b > r+80 && b > g+40 {
				blue++
			}
		}
		if 2*blue > img.width {
			band++
			if band >= 12 {
				return true
			}
		} else {
			band = 0
		}
	}
	return false
}

// xwdImage is the pixels of a TrueColor window dump, 32 bits a pixel with
// red, green and blue a byte each (Xvfb's 24-bit screen), in the X Window
// Dump format (XWDFileHeader, version 7), as xwd writes it.
type xwdImage struct {
	width, height, stride int
	lsbFirst              bool
	pixels                []byte
}

func parseXWD(b []byte) (*xwdImage, error) {
	const headerWords = 25
	if len(b) < 4*headerWords {
		return nil, fmt.Errorf("a dump of %d bytes is shorter than its header", len(b))
	}
	// The header is big-endian whatever the machine's byte order.
	word := func(i int) int { return int(binary.BigEndian.Uint32(b[4*i:])) }
	headerSize, version, format := word(0), word(1), word(2)
	width, height, byteOrder := word(4), word(5), word(7)
	bitsPerPixel, stride, class, redMask, colors := word(11), word(12), word(13), word(14), word(19)
	if version != 7 || format != 2 || bitsPerPixel != 32 || class != 4 || redMask != 0xff0000 {
		return nil, fmt.Errorf("version %d, format %d, %d bits a pixel, visual class %d, red mask %#x; want version 7, ZPixmap (2), 32 bits, TrueColor (4), 0xff0000",
			version, format, bitsPerPixel, class, redMask)
	}
	start := headerSize + 12*colors
	if start < 0 || width <= 0 || height <= 0 || stride < 4*width || start+stride*height > len(b) {
		return nil, fmt.Errorf("%dx%d pixels, %d bytes a line, from byte %d, do not fit in %d bytes", width, height, stride, start, len(b))
	}
	return &xwdImage{width: width, height: height, stride: stride, lsbFirst: byteOrder == 0, pixels: b[start:]}, nil
}

func (m *xwdImage) rgb(x, y int) (r, g, b int) {
	p := m.pixels[y*m.stride+4*x:]
	if m.lsbFirst {
		return int(p[2]), int(p[1]), int(p[0])
	}
	return int(p[1]), int(p[2]), int(p[3])
}
