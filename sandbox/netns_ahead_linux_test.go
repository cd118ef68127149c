package sandbox

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestNetThreadAheadEnds: NewCmd starts a root caller's network thread for
// mode proxy while it plans (earlyNetThread). A Cmd never started must not
// keep it, nor its namespace, for the rest of the process: it ends after
// earlyNetWait; a NewCmd that fails ends it at once; and a Cmd started
// after that still runs in a namespace of its own, from a new thread. The
// control is the thread itself, seen in another namespace before the
// wait.
func TestNetThreadAheadEnds(t *testing.T) {
	own := rootNetNS(t)
	foreign := func() int { return len(foreignNetThreads(t, own)) }
	if n := settle(foreign); n != 0 {
		t.Fatalf("%d threads in another network namespace before the test", n)
	}
	base, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Network: Network{Mode: NetworkProxy}}

	c, err := NewCmd(context.Background(), cfg, "stat", "-L", "-c", "%i", "/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for deadline := time.Now().Add(time.Second); !seen && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		seen = foreign() == 1
	}
	if !seen {
		t.Fatalf("control: no thread in another network namespace after NewCmd (%d)", foreign())
	}
	time.Sleep(earlyNetWait)
	if n := settle(foreign); n != 0 {
		t.Errorf("%d threads in another network namespace %v after an unstarted NewCmd", n, earlyNetWait+2*time.Second)
	}

	out, err := c.Output()
	if err != nil {
		t.Fatalf("Start after the thread ended: %v: %s", err, out)
	}
	if string(out) == "" || string(out) == strconv.FormatUint(own.Ino, 10)+"\n" {
		t.Errorf("started after the thread ended, the command ran in this process's namespace (%q)", out)
	}

	bad := cfg
	bad.Write = []string{base + "/no-such-dir"}
	if _, err := NewCmd(context.Background(), bad, "true"); err == nil {
		t.Fatal("NewCmd accepted a missing write path")
	}
	// Sooner than the thread's own end, which would hide a missing cancel.
	n := foreign()
	for deadline := time.Now().Add(earlyNetWait / 2); n != 0 && time.Now().Before(deadline); n = foreign() {
		time.Sleep(5 * time.Millisecond)
	}
	if n != 0 {
		t.Errorf("%d threads in another network namespace %v after a failed NewCmd", n, earlyNetWait/2)
	}
}
