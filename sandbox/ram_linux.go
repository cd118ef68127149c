package sandbox

import "golang.org/x/sys/unix"

// totalRAM is this machine's memory in bytes, 0 when unknown.
func totalRAM() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}
