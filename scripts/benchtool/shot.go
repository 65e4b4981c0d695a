package main

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"time"
)

// screenshot shows the README's question through ask-confirm, on the X
// display, and writes the dialog's window as a PNG to path (scripts/
// screenshot): the picture is the real dialog, drawn by the real zenity.
func (b *bench) screenshot(path string) error {
	ce, err := b.newEnv("screenshot")
	if err != nil {
		return err
	}
	defer b.cancelAll(ce)
	const title = "Deploy"
	// Asked as a person's script would ask: deploy.sh, run in ~/src/app, so
	// that the line under the question reads "Asked by deploy.sh in
	// ~/src/app", as the README describes it.
	home := filepath.Join(b.work, "screenshot", "home")
	app := filepath.Join(home, "src", "app")
	script := filepath.Join(app, "deploy.sh")
	if err := os.MkdirAll(app, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\n\"$ASK_CONFIRM\" --title "+title+" --message 'Ship v2 to production?' --wait 60s\n"), 0o700); err != nil {
		return err
	}
	since := time.Now()
	p, err := start(app, append(ce.environ(), "HOME="+home, "ASK_CONFIRM="+b.bin), script)
	if err != nil {
		return err
	}
	defer p.kill()
	w, err := b.x.waitFor(title, true, since, 30*time.Second)
	if err != nil {
		return err
	}
	// GTK maps the window before it has drawn all of it.
	time.Sleep(1500 * time.Millisecond)
	img, err := b.x.windowImage(w.Win)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// windowImage reads the window's pixels: GetGeometry for its size, then
// GetImage in ZPixmap format, which a 24-bit TrueColor screen (Xvfb's
// -screen 0 WxHx24) sends as 32 bits a pixel, blue first.
func (x *xconn) windowImage(win uint32) (*image.RGBA, error) {
	req := make([]byte, 8)
	req[0] = 14 // GetGeometry
	put16(req[2:], 2)
	put32(req[4:], win)
	rep, err := x.call(req, true)
	if err != nil {
		return nil, err
	}
	w, h := int(binary.LittleEndian.Uint16(rep[16:18])), int(binary.LittleEndian.Uint16(rep[18:20]))
	req = make([]byte, 20)
	req[0], req[1] = 73, 2 // GetImage, ZPixmap
	put16(req[2:], 5)
	put32(req[4:], win)
	put16(req[12:], uint16(w))
	put16(req[14:], uint16(h))
	put32(req[16:], 0xffffffff)
	rep, err = x.call(req, true)
	if err != nil {
		return nil, err
	}
	if depth, data := rep[1], rep[32:]; depth != 24 || len(data) < 4*w*h {
		return nil, fmt.Errorf("GetImage gave depth %d and %d bytes for %dx%d; want a 24-bit screen", depth, len(data), w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		px := rep[32+4*i:]
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = px[2], px[1], px[0], 0xff
	}
	return img, nil
}
