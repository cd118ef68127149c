package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/cgroup"
)

// concurrentSpawns and concurrentRounds bound TestConcurrentSpawns: each
// round starts this many NewCmd spawns at once, in every network mode.
const (
	concurrentSpawns = 32
	concurrentRounds = 3
)

// TestConcurrentSpawns runs many NewCmd spawns of true at once from one
// process, in every network mode, as root and as the unprivileged user
// (a pids group for root's sandbox, a memory group for both, where this
// process is root): none may fail, and afterwards no run group of this
// process is left and no thread of it is in one. A spawn forks bwrap from
// a thread that is in the run's cgroup v1 groups meanwhile
// (cgroup.ForkIn), and that thread may be the main thread, whose
// membership /proc/self/cgroup shows: a spawn that took it for this
// process's own group made its groups beneath that run's group and moved
// its own forking thread into it when it left them (a remove that waited
// 10 s, then failed, and a group left for good: 10 of 2100 spawns, 50 at
// once). TestGroupParentWhileMainForks (internal/cgroup) makes that
// moment certain.
func TestConcurrentSpawns(t *testing.T) {
	requireBwrap(t)
	parents := map[string]string{}
	for _, c := range []string{"pids", "memory"} {
		if dir, v2, err := cgroup.Parent(c); err == nil && !v2 {
			parents[c] = dir
		}
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			p, restore := newEscPass(t, u)
			defer restore()
			ws := filepath.Join(p.base, "ws")
			p.escMkdir(t, ws, 0o755)
			for _, mode := range []NetworkMode{NetworkOff, NetworkProxy, NetworkHost} {
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: mode}}
				if os.Geteuid() == 0 {
					cfg.Limits.Memory = 1 << 30 // a caller that may make memory groups
				}
				var mu sync.Mutex
				var failed []string
				start := time.Now()
				for range concurrentRounds {
					var wg sync.WaitGroup
					for range concurrentSpawns {
						wg.Add(1)
						go func() {
							defer wg.Done()
							if err := concurrentSpawn(cfg, u); err != nil {
								mu.Lock()
								failed = append(failed, err.Error())
								mu.Unlock()
							}
						}()
					}
					wg.Wait()
				}
				wall := time.Since(start)
				n := concurrentRounds * concurrentSpawns
				t.Logf("%s, mode %s: %d spawns (%d rounds of %d at once), %d failed, %v", u.label, mode, n, concurrentRounds, concurrentSpawns, len(failed), wall.Round(time.Millisecond))
				if len(failed) > 0 {
					t.Errorf("mode %s: %d of %d spawns failed; first: %s", mode, len(failed), n, failed[0])
				}
				if left := runGroupsBeneath(parents); len(left) > 0 {
					t.Errorf("mode %s: cgroups left behind: %v", mode, left)
				}
				if in := threadsInRunGroups(); len(in) > 0 {
					t.Errorf("mode %s: threads of this process left in run groups: %v", mode, in)
				}
			}
		})
	}
}

// concurrentSpawn runs true in the sandbox cfg describes, as u. A spawn
// that lists a host socket another process (another test binary) removes
// before bwrap mounts over it fails, and says to run it again
// (hide-host-socket): it is, up to twice, since that is no concern of
// the run's groups.
func concurrentSpawn(cfg Config, u *escUser) error {
	var err error
	for range 3 {
		if err = spawnOnce(cfg, u); err == nil || !strings.Contains(err.Error(), "was removed while the sandbox was being built (hide-host-socket)") {
			return err
		}
	}
	return err
}

func spawnOnce(cfg Config, u *escUser) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := NewCmd(ctx, cfg, "true")
	if err != nil {
		return err
	}
	c.Env = append(stripEnv(os.Environ()), "PATH="+escPath)
	if u.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

// threadsInRunGroups lists this process's threads that are in a run
// group, as "TID: LINE" from their /proc cgroup file.
func threadsInRunGroups() []string {
	var in []string
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", e.Name(), "cgroup"))
		if err != nil {
			continue
		}
		for l := range strings.Lines(string(b)) {
			if strings.Contains(l, "/sandtable-") {
				in = append(in, e.Name()+": "+strings.TrimSpace(l))
			}
		}
	}
	return in
}

// runGroupsBeneath lists this process's run groups beneath parents'
// groups, at any depth.
func runGroupsBeneath(parents map[string]string) []string {
	var left []string
	for _, parent := range parents {
		_ = filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if strings.HasPrefix(d.Name(), fmt.Sprintf("sandtable-%d-", os.Getpid())) {
				left = append(left, p)
			}
			return nil
		})
	}
	return left
}
