//go:build windows

// Package windows holds the Windows bodies behind package platform.
package windows

import (
	"golang.org/x/sys/windows"
)

// CreationFlags returns the process creation flags for a detached holder:
// no console, and its own process group so a Ctrl+C in the caller's console
// does not reach it.
func CreationFlags() uint32 {
	return windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP
}

// Interactive reports whether this process runs in an interactive session. Session 0 holds
// services, where no person sees a window.
func Interactive() (ok bool, reason string) {
	var session uint32
	if err := windows.ProcessIdToSessionId(windows.GetCurrentProcessId(), &session); err != nil {
		return false, "cannot tell the Windows session: " + err.Error()
	}
	if session == 0 {
		return false, "running in session 0 (a service): no person can see a dialog from here"
	}
	return true, ""
}
