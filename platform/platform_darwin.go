package platform

import "github.com/ask-confirm/ask-confirm/platform/darwin"

func markInheritedCloseOnExec() error { return darwin.MarkInheritedCloseOnExec() }

func detect() Session {
	if ok, reason := darwin.GUISession(); !ok {
		return Session{Reason: reason, Backend: "osascript"}
	}
	return Session{CanAsk: true, Backend: "osascript"}
}
