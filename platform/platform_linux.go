package platform

import (
	"os"

	"github.com/ask-confirm/ask-confirm/platform/linux"
)

func markInheritedCloseOnExec() error { return linux.MarkInheritedCloseOnExec() }

func detect() Session {
	name, _ := linux.DialogProgram()
	if name == "" {
		return Session{Reason: "no dialog program found on PATH (install zenity, qarma or matedialog)"}
	}
	if ok, reason := linux.Display(os.Getenv); !ok {
		return Session{Reason: reason, Backend: name}
	}
	return Session{CanAsk: true, Backend: name}
}
