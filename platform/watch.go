package platform

import "sync"

// watches holds this process's Watch on each path: one shared lock however
// many callers in the process wait on the same request, as the MCP server's
// calls do.
var watches = struct {
	sync.Mutex
	m map[string]*watchEntry
}{m: make(map[string]*watchEntry)}

type watchEntry struct {
	n       int
	release func()
}

func watch(path string) (func(), error) {
	watches.Lock()
	defer watches.Unlock()
	w, ok := watches.m[path]
	if !ok {
		release, err := holdShared(path)
		if err != nil {
			return nil, err
		}
		w = &watchEntry{release: release}
		watches.m[path] = w
	}
	w.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			watches.Lock()
			defer watches.Unlock()
			if w.n--; w.n == 0 {
				delete(watches.m, path)
				w.release()
			}
		})
	}, nil
}
