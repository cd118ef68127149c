package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOutsideRunGroups: this process's run groups are cut off the paths
// of /proc/self/cgroup, and only this process's.
func TestOutsideRunGroups(t *testing.T) {
	const prefix = "sandtable-7-99-5-"
	for _, c := range []struct{ in, want string }{
		{"8:pids:/\n4:memory:/a/b\n0::/\n", "8:pids:/\n4:memory:/a/b\n0::/\n"},
		{"8:pids:/sandtable-7-99-5-1\n4:memory:/a/b/sandtable-7-99-5-2\n", "8:pids:/\n4:memory:/a/b\n"},
		{"8:pids:/sandtable-7-99-5-1/sandtable-7-99-5-3\n", "8:pids:/\n"},
		{"8:pids:/sandtable-8-99-5-1\n4:memory:/a/sandtable-7-98-5-2", "8:pids:/sandtable-8-99-5-1\n4:memory:/a/sandtable-7-98-5-2"},
		{"4:memory:/a/sandtable-7-99-5-2", "4:memory:/a"},
	} {
		if got := outsideRunGroups(c.in, prefix); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOwnerGone: a run group's name is its owner's only when it has the
// form this version makes (or an earlier one's), in this pid namespace.
func TestOwnerGone(t *testing.T) {
	self := ownGroupOwner()
	if self.start == 0 || self.ns == 0 {
		t.Skipf("no start time or pid namespace for this process: %+v", self)
	}
	me := os.Getpid()
	for _, c := range []struct {
		name string
		gone bool
	}{
		{fmt.Sprintf("sandtable-%d-%d-%d-1", me, self.start, self.ns), false},
		{fmt.Sprintf("sandtable-%d-%d-%d-1", me, self.start+1, self.ns), true},    // the pid reused
		{fmt.Sprintf("sandtable-%d-%d-%d-1", me, self.start+1, self.ns+1), false}, // another pid namespace's
		{fmt.Sprintf("sandtable-%d-1", me), false},                                // an earlier version's, pid alone
		{fmt.Sprintf("sandtable-%d-x-%d-1", me, self.ns), false},
		{fmt.Sprintf("sandtable-%d-%d-1", me, self.start), false},
		{"sandtable-0-1", false},
		{"sandtable--1", false},
		{"sandtable-+5-1", false},
		{"other-1-2", false},
	} {
		if got := ownerGone(c.name, self); got != c.gone {
			t.Errorf("%s: gone %v, want %v", c.name, got, c.gone)
		}
	}
}

// TestGroupParentWhileMainForks: while the main thread is in run groups
// of this process, as when a spawn forks bwrap from it, the group a spawn
// makes its own beneath, and goes back to, is still this process's
// (/proc/self/cgroup shows the main thread's membership). The control:
// /proc/self/cgroup itself then names the run groups.
func TestGroupParentWhileMainForks(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatal("moving a thread into a cgroup v1 group takes root here (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure)")
		}
		t.Skip("moving a thread into a cgroup v1 group takes root here")
	}
	parents := map[string]string{}
	for _, c := range []string{"pids", "memory"} {
		if dir, v2, err := Parent(c); err == nil && !v2 {
			parents[c] = dir
		}
	}
	if len(parents) == 0 {
		t.Skip("no cgroup v1 hierarchy holds this process")
	}
	back := mainThreadInRunGroups(t, parents)
	own, _ := os.ReadFile("/proc/self/cgroup")
	got := map[string]string{}
	for c := range parents {
		got[c], _, _ = Parent(c)
	}
	back()
	if !strings.Contains(string(own), "/"+Prefix()) {
		t.Fatalf("control: /proc/self/cgroup names no run group with the main thread in them:\n%s", own)
	}
	for c, want := range parents {
		if got[c] != want {
			t.Errorf("%s: Parent %s with the main thread in a run group, want %s", c, got[c], want)
		}
	}
}

// mainThreadInRunGroups puts the main thread, as root, in a new run group
// of each cgroup v1 hierarchy in parents, as a spawn forking from it does;
// back puts it in parents' groups again, and removes the groups.
func mainThreadInRunGroups(t *testing.T, parents map[string]string) (back func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		return func() {}
	}
	main := strconv.Itoa(os.Getpid()) // the main thread's id is the process's
	var made []*Group
	for c, parent := range parents {
		g := &Group{dir: filepath.Join(parent, runGroupName(groupSeq.Add(1)))}
		if err := os.Mkdir(g.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		made = append(made, g)
		if err := os.WriteFile(filepath.Join(g.dir, "tasks"), []byte(main), 0); err != nil {
			t.Fatalf("%s: main thread into %s: %v", c, g.dir, err)
		}
	}
	return func() {
		for _, parent := range parents {
			if err := os.WriteFile(filepath.Join(parent, "tasks"), []byte(main), 0); err != nil {
				t.Errorf("main thread back into %s: %v", parent, err)
			}
		}
		for _, g := range made {
			if err := g.Remove(); err != nil {
				t.Error(err)
			}
		}
	}
}
