package platform

import "golang.org/x/sys/unix"

// processName asks the kernel for the process's name (its p_comm: the
// program's file name, cut to 16 bytes).
func processName(pid int) string {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return ""
	}
	return unix.ByteSliceToString(kp.Proc.P_comm[:])
}
