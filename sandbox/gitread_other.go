//go:build !linux && !darwin

package sandbox

import "os"

// openNoFollow opens p for reading; there is no sandbox here whose
// command could have planted a link.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }
