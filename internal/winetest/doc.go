// Package winetest holds the end-to-end tests of the Windows build, run
// under Wine (build tags e2e and linux): ask-confirm.exe, its holder and
// its real Win32 dialogs, which Wine draws on an X server of the tests'
// own, where the pointer answers them as a person would. inspect is the
// Windows program the tests read a dialog's controls with.
//
// Wine is not Windows: a pass says that the Windows code paths (Win32
// dialogs, the detached holder, LockFileEx, the store on a Windows path)
// work as Wine implements them.
package winetest
