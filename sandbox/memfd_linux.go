package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dataFile serves data from a new memfd, sealed so that bwrap reads what
// was written whoever else holds the descriptor meanwhile, and rewound, so
// that its read starts at the beginning.
func dataFile(data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("sandtable-seccomp", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("sandbox: pass the seccomp filter: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "sandtable-seccomp")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: pass the seccomp filter: %w", err)
	}
	const seals = unix.F_SEAL_WRITE | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: pass the seccomp filter: seal: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: pass the seccomp filter: %w", err)
	}
	return f, nil
}
