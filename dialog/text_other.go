//go:build windows || darwin

package dialog

// On macOS and Windows a list's and an entry's text is shown as it is.

func listText(s string) string  { return s }
func entryText(s string) string { return s }
