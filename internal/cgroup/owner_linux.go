package cgroup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
		return 0, errors.New("cgroup: /proc/" + strconv.Itoa(pid) + "/stat: no command name")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0, errors.New("cgroup: /proc/" + strconv.Itoa(pid) + "/stat: too few fields")
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

// Prefix starts the name of every run group of this process.
func Prefix() string { return ownGroupOwner().prefix }

// runGroupName is the name of this process's nth run group.
func runGroupName(n uint64) string {
	return ownGroupOwner().prefix + strconv.FormatUint(n, 10)
}

// ownerGone reports whether the name is a run group's (sandtable-...)
// whose owner has certainly ended. Only then may its group be removed: a
// group another process still uses, or may yet use, is kept, and so is
// one whose owner cannot be known from here (made in another pid
// namespace, or of a form this version does not know).
func ownerGone(name string, self groupOwner) bool {
	rest, ok := strings.CutPrefix(name, "sandtable-")
	if !ok {
		return false
	}
	f := strings.Split(rest, "-")
	num := func(s string) (uint64, bool) {
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil && s != "" && s[0] != '+'
	}
	for _, s := range f {
		if _, ok := num(s); !ok {
			return false
		}
	}
	pid, _ := num(f[0])
	if pid == 0 || pid > 1<<22 {
		return false
	}
	switch len(f) {
	case 2: // sandtable-PID-N: the pid alone, which may have been reused since
		return syscall.Kill(int(pid), 0) == syscall.ESRCH
	case 4: // sandtable-PID-START-NS-N
		start, _ := num(f[1])
		ns, _ := num(f[2])
		if self.ns == 0 || ns != self.ns {
			return false // this process's /proc does not show that pid namespace's processes
		}
		now, err := procStart(int(pid))
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return true
		}
		return err == nil && now != start // the pid is another process's now
	}
	return false
}

// SweepEvery is how often, at most, New looks for the run groups of
// ended owners in one parent.
const SweepEvery = time.Second

// sweeps holds, for each parent swept, a *sweepState.
var sweeps sync.Map

type sweepState struct {
	sync.Mutex
	last time.Time
}

// sweep removes, at most once every SweepEvery per parent, the empty run
// groups in parent whose owner has ended (ownerGone): a caller killed
// before its runs' Wait leaves them, and a group whose processes were
// still exiting at the last sweep is tried again at the next. A group
// with processes in it cannot be removed, and a live process's group is
// never touched. A sweep another goroutine is doing is not waited for.
func sweep(parent string) {
	v, _ := sweeps.LoadOrStore(parent, &sweepState{})
	s := v.(*sweepState)
	if !s.TryLock() {
		return
	}
	defer s.Unlock()
	if now := time.Now(); !s.last.IsZero() && now.Sub(s.last) < SweepEvery {
		return
	} else {
		s.last = now
	}
	removeEnded(parent, ownGroupOwner(), 0)
}

// removeEnded removes the groups of ended owners in dir, and the groups
// of ended owners inside them first (a version before the one that cut
// /proc/self/cgroup at this process's run groups, outsideRunGroups, could
// nest them), to a depth of 4.
func removeEnded(dir string, self groupOwner, depth int) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, self.prefix) || !ownerGone(name, self) {
			continue
		}
		g := filepath.Join(dir, name)
		if syscall.Rmdir(g) == syscall.EBUSY && depth < 4 {
			removeEnded(g, self, depth+1)
			_ = syscall.Rmdir(g) // fails, harmlessly, if not empty
		}
	}
}
