package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/sandtable/sandtable/sandbox"
)

// limitFlags are the flags that change a limit from the table's default
// (docs/POLICY.md, Limits).
type limitFlags struct {
	tmpSize, shmSize, memory sizeFlag
	processes, proxyConns    int
	cpuTime                  time.Duration
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.tmpSize, "tmp-size", "bound the private /tmp to `size` bytes (K, M, G suffixes; default 1G, at most\n        a quarter of RAM)")
	fs.Var(&f.shmSize, "shm-size", "bound /dev/shm to `size` bytes (default 64M)")
	fs.IntVar(&f.processes, "max-procs", 0, "bound the run to `n` processes at once, -1 for no bound (default 4096,\n        applied where this machine can; a value given here is enforced or refused)")
	fs.Var(&f.memory, "memory", "bound the memory the run is charged for, tmpfs included, to `size` bytes\n        (a memory cgroup; refused where none can be made)")
	fs.IntVar(&f.proxyConns, "max-proxy-connections", 0, "bound network mode proxy to `n` connections at once, -1 for no bound\n        (default 256)")
	fs.DurationVar(&f.cpuTime, "cpu-time", 0, "bound each process's CPU time to `duration` (RLIMIT_CPU, inherited)")
}

func (f *limitFlags) apply(l *sandbox.Limits) {
	l.TmpSize = int64(f.tmpSize)
	l.ShmSize = int64(f.shmSize)
	l.Processes = f.processes
	l.Memory = int64(f.memory)
	l.CPUTime = f.cpuTime
	l.ProxyConnections = f.proxyConns
}

// warnUnenforced says on stderr which default limits this run goes without.
func warnUnenforced(c *sandbox.Cmd) {
	for _, s := range c.Unenforced() {
		fmt.Fprintln(os.Stderr, "sandtable: warning: "+s)
	}
}

// sizeFlag is a size in bytes, read by sandbox.ParseSize.
type sizeFlag int64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*s), 10)
}

func (s *sizeFlag) Set(v string) error {
	n, err := sandbox.ParseSize(v)
	*s = sizeFlag(n)
	return err
}

// explainLimits says on stderr, so that stdout stays a pasteable command
// line, which limits sandtable run applies beyond the argv.
func explainLimits(cfg sandbox.Config) {
	steps, err := sandbox.ExplainLimits(cfg)
	if err != nil {
		return // the argv's build has reported it already
	}
	for _, s := range steps {
		fmt.Fprintf(os.Stderr, "sandtable explain: sandtable run also applies %s %s (rule %s; %s) while bwrap holds the command\n", s.Args[0], s.Args[1], s.Rule, s.Args[2])
	}
}
