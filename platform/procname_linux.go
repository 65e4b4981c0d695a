package platform

import (
	"os"
	"strconv"
	"strings"
)

// processName reads the kernel's name of the process (its comm: the
// program's file name, cut to 15 bytes).
func processName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
