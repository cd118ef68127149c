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
// close-on-exec. Go opens its own files with O_CLOEXEC, but a descriptor
// the process inherited (from a service manager, a shell, a CI runner) is
// open across exec, and os/exec passes such descriptors on: bwrap closes
// none of them, so the sandboxed child would get them too. A directory
// descriptor is a way out of every mount the sandbox makes: the child
// writes outside the workspace, or reads a hidden file, through
// /proc/self/fd/N/... The descriptors the spawn means to pass are
// unaffected: exec.Cmd dup2s ExtraFiles onto 3, 4, ... in the child, and a
// dup2'd descriptor is open across exec whatever its source's flag.
//
// The flag stays set for the life of the process, so an inherited
// descriptor the caller meant its own unsandboxed children to receive
// (socket activation, a jobserver pipe) must be passed to them in
// ExtraFiles from then on. Failing to read the list fails the spawn:
// without it there is no telling what the child would inherit.
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
