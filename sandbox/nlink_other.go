//go:build !linux && !darwin

package sandbox

import "io/fs"

// names is 1 where the OS does not say: there is no sandbox here to hide a
// file in.
func names(fs.FileInfo) uint64 { return 1 }
