package sandbox

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNetThreadKeepsProcessNamespace: a root caller's mode proxy spawns
// make their network namespace on a thread of this process; after them,
// every thread left is in the process's own namespace again (a thread
// left in a sandbox's, the main thread above all, would make this
// process's /proc/self/net, its list of host sockets, the sandbox's).
// Its control: the spawns did use the thread (the command saw another
// namespace than this process's).
func TestNetThreadKeepsProcessNamespace(t *testing.T) {
	own := rootNetNS(t)
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkProxy}}
	for i := 0; i < 12; i++ {
		c, err := NewCmd(context.Background(), cfg, "stat", "-L", "-c", "%i", "/proc/self/ns/net")
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if string(out) == "" || string(out) == strconv.FormatUint(own.Ino, 10)+"\n" {
			t.Fatalf("control: the command ran in this process's network namespace (%q)", out)
		}
	}
	// A released thread ends with its goroutine, a moment after the
	// spawn returned: wait for that, up to two seconds.
	settle(func() int { return len(foreignNetThreads(t, own)) })
	for _, task := range foreignNetThreads(t, own) {
		t.Errorf("thread %s is in another network namespace than the process's %d", task, own.Ino)
	}
}

// rootNetNS skips a test of the root caller's network thread for another
// caller, and returns this process's network namespace.
func rootNetNS(t *testing.T) unix.Stat_t {
	t.Helper()
	requireBwrap(t)
	if os.Geteuid() != 0 {
		t.Skip("the thread is a root caller's")
	}
	var own unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &own); err != nil {
		t.Fatal(err)
	}
	return own
}

// foreignNetThreads lists this process's live threads in another network
// namespace than own.
func foreignNetThreads(t *testing.T, own unix.Stat_t) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var foreign []string
	for _, task := range tasks {
		var st unix.Stat_t
		if err := unix.Stat("/proc/self/task/"+task.Name()+"/ns/net", &st); err != nil {
			continue // the thread has ended meanwhile
		}
		if st.Ino != own.Ino || st.Dev != own.Dev {
			foreign = append(foreign, task.Name())
		}
	}
	return foreign
}

// TestNetThreadEndsWhenStartFails: Start makes a root caller's network
// thread ahead, while it takes the locks and sets the watch; a Start that
// fails there (a hidden path appeared after NewCmd planned) must end that
// thread, which would otherwise wait for a spawn in the sandbox's
// namespace, its listeners open, for the rest of the process. Its control:
// a prepared thread is one this check sees, until dropped.
func TestNetThreadEndsWhenStartFails(t *testing.T) {
	own := rootNetNS(t)
	base, _, ws := fixture(t)
	cred := base + "/cred"
	cfg := Config{Workspace: ws, Hidden: []string{cred}, Network: Network{Mode: NetworkProxy}}
	foreign := func() int { return len(foreignNetThreads(t, own)) }

	ctl, err := NewCmd(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	ctl.checked.prepareNet(ctl)
	if err := <-ctl.checked.early.t.ready; err != nil {
		t.Fatal(err)
	}
	if n := foreign(); n != 1 {
		t.Fatalf("control: %d threads in another network namespace after prepareNet, want 1", n)
	}
	ctl.checked.dropNet()
	if n := settle(foreign); n != 0 {
		t.Fatalf("control: %d threads in another network namespace after dropNet", n)
	}

	c, err := NewCmd(t.Context(), cfg, "true")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, base, "cred", "LATE\n")
	if err := c.Start(); !errors.Is(err, ErrHostChanged) {
		t.Fatalf("Start = %v, want ErrHostChanged", err)
	}
	if n := settle(foreign); n != 0 {
		t.Errorf("%d threads in another network namespace after a failed Start", n)
	}
}
