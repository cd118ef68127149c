//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"runtime"
)

// dataFile is Linux's: only bwrap reads a descriptor's bytes, and only a
// Linux Prefix asks for one.
func dataFile([]byte) (*os.File, error) {
	return nil, errors.New("sandbox: pass the seccomp filter: no memfd on " + runtime.GOOS)
}
