//go:build windows

// Package windows holds the Windows bodies behind package platform. Its
// pure decisions (decide.go) build on every OS, so their tests run
// everywhere; everything that touches the system is in this file, Windows
// only.
package windows

import (
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The calls golang.org/x/sys/windows does not wrap.
var (
	kernel32                     = windows.NewLazySystemDLL("kernel32.dll")
	user32                       = windows.NewLazySystemDLL("user32.dll")
	procIsProcessInJob           = kernel32.NewProc("IsProcessInJob")
	procGetProcessWindowStation  = user32.NewProc("GetProcessWindowStation")
	procGetUserObjectInformation = user32.NewProc("GetUserObjectInformationW")
	procAllowSetForegroundWindow = user32.NewProc("AllowSetForegroundWindow")
)

// GetUserObjectInformation's information classes.
const (
	uoiFlags = 1
	uoiName  = 2
)

// CurrentJob queries the job object this process belongs to.
func CurrentJob() Job {
	var in int32
	r, _, _ := procIsProcessInJob.Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		return Job{}
	}
	if in == 0 {
		return Job{Known: true}
	}
	// A nil job handle names the calling process's own job.
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	err := windows.QueryInformationJobObject(0, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	if err != nil {
		return Job{In: true}
	}
	return Job{Known: true, In: true, LimitFlags: info.BasicLimitInformation.LimitFlags}
}

// currentStation reads this process's session and window station.
func currentStation() Station {
	var s Station
	if err := windows.ProcessIdToSessionId(windows.GetCurrentProcessId(), &s.Session); err == nil {
		s.SessionKnown = true
	}
	h, _, _ := procGetProcessWindowStation.Call()
	if h == 0 {
		return s
	}
	var flags struct {
		inherit, reserved int32
		flags             uint32
	}
	var needed uint32
	r, _, _ := procGetUserObjectInformation.Call(h, uoiFlags, uintptr(unsafe.Pointer(&flags)), unsafe.Sizeof(flags), uintptr(unsafe.Pointer(&needed)))
	if r == 0 {
		return s
	}
	s.Known, s.Flags = true, flags.flags
	var name [256]uint16
	r, _, _ = procGetUserObjectInformation.Call(h, uoiName, uintptr(unsafe.Pointer(&name[0])), unsafe.Sizeof(name), uintptr(unsafe.Pointer(&needed)))
	if r != 0 {
		s.Name = windows.UTF16ToString(name[:])
	}
	return s
}

// Detect judges whether a dialog this process opens would reach a person.
func Detect() Verdict { return judgeStation(currentStation()) }

// HolderDir is the working directory for a holder: the Windows directory,
// which is always there and never deleted, so the holder keeps no caller's
// directory in use (Windows refuses to remove a directory a process runs
// in).
func HolderDir() string {
	if dir, err := windows.GetSystemWindowsDirectory(); err == nil && dir != "" {
		return dir
	}
	if dir := os.Getenv("SystemRoot"); dir != "" {
		return dir
	}
	if dir, err := os.UserHomeDir(); err == nil {
		return dir
	}
	return `C:\`
}

// AllowForeground lets process pid bring its window to the front. Windows
// lets only the foreground process, or one it allows, take the foreground;
// a caller started from the foreground console can pass that on to the
// holder, whose dialog asks for the foreground (MB_SETFOREGROUND). It does
// nothing where the caller has no such right.
func AllowForeground(pid int) {
	_, _, _ = procAllowSetForegroundWindow.Call(uintptr(uint32(pid)))
}

// OSVersion returns the Windows version, as "Windows 10.0.22631".
func OSVersion() string {
	v := windows.RtlGetVersion()
	u := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	return "Windows " + u(v.MajorVersion) + "." + u(v.MinorVersion) + "." + u(v.BuildNumber)
}
