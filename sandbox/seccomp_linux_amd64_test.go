package sandbox

import "golang.org/x/sys/unix"

// legacyCalls are the calls amd64 has and aarch64 does not.
var legacyCalls = map[string]uint32{
	"chmod": unix.SYS_CHMOD, "creat": unix.SYS_CREAT, "mknod": unix.SYS_MKNOD, "open": unix.SYS_OPEN,
}

// absentCalls are the table's setid-mode calls this ABI lacks.
var absentCalls = []string{}
