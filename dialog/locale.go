package dialog

import (
	"os"
	"runtime"
	"strings"
	"sync"
)

// utf8Locale makes sure the dialog program reads its arguments as UTF-8.
// GTK's option parser converts them from the locale's encoding, so under
// the C locale, which MCP hosts and daemons often start programs with,
// any text outside ASCII (a name, the origin line's "·") makes zenity
// refuse to start ("This option is not available"). Where the locale is
// not UTF-8, this process, and so the dialog program it starts, uses
// C.UTF-8. macOS and Windows pass text in other ways.
var utf8Locale = sync.OnceFunc(func() {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return
	}
	if !isUTF8Locale(os.Getenv) {
		os.Setenv("LC_ALL", "C.UTF-8")
	}
})

// isUTF8Locale reports whether the locale that getenv describes
// (LC_ALL, else LC_CTYPE, else LANG, as POSIX orders them) is UTF-8.
func isUTF8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}
