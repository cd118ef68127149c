//go:build !linux

package proxy

import (
	"syscall"
	"time"
)

// cpuAccounting: only the client's own CPU is known here, and
// BenchmarkProxyDownload reports throughput alone.
const cpuAccounting = false

type cpuSample struct{ client, server, relay, softirqd, wait, idle time.Duration }

func (a cpuSample) minus(b cpuSample) cpuSample {
	return cpuSample{client: a.client - b.client}
}

type cpuAccount struct{}

func newCPUAccount(server, relay int) cpuAccount { return cpuAccount{} }

func (cpuAccount) sample() cpuSample {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuSample{client: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
}
