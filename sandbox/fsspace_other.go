//go:build !linux && !darwin

package sandbox

// fsSpaceOf is statSpace; a test replaces it.
var fsSpaceOf = statSpace

// statSpace cannot say, here.
func statSpace(string) *fsSpace { return nil }
