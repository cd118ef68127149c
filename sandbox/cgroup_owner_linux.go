package sandbox

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// A run group's name says which process made it: sandtable-PID-START-NS-N,
// PID and START being the process's id and start time (clock ticks after
// boot, /proc/PID/stat's 22nd field), NS the inode of its pid namespace,
// and N a count within the process. A pid is reused; a pid and its start
// time are not, within one pid namespace. Groups named sandtable-PID-N
// were made by earlier versions, whose owner is known by its pid alone.

// groupOwner is this process as run groups' names record it.
type groupOwner struct {
	pid   int
	start uint64
	ns    uint64
	// prefix is the start of this process's groups' names, to the
	// count: "sandtable-PID-START-NS-".
	prefix string
}

var ownGroupOwner = sync.OnceValue(func() groupOwner {
	o := groupOwner{pid: os.Getpid()}
	o.start, _ = procStart(o.pid)
	o.ns = pidNamespace()
	o.prefix = "sandtable-" + strconv.Itoa(o.pid) + "-" + strconv.FormatUint(o.start, 10) + "-" + strconv.FormatUint(o.ns, 10) + "-"
	return o
})

// procStart is the start time of the process pid, in clock ticks after
// boot, from /proc/PID/stat; an error wrapping os.ErrNotExist when there
// is no such process.
func procStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that count start after the last ')', with the state,
	// the 3rd field; the start time is the 22nd.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("sandbox: /proc/" + strconv.Itoa(pid) + "/stat: no command name")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0, errors.New("sandbox: /proc/" + strconv.Itoa(pid) + "/stat: too few fields")
	}
	return strconv.ParseUint(string(f[19]), 10, 64)
}

// pidNamespace is the inode of this process's pid namespace, 0 if unknown.
func pidNamespace() uint64 {
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/ns/pid", &st) != nil {
		return 0
	}
	return st.Ino
}

// runGroupName is the name of this process's nth run group.
func runGroupName(n uint64) string {
	return ownGroupOwner().prefix + strconv.FormatUint(n, 10)
}
