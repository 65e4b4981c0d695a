package platform

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processName finds the process's executable name in a snapshot of the
// running processes, without its .exe.
func processName(pid int) string {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(snap)
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if int(e.ProcessID) == pid {
			name := windows.UTF16ToString(e.ExeFile[:])
			return strings.TrimSuffix(strings.TrimSuffix(name, ".exe"), ".EXE")
		}
	}
	return ""
}
