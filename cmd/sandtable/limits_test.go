package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestRunTmpSize: --tmp-size bounds the private /tmp, and a write past it
// fails inside with ENOSPC; without the flag the same 2 MiB fit (the
// default is 1 GiB, or a quarter of RAM).
func TestRunTmpSize(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	fill := []string{"sh", "-c", `head -c 2097152 /dev/zero > /tmp/fill && echo FITS`}
	r := e.run(t, "", append([]string{"run", "--tmp-size", "1M", "--"}, fill...)...)
	if r.code == 0 || strings.Contains(r.stdout, "FITS") || !strings.Contains(r.stderr, "No space left on device") {
		t.Errorf("--tmp-size 1M, 2 MiB written: exit %d, stdout %q, stderr %q; want ENOSPC", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", append([]string{"run", "--"}, fill...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "FITS") {
		t.Errorf("default /tmp, 2 MiB written: exit %d, stdout %q, stderr %q; want them stored", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "run", "--shm-size", "1x", "--", "true")
	if r.code != 2 || !strings.Contains(r.stderr, "shm-size") || !strings.Contains(r.stderr, "bad limit") {
		t.Errorf("--shm-size 1x: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
}

// TestRunLimitsCaller runs sandtable itself as root and as the
// unprivileged user: --max-procs 64 stops a fork loop below 64 (a pids
// cgroup for root; RLIMIT_NPROC for the user, who cannot make a cgroup
// here), and the control without a bound starts all 200. A memory limit
// is enforced for root and refused for the user, never dropped.
func TestRunLimitsCaller(t *testing.T) {
	requireBwrap(t)
	py := "/usr/bin/python3" // not a per-user shim the unprivileged user cannot read
	if _, err := os.Stat(py); err != nil {
		t.Skip("no " + py)
	}
	for _, u := range callers(t) {
		t.Run(u.label, func(t *testing.T) {
			e := newEnv(t)
			sandtable := u.own(t, e)
			run := func(args ...string) result {
				t.Helper()
				cmd := exec.Command(sandtable, args...)
				cmd.Dir, cmd.Env = e.ws, e.environ()
				cmd.SysProcAttr = u.attr()
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if _, ok := err.(*exec.ExitError); err != nil && !ok {
					t.Fatalf("sandtable %q: %v", args, err)
				}
				return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
			}
			r := run("run", "--max-procs", "64", "--", py, "-c", testkit.ForkScript)
			if n := testkit.ForksStarted(r.stdout); r.code != 0 || n < 0 || n >= 64 || !strings.Contains(r.stdout, "FORKFAIL errno=11") {
				t.Errorf("--max-procs 64: exit %d, %d started: %s %s", r.code, n, r.stdout, r.stderr)
			}
			r = run("run", "--max-procs", "-1", "--", py, "-c", testkit.ForkScript)
			if n := testkit.ForksStarted(r.stdout); r.code != 0 || n != 200 {
				t.Errorf("control --max-procs -1: exit %d, %d started, want 200: %s %s", r.code, n, r.stdout, r.stderr)
			}
			r = run("run", "--", "true")
			if r.code != 0 || r.stderr != "" {
				t.Errorf("the default limits: exit %d, stderr %q; want them enforced, without a warning", r.code, r.stderr)
			}
			// 64 MiB into /tmp, memory the run is charged for: a 32 MiB
			// memory limit stops it (the kernel kills the writer), and
			// the control without it stores them.
			fill := []string{"sh", "-c", `head -c 67108864 /dev/zero > /tmp/fill; echo "STORED=$(stat -c %s /tmp/fill)"`}
			r = run(append([]string{"run", "--memory", "32M", "--"}, fill...)...)
			if u.root {
				if strings.Contains(r.stdout, "STORED=67108864") {
					t.Errorf("--memory 32M as root stored 64 MiB: exit %d, %s %s", r.code, r.stdout, r.stderr)
				}
				r = run(append([]string{"run", "--"}, fill...)...)
				if !strings.Contains(r.stdout, "STORED=67108864") {
					t.Errorf("control, no --memory: exit %d, %s %s; want 64 MiB stored", r.code, r.stdout, r.stderr)
				}
			}
			// Two seconds of CPU: --cpu-time 1s kills it; the control
			// finishes.
			spin := []string{py, "-c", "import time\nwhile time.process_time() < 2: pass\nprint('SPUN')"}
			r = run(append([]string{"run", "--cpu-time", "1s", "--"}, spin...)...)
			if r.code == 0 || strings.Contains(r.stdout, "SPUN") {
				t.Errorf("--cpu-time 1s: exit %d, %s %s; want the spin killed", r.code, r.stdout, r.stderr)
			}
			r = run(append([]string{"run", "--"}, spin...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "SPUN") {
				t.Errorf("control, no --cpu-time: exit %d, %s %s; want it finished", r.code, r.stdout, r.stderr)
			}
			r = run("run", "--memory", "64M", "--", "sh", "-c", "echo RAN")
			if u.root {
				if r.code != 0 || r.stdout != "RAN\n" {
					t.Errorf("--memory 64M as root: exit %d, %s", r.code, r.stderr)
				}
			} else if r.code != exitSetup || r.stdout != "" || !strings.Contains(r.stderr, "memory limit 67108864 (rule limit-memory) cannot be enforced") {
				t.Errorf("--memory 64M unprivileged: exit %d, stdout %q, stderr %q; want it refused, the command never run", r.code, r.stdout, r.stderr)
			}
		})
	}
}
