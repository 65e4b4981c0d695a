//go:build windows && e2e

// Command inspect prints, as JSON lines, the visible top-level windows
// titled as its argument and each of their controls: class, text, and the
// rectangle on the screen. The Wine tests run it, as a Windows program in
// the same Wine as the dialogs, to read what a dialog says and where its
// buttons are, so that the pointer can click them as a person would.
//
//	inspect TITLE
//	inspect -shot FILE.png TITLE   also saves a picture of the first window
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	user32            = windows.NewLazySystemDLL("user32.dll")
	procGetWindowRect = user32.NewProc("GetWindowRect")
	procGetWindowText = user32.NewProc("GetWindowTextW")
	procGetTextLength = user32.NewProc("GetWindowTextLengthW")
	procIsVisible     = user32.NewProc("IsWindowVisible")
	procGetDlgCtrlID  = user32.NewProc("GetDlgCtrlID")
)

// Control is one window: a dialog, or a control in it.
type Control struct {
	Window bool   `json:"window,omitempty"`
	Class  string `json:"class"`
	Text   string `json:"text"`
	ID     int    `json:"id"`
	Left   int32  `json:"left"`
	Top    int32  `json:"top"`
	Right  int32  `json:"right"`
	Bottom int32  `json:"bottom"`
}

func describe(h windows.HWND) Control {
	var c Control
	name := make([]uint16, 256)
	if n, err := windows.GetClassName(h, &name[0], int32(len(name))); err == nil {
		c.Class = windows.UTF16ToString(name[:n])
	}
	n, _, _ := procGetTextLength.Call(uintptr(h))
	text := make([]uint16, n+1)
	procGetWindowText.Call(uintptr(h), uintptr(unsafe.Pointer(&text[0])), uintptr(len(text)))
	c.Text = windows.UTF16ToString(text)
	id, _, _ := procGetDlgCtrlID.Call(uintptr(h))
	c.ID = int(int32(id))
	var r windows.Rect
	procGetWindowRect.Call(uintptr(h), uintptr(unsafe.Pointer(&r)))
	c.Left, c.Top, c.Right, c.Bottom = r.Left, r.Top, r.Right, r.Bottom
	return c
}

func main() {
	args := os.Args[1:]
	shot := ""
	if len(args) == 3 && args[0] == "-shot" {
		shot, args = args[1], args[2:]
	}
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: inspect [-shot FILE.png] TITLE")
		os.Exit(2)
	}
	title := args[0]
	out := json.NewEncoder(os.Stdout)
	var tops []windows.HWND
	windows.EnumWindows(syscall.NewCallback(func(h windows.HWND, _ uintptr) uintptr {
		if v, _, _ := procIsVisible.Call(uintptr(h)); v != 0 && describe(h).Text == title {
			tops = append(tops, h)
		}
		return 1
	}), nil)
	if shot != "" && len(tops) > 0 {
		if err := picture(describe(tops[0]), shot); err != nil {
			fmt.Fprintln(os.Stderr, "inspect:", err)
			os.Exit(1)
		}
	}
	for _, top := range tops {
		c := describe(top)
		c.Window = true
		out.Encode(c)
		windows.EnumChildWindows(top, syscall.NewCallback(func(h windows.HWND, _ uintptr) uintptr {
			if v, _, _ := procIsVisible.Call(uintptr(h)); v != 0 {
				out.Encode(describe(h))
			}
			return 1
		}), nil)
	}
}
