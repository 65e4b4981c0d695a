package terminal

import (
	"errors"
	"fmt"
	"os"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sys/windows"
)

// consoleDevice is the console this process is attached to, opened as
// CONIN$ and CONOUT$ for the prompt. Keys are read as console input
// records rather than with ReadFile, which would block on events that
// carry no character (key releases, focus, resizes) past the prompt's
// deadline.
type consoleDevice struct {
	wallClock
	in, out windows.Handle
	// pending holds the high half of a surrogate pair until its low half.
	pending uint16
}

var (
	kernel32              = windows.NewLazySystemDLL("kernel32.dll")
	procReadConsoleInputW = kernel32.NewProc("ReadConsoleInputW")
	procGetConsoleWindow  = kernel32.NewProc("GetConsoleWindow")
)

// inputRecord is INPUT_RECORD with its KEY_EVENT_RECORD: the largest
// member of its union, 16 bytes, after the 2-byte type and 2 of padding.
type inputRecord struct {
	eventType       uint16
	_               uint16
	keyDown         int32
	repeatCount     uint16
	virtualKeyCode  uint16
	virtualScanCode uint16
	unicodeChar     uint16
	controlKeyState uint32
}

// altOnly reports whether a key was pressed with Alt and without Ctrl:
// Alt with a key, which the prompt drops, as the decoder drops ESC and a
// key on Unix (Alt-y is not y). AltGr, which types characters of its own
// (@, €), is Ctrl and Alt together, and counts.
func altOnly(controlKeyState uint32) bool {
	const (
		alt  = 0x0001 | 0x0002 // RIGHT_ALT_PRESSED, LEFT_ALT_PRESSED
		ctrl = 0x0004 | 0x0008 // RIGHT_CTRL_PRESSED, LEFT_CTRL_PRESSED
	)
	return controlKeyState&alt != 0 && controlKeyState&ctrl == 0
}

func open() (*Terminal, error) {
	in, err := openConsole("CONIN$")
	if err != nil {
		return nil, fmt.Errorf("%w: "+msgNoConsole, ErrNoTerminal, err)
	}
	out, err := openConsole("CONOUT$")
	if err != nil {
		windows.CloseHandle(in)
		return nil, fmt.Errorf("%w: "+msgNoConsole, ErrNoTerminal, err)
	}
	if !personsConsole() {
		windows.CloseHandle(in)
		windows.CloseHandle(out)
		return nil, fmt.Errorf("%w: "+msgNotOnStdio, ErrNoTerminal, "console")
	}
	d := &consoleDevice{in: in, out: out}
	id := "console"
	if hwnd, _, _ := procGetConsoleWindow.Call(); hwnd != 0 {
		id = fmt.Sprintf("console-%x", hwnd)
	}
	return &Terminal{
		dev: d,
		close: func() error {
			return errors.Join(windows.CloseHandle(in), windows.CloseHandle(out))
		},
		name:   "console",
		lockID: id,
	}, nil
}

func openConsole(name string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, err
	}
	return windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
}

// personsConsole reports whether one of stdin, stdout and stderr is the
// console: see personsStream on Unix.
func personsConsole() bool {
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		var mode uint32
		if f != nil && windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil {
			return true
		}
	}
	return false
}

func (d *consoleDevice) Write(p []byte) (int, error) {
	u := utf16.Encode([]rune(string(p)))
	for len(u) > 0 {
		var n uint32
		if err := windows.WriteConsole(d.out, &u[0], uint32(len(u)), &n, nil); err != nil {
			return 0, err
		}
		u = u[n:]
	}
	return len(p), nil
}

func (d *consoleDevice) read(p []byte) (int, error) {
	ev, err := windows.WaitForSingleObject(d.in, uint32(readTick.Milliseconds()))
	switch {
	case err != nil:
		return 0, err
	case ev != windows.WAIT_OBJECT_0:
		return 0, nil
	}
	var recs [16]inputRecord
	var got uint32
	r, _, err := procReadConsoleInputW.Call(uintptr(d.in), uintptr(unsafe.Pointer(&recs[0])), uintptr(len(recs)), uintptr(unsafe.Pointer(&got)))
	if r == 0 {
		return 0, err
	}
	n := 0
	for _, rec := range recs[:got] {
		if rec.eventType != windows.KEY_EVENT || rec.keyDown == 0 || rec.unicodeChar == 0 || altOnly(rec.controlKeyState) {
			continue
		}
		c := rec.unicodeChar
		var s string
		switch {
		case utf16.IsSurrogate(rune(c)) && c < 0xdc00:
			d.pending = c
			continue
		case utf16.IsSurrogate(rune(c)):
			s = string(utf16.DecodeRune(rune(d.pending), rune(c)))
			d.pending = 0
		default:
			s = string(rune(c))
		}
		for range max(1, int(rec.repeatCount)) {
			if n+utf8.UTFMax > len(p) {
				break
			}
			n += copy(p[n:], s)
		}
	}
	return n, nil
}

func (d *consoleDevice) raw() (func() error, error) {
	var inMode, outMode uint32
	if err := windows.GetConsoleMode(d.in, &inMode); err != nil {
		return nil, err
	}
	if err := windows.GetConsoleMode(d.out, &outMode); err != nil {
		return nil, err
	}
	// Without processed input Ctrl-C is a key, not a signal; without line
	// input and echo every key arrives as it is pressed, unechoed.
	raw := inMode &^ (windows.ENABLE_LINE_INPUT | windows.ENABLE_ECHO_INPUT | windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_VIRTUAL_TERMINAL_INPUT)
	if err := windows.SetConsoleMode(d.in, raw); err != nil {
		return nil, err
	}
	// The prompt clears its line with an escape sequence.
	_ = windows.SetConsoleMode(d.out, outMode|windows.ENABLE_PROCESSED_OUTPUT|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING)
	_ = windows.FlushConsoleInputBuffer(d.in)
	return func() error {
		return errors.Join(windows.SetConsoleMode(d.in, inMode), windows.SetConsoleMode(d.out, outMode))
	}, nil
}

func (d *consoleDevice) discard() error { return windows.FlushConsoleInputBuffer(d.in) }

func (d *consoleDevice) width() int {
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(d.out, &info) != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}

func (d *consoleDevice) height() int {
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(d.out, &info) != nil {
		return 0
	}
	return int(info.Window.Bottom-info.Window.Top) + 1
}

// onSignal does nothing on Windows: with processed input off, Ctrl-C
// reaches the prompt as a key, and Ctrl-Break or closing the console ends
// the console with the process; a shell sets its console's mode again
// before it reads a line.
func onSignal(func()) (stop func()) { return func() {} }
