package cgroup

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Group is one run's cgroup in one hierarchy: created beneath the group
// this process is in, never anywhere else, and removed after the run.
type Group struct {
	dir string
	v2  bool
}

// Dir is the group's directory.
func (g *Group) Dir() string { return g.dir }

var groupSeq atomic.Uint64

// The file system types of cgroup v1 and v2 (statfs(2)).
const (
	cgroupMagic  = 0x27e0eb
	cgroup2Magic = 0x63677270
)

// groupParents remembers Parent's answers for the membership they
// were found for (/proc/self/cgroup's text, without this process's run
// groups): the mount table is read once per process and membership, not
// once per group. newRunGroup checks that what it made is a cgroup, so a
// hierarchy moved since cannot pass.
var groupParents struct {
	sync.Mutex
	own     string
	answers map[string]groupAnswer
}

type groupAnswer struct {
	dir string
	v2  bool
	err error
}

// Parent finds this process's group in the hierarchy that has controller:
// a cgroup v1 hierarchy mounted with it, else the v2 one. It is the same
// whichever thread asks, and while this process's main thread is in one
// of its run groups (ForkIn).
func Parent(controller string) (dir string, v2 bool, err error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	own := outsideRunGroups(string(b), ownGroupOwner().prefix)
	groupParents.Lock()
	defer groupParents.Unlock()
	if groupParents.own != own {
		groupParents.own, groupParents.answers = own, map[string]groupAnswer{}
	}
	a, ok := groupParents.answers[controller]
	if !ok {
		a.dir, a.v2, a.err = findGroupParent(own, controller)
		groupParents.answers[controller] = a
	}
	return a.dir, a.v2, a.err
}

// outsideRunGroups is own, the text of /proc/self/cgroup, with each path
// cut before its first run group of this process (a name starting with
// prefix). /proc/self/cgroup is the main thread's membership, and on
// cgroup v1 the main thread may be the one forking bwrap in a run's
// groups (ForkIn) at the moment it is read: the group a
// spawn makes its own beneath, and the one its forking thread goes back
// to, must not depend on which thread another spawn forks from.
func outsideRunGroups(own, prefix string) string {
	if !strings.Contains(own, "/"+prefix) {
		return own
	}
	var b strings.Builder
	for l := range strings.Lines(own) {
		line, nl := strings.CutSuffix(l, "\n")
		id, path, ok := cutCgroupPath(line)
		if i := strings.Index(path, "/"+prefix); ok && i >= 0 {
			line = id + cmp.Or(path[:i], "/")
		}
		b.WriteString(line)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// cutCgroupPath splits a line of /proc/PID/cgroup, ID:CONTROLLERS:PATH,
// before its path.
func cutCgroupPath(line string) (head, path string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i < 0 {
		return line, "", false
	}
	j := strings.IndexByte(line[i+1:], ':')
	if j < 0 {
		return line, "", false
	}
	return line[:i+j+2], line[i+j+2:], true
}

// findGroupParent is Parent from the mount table, for own, the text
// of /proc/self/cgroup.
func findGroupParent(own, controller string) (dir string, v2 bool, err error) {
	var v1Path, v2Path string
	haveV2 := false
	for l := range strings.Lines(own) {
		f := strings.SplitN(strings.TrimSpace(l), ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2Path, haveV2 = f[2], true
		} else if slices.Contains(strings.Split(f[1], ","), controller) {
			v1Path = f[2]
		}
	}
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", false, err
	}
	defer mounts.Close()
	var v2Dir string
	sc := bufio.NewScanner(mounts)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if !ok || len(pf) < 5 || len(qf) < 3 {
			continue
		}
		root, point := pf[3], pf[4]
		under := func(p string) (string, bool) {
			if root == "/" {
				return filepath.Join(point, p), true
			}
			if rel, ok := strings.CutPrefix(p, root); ok && (rel == "" || rel[0] == '/') {
				return filepath.Join(point, rel), true
			}
			return "", false
		}
		switch qf[0] {
		case "cgroup":
			if v1Path != "" && slices.Contains(strings.Split(qf[2], ","), controller) {
				if d, ok := under(v1Path); ok {
					return d, false, nil
				}
			}
		case "cgroup2":
			if haveV2 && v2Dir == "" {
				v2Dir, _ = under(v2Path)
			}
		}
	}
	if v1Path == "" && v2Dir != "" {
		return v2Dir, true, nil
	}
	return "", false, fmt.Errorf("no %s cgroup hierarchy holds this process", controller)
}

// New makes a group for one run beneath this process's own in
// controller's hierarchy and sets its limit: value in file (v1) or file2
// (v2). It sweeps the ended owners' groups there first (sweep).
func New(controller, file, file2, value string) (*Group, error) {
	parent, v2, err := Parent(controller)
	if err != nil {
		return nil, err
	}
	sweep(parent)
	g := &Group{dir: filepath.Join(parent, runGroupName(groupSeq.Add(1))), v2: v2}
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return nil, err
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(g.dir, &fs); err != nil || fs.Type != cgroupMagic && fs.Type != cgroup2Magic {
		g.Remove()
		return nil, fmt.Errorf("cgroup: %s is not in a cgroup file system", g.dir)
	}
	if v2 {
		have, err := os.ReadFile(filepath.Join(g.dir, "cgroup.controllers"))
		if err != nil || !slices.Contains(strings.Fields(string(have)), controller) {
			g.Remove()
			return nil, fmt.Errorf("cgroup: v2 group %s does not delegate %s to its children", parent, controller)
		}
	}
	if v2 {
		file = file2
	}
	if err := os.WriteFile(filepath.Join(g.dir, file), []byte(value), 0); err != nil {
		g.Remove()
		return nil, err
	}
	return g, nil
}

// Add moves the process pid, which this process started, into the group.
func (g *Group) Add(pid int) error {
	return os.WriteFile(filepath.Join(g.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// Remove deletes the group once the processes in it have gone; the last
// ones may still be exiting when bwrap has (the kernel kills the rest of
// the sandbox's pid namespace with its first process, and a loaded
// machine reaps a few hundred of them slowly), so it waits, up to 10s.
// The first millisecond it looks every 20us, sleeping in the kernel: the
// runtime's timers wake a short sleep up to a millisecond late here, and
// the group is most often free within a few tries.
func (g *Group) Remove() error {
	var err error
	wait := time.Millisecond
	for try, deadline := 0, time.Now().Add(10*time.Second); ; try++ {
		if err = syscall.Rmdir(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			break
		}
		if try < 50 {
			ts := syscall.Timespec{Nsec: 20_000}
			_ = syscall.Nanosleep(&ts, nil)
			continue
		}
		time.Sleep(wait)
		wait = min(2*wait, 10*time.Millisecond)
	}
	return fmt.Errorf("cgroup: remove %s: %w", g.dir, err)
}
