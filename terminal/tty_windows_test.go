package terminal

import "testing"

// Alt with a key is dropped on the console too; AltGr (Ctrl and Alt)
// types characters that count.
func TestAltOnly(t *testing.T) {
	for state, want := range map[uint32]bool{
		0:               false,
		0x0002:          true,  // left Alt
		0x0001:          true,  // right Alt
		0x0001 | 0x0008: false, // AltGr: right Alt and left Ctrl
		0x0008:          false, // Ctrl
		0x0010:          false, // Shift
		0x0002 | 0x0010: true,  // Alt and Shift
		0x0020 | 0x0002: true,  // Num Lock on, Alt
	} {
		if got := altOnly(state); got != want {
			t.Errorf("altOnly(%#x) = %v, want %v", state, got, want)
		}
	}
}
