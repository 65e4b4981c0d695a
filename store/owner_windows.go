//go:build windows

package store

import "io/fs"

// ownedByMe accepts every directory on Windows, where the per-user profile
// directories that XDG maps to are already private to their user.
func ownedByMe(fs.FileInfo) bool { return true }
