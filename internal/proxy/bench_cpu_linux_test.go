package proxy

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuAccounting: BenchmarkProxyDownload accounts each party's CPU
// (/proc/PID/task/*/schedstat, the scheduler's nanosecond run and wait
// times, which on this kernel include the softirq work done in a task's
// context) and the machine's idle time (/proc/stat).
const cpuAccounting = true

// cpuSample is CPU time, cumulative, or over one download (minus).
type cpuSample struct {
	client, server, relay time.Duration // each process, every thread
	softirqd              time.Duration // the kernel's ksoftirqd threads
	wait                  time.Duration // the three processes runnable, not running
	idle                  time.Duration // every CPU of the machine idle
}

func (a cpuSample) minus(b cpuSample) cpuSample {
	return cpuSample{a.client - b.client, a.server - b.server, a.relay - b.relay,
		a.softirqd - b.softirqd, a.wait - b.wait, a.idle - b.idle}
}

type cpuAccount struct {
	server, relay int
	softirqd      []string // /proc/PID/schedstat
}

func newCPUAccount(server, relay int) cpuAccount {
	a := cpuAccount{server: server, relay: relay}
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && bytes.HasPrefix(b, []byte("ksoftirqd/")) {
			a.softirqd = append(a.softirqd, filepath.Join(filepath.Dir(c), "schedstat"))
		}
	}
	return a
}

func (a cpuAccount) sample() cpuSample {
	var s cpuSample
	var w [3]time.Duration
	s.server, w[0] = procSchedstat(strconv.Itoa(a.server))
	s.relay, w[1] = procSchedstat(strconv.Itoa(a.relay))
	for _, f := range a.softirqd {
		run, _ := schedstat(f)
		s.softirqd += run
	}
	s.idle = machineIdle()
	s.client, w[2] = procSchedstat("self")
	s.wait = w[0] + w[1] + w[2]
	return s
}

// procSchedstat sums the run and wait times of every thread of process
// pid ("self" for this one).
func procSchedstat(pid string) (run, wait time.Duration) {
	tasks, _ := filepath.Glob("/proc/" + pid + "/task/*/schedstat")
	for _, t := range tasks {
		r, w := schedstat(t)
		run, wait = run+r, wait+w
	}
	return run, wait
}

func schedstat(file string) (run, wait time.Duration) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0
	}
	r, _ := strconv.ParseInt(f[0], 10, 64)
	w, _ := strconv.ParseInt(f[1], 10, 64)
	return time.Duration(r), time.Duration(w)
}

// machineIdle is the idle and iowait time of every CPU (/proc/stat's
// "cpu" line, in 10 ms ticks).
func machineIdle() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 6 {
		return 0
	}
	idle, _ := strconv.ParseInt(f[4], 10, 64)
	iowait, _ := strconv.ParseInt(f[5], 10, 64)
	return time.Duration(idle+iowait) * 10 * time.Millisecond
}
