//go:build unix

package landlock

import (
	"errors"
	"syscall"
)

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
