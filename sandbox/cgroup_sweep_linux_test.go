package sandbox

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/cgroup"
)

// TestSweepEndedCallers: a caller killed while its run goes on leaves its
// run groups (pids and memory) behind; once its sandbox has gone, a later
// spawn in another process removes them, and so does the limit report
// (sandtable probe). A group named for a pid that is now another
// process's (the pid reused: the start time differs) is removed too. The
// controls: the empty group of a live caller, and one named for this
// process's pid and start time, are kept.
func TestSweepEndedCallers(t *testing.T) {
	requireBwrap(t)
	if os.Geteuid() != 0 {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatal("run groups are a root caller's here (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure)")
		}
		t.Skip("run groups are a root caller's here")
	}
	parents := map[string]string{}
	for _, c := range []string{"pids", "memory"} {
		if dir, v2, err := cgroup.Parent(c); err == nil && !v2 {
			parents[c] = dir
		}
	}
	if parents["pids"] == "" {
		t.Skip("no cgroup v1 pids hierarchy holds this process")
	}
	ws := mkdir(t, hostDir(t), "ws")

	live := startSweepHelper(t, "hold", ws)
	liveGroups := live.groups(t)
	var ns syscall.Stat_t
	if err := syscall.Stat("/proc/self/ns/pid", &ns); err != nil {
		t.Fatal(err)
	}
	// A group of live's pid with another start time: that pid's owner
	// ended, and live got the pid after it.
	reused := filepath.Join(parents["pids"], fmt.Sprintf("sandtable-%d-%d-%d-1", live.cmd.Process.Pid, 1, ns.Ino))
	// One named for this process, as it is: kept.
	mine := filepath.Join(parents["pids"], cgroup.Prefix()+"999999999")
	for _, d := range []string{reused, mine} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Rmdir(d) })
	}

	for _, later := range []string{"a spawn", "the limit report"} {
		killed := startSweepHelper(t, "spawn", ws)
		left := killed.groups(t)
		if len(left) < 2 {
			t.Fatalf("the caller's run groups: %v, want a pids and a memory group", left)
		}
		// Killed once the sandbox runs the command: bwrap's pid 1 binds
		// itself to bwrap (--die-with-parent) only after forking it, and
		// a caller killed before leaves the sandbox running, its groups
		// rightly kept.
		waitGroupProcs(t, left[0], 3)
		time.Sleep(200 * time.Millisecond)
		_ = killed.cmd.Process.Kill()
		_ = killed.cmd.Wait()
		// Its sandbox dies with it (--die-with-parent), in a moment.
		for _, g := range left {
			waitEmptyGroup(t, g)
		}
		time.Sleep(cgroup.SweepEvery) // since this process's last sweep
		switch later {
		case "a spawn":
			c, err := NewCmd(context.Background(), Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkOff}, Limits: Limits{Memory: 1 << 30}}, "true")
			if err != nil {
				t.Fatal(err)
			}
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
		default:
			LimitReport()
		}
		for _, g := range append(left, reused) {
			if _, err := os.Stat(g); err == nil {
				t.Errorf("after %s: %s is still there, its owner gone", later, g)
			}
		}
		for _, g := range append(liveGroups, mine) {
			if _, err := os.Stat(g); err != nil {
				t.Errorf("after %s: %s, a live process's group: %v", later, g, err)
			}
		}
		if err := os.Mkdir(reused, 0o755); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
}

// sweepHelper is the test binary run as TestSweepHelper.
type sweepHelper struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startSweepHelper(t *testing.T, what, ws string) *sweepHelper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepHelper$", "--", what, ws)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &sweepHelper{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return h
}

// groups reads the helper's line: its run groups, once it has them.
func (h *sweepHelper) groups(t *testing.T) []string {
	t.Helper()
	line := make(chan string, 1)
	go func() {
		l, _ := h.out.ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != "groups" {
			t.Fatalf("helper: %q", l)
		}
		return f[1:]
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		t.Fatal("helper: no line in 30s")
	}
	return nil
}

// waitGroupProcs waits, up to 10 s, for the group to hold n processes.
func waitGroupProcs(t *testing.T, g string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, _ := os.ReadFile(filepath.Join(g, "cgroup.procs"))
		if len(strings.Fields(string(b))) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %d processes", g, b, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEmptyGroup waits, up to 10 s, for the group to hold no process.
func waitEmptyGroup(t *testing.T, g string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(filepath.Join(g, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still holds %s", g, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSweepHelper is a caller for TestSweepEndedCallers: "spawn WS" starts
// a sandboxed sleep with a memory limit, "hold WS" makes an empty run
// group; each prints its run groups ("groups DIR..."), then waits for its
// standard input to end.
func TestSweepHelper(t *testing.T) {
	args := flag.Args()
	if len(args) != 2 {
		t.Skip("a helper process for TestSweepEndedCallers")
	}
	var groups []string
	switch args[0] {
	case "spawn":
		c, err := NewCmd(context.Background(), Config{Workspace: args[1], Policy: Required, Network: Network{Mode: NetworkOff}, Limits: Limits{Memory: 1 << 30}}, "sleep", "60")
		if err == nil {
			err = c.Start()
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for _, controller := range []string{"pids", "memory"} {
			if parent, _, err := cgroup.Parent(controller); err == nil {
				m, _ := filepath.Glob(filepath.Join(parent, "sandtable-"+strconv.Itoa(os.Getpid())+"-*"))
				groups = append(groups, m...)
			}
		}
	case "hold":
		g, err := cgroup.New("pids", "pids.max", "pids.max", "16")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		defer g.Remove()
		groups = append(groups, g.Dir())
	}
	fmt.Println("groups", strings.Join(groups, " "))
	_, _ = io.Copy(io.Discard, os.Stdin)
}
