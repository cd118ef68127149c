package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestScopedThreadsEnd: the threads that start mode host's spawns inside
// the Landlock scope (no_new_privs set on them) end with their spawn, the
// main thread included, so no later goroutine of the caller runs scoped.
func TestScopedThreadsEnd(t *testing.T) {
	requireBwrap(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	if !scopeAbstract(bwrap) {
		t.Skipf("no Landlock abstract scope here (ABI %d)", landlockABI())
	}
	if n := noNewPrivsThreads(t); n != 0 {
		t.Skipf("%d threads of this process have no_new_privs before the test", n)
	}
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkHost}}
	for i := 0; i < 12; i++ {
		c, err := NewCmd(context.Background(), cfg, "/bin/true")
		if err != nil {
			t.Fatal(err)
		}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	// A released thread ends with its goroutine, a moment after the
	// spawn returned: wait for that, up to two seconds.
	if n := settle(func() int { return noNewPrivsThreads(t) }); n != 0 {
		t.Errorf("%d threads of this process stayed in the scope after their spawns", n)
	}
}

// noNewPrivsThreads counts this process's live threads with no_new_privs.
func noNewPrivsThreads(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
		if err != nil {
			continue // the thread has ended meanwhile
		}
		if strings.Contains(string(b), "\nNoNewPrivs:\t1\n") {
			n++
		}
	}
	return n
}

// settle calls count until it returns 0, for at most two seconds, and
// returns its last result.
func settle(count func() int) int {
	deadline := time.Now().Add(2 * time.Second)
	for {
		n := count()
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}
