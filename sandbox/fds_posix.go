//go:build linux || darwin

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// closeStrayFDs marks every descriptor of this process from 3 up
// close-on-exec, for the rest of its life: bwrap closes none, and an
// inherited directory descriptor leads out of every mount the sandbox makes
// (/proc/self/fd/N/...). ExtraFiles still reach the child, since [exec.Cmd]
// dup2s them. It fails when the list cannot be read: without it there is no
// telling what the child would inherit. See README.md, "What is proved, and
// what is not".
func closeStrayFDs() error {
	if markAllCloseOnExec() {
		return nil
	}
	return markListedCloseOnExec()
}

// markListedCloseOnExec is closeStrayFDs one descriptor at a time, from the
// list the OS gives of them.
func markListedCloseOnExec() error {
	dir, err := os.Open(fdDir[runtime.GOOS])
	if err != nil {
		return fmt.Errorf("sandbox: close inherited descriptors: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("sandbox: close inherited descriptors: %w", err)
	}
	self := int(dir.Fd())
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd < 3 || fd == self {
			continue
		}
		syscall.CloseOnExec(fd)
	}
	return nil
}

// fdDir lists this process's descriptors: procfs on Linux, fdescfs on macOS.
var fdDir = map[string]string{"linux": "/proc/self/fd", "darwin": "/dev/fd"}
