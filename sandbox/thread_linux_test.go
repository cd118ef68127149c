package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
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

// TestDyingThreadsSpareOtherRuns: a run started from some thread of the
// caller (a Command's wrap helper, which dies with the thread that forked
// it) outlives the spawns whose threads die after them (mode host's
// Landlock scope; mode proxy's network thread for a root caller). The
// control, with dyingThread taking whatever thread it is given, kills it
// when one of those threads is the one that started it. The run is started
// as root and as the unprivileged user.
func TestDyingThreadsSpareOtherRuns(t *testing.T) {
	requireBwrap(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	short := Network{Mode: NetworkHost}
	switch {
	case scopeAbstract(bwrap):
	case os.Geteuid() == 0:
		short = Network{Mode: NetworkProxy}
	default:
		t.Skip("no spawn here starts from a thread that dies: no Landlock abstract scope, and not root")
	}
	base := sharedBase(t)
	// killedIn runs up to rounds rounds of a long run as u and ten spawns
	// of this process's meanwhile, and returns the first round whose long run was killed,
	// or -1.
	rootWS := mkdir(t, base, "ws-short")
	killedIn := func(t *testing.T, u *escUser, ws string, rounds int) int {
		cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkHost}}
		for round := 0; round < rounds; round++ {
			// Planned for u, who starts it (hide-host-socket); the short
			// spawns, which this process starts, for this process.
			own := socketIdentity
			if u.cred != nil {
				socketIdentity = func() identity { return identity{uid: u.cred.Uid, gids: []uint32{u.cred.Gid}} }
			}
			long, err := Command(context.Background(), cfg, "sleep", "60")
			socketIdentity = own
			if err != nil {
				t.Fatal(err)
			}
			if u.cred != nil {
				long.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			if err := long.Start(); err != nil {
				t.Fatal(err)
			}
			ended := make(chan error, 1)
			go func() { ended <- long.Wait() }()
			for range 10 {
				c, err := NewCmd(context.Background(), Config{Workspace: rootWS, Policy: Required, NoCache: true, Network: short}, "true")
				if err != nil {
					t.Fatal(err)
				}
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("a short spawn: %v: %s", err, out)
				}
			}
			// A thread that died with its spawn has sent its signal by the
			// time that spawn's Wait returned; the kill takes a moment more.
			select {
			case err = <-ended:
			case <-time.After(200 * time.Millisecond):
				long.Process.Kill()
				<-ended
				continue
			}
			t.Logf("round %d: the long run ended before it was killed: %v", round, err)
			return round
		}
		return -1
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			ws := mkdir(t, base, "ws-"+u.label)
			if err := os.Chown(ws, u.uid, u.gid); err != nil {
				t.Fatal(err)
			}
			if r := killedIn(t, u, ws, 5); r >= 0 {
				t.Errorf("a spawn's dying thread killed another run in round %d", r)
			}
			spareChildren = false
			defer func() { spareChildren = true }()
			if r := killedIn(t, u, ws, 30); r < 0 {
				t.Errorf("control: without sparing threads with children no run was killed in 30 rounds, so the test proves nothing")
			}
		})
	}
}
