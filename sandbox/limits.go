package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrBadLimit is a [Config.Limits] value that cannot be a bound.
var ErrBadLimit = errors.New("bad limit")

// Limits bound what one sandboxed run may use. A zero field takes the
// default of the limits section of rules/linux.yaml (docs/POLICY.md lists
// them with their reasons). Linux only: macOS's temporary directories are
// the host's.
type Limits struct {
	// TmpSize and ShmSize bound the private /tmp and /dev/shm, in bytes:
	// both are memory, and a write past the bound fails with ENOSPC.
	TmpSize, ShmSize int64

	// Processes bounds the processes of one run at once; -1 for no bound.
	// Memory bounds the memory the run's processes are charged for,
	// tmpfs pages included, in bytes. CPUTime bounds each process's CPU
	// time (RLIMIT_CPU, inherited), rounded up to whole seconds. These
	// are applied at run time, by NewCmd only: a value set here that this
	// machine cannot enforce makes NewCmd refuse the spawn (ErrUnavailable),
	// and Command, whose plain exec.Cmd has no moment to apply them,
	// refuses any set here.
	Processes int
	Memory    int64
	CPUTime   time.Duration

	// ProxyConnections bounds the connections network mode proxy's server
	// relays at once for one run; -1 for no bound. The proxy runs in the
	// caller's process (Command's and Prefix's in their helper), outside
	// the limits above, and counts them itself, so it always holds.
	ProxyConnections int
}

// runLimits are the limits applied at run time, each 0 for none, and
// which of them must be enforced or the spawn refused: those the caller
// set, and defaults whose row says refuse.
type runLimits struct {
	procs, memory, cpuSecs uint64
	required               [limitCount]bool
}

// any reports whether a run-time limit applies.
func (r *runLimits) any() bool { return r.procs != 0 || r.memory != 0 || r.cpuSecs != 0 }

// value is limit i's bound, 0 for none.
func (r *runLimits) value(i int) uint64 {
	switch i {
	case limitProcesses:
		return r.procs
	case limitMemory:
		return r.memory
	case limitCPUTime:
		return r.cpuSecs
	}
	return 0
}

// setRunLimits resolves the run-time limits against the table.
func (p *plan) setRunLimits(l Limits) error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("sandbox: limits: %s %v: %w (want %s)", name, v, ErrBadLimit, want)
	}
	if l.Processes < -1 {
		return bad("Processes", l.Processes, "a positive number, 0 for the default or -1 for none")
	}
	if l.Memory < 0 {
		return bad("Memory", l.Memory, "a positive number of bytes, or 0 for the default")
	}
	if l.ProxyConnections < -1 {
		return bad("ProxyConnections", l.ProxyConnections, "a positive number, 0 for the default or -1 for none")
	}
	if l.CPUTime < 0 {
		return bad("CPUTime", l.CPUTime, "a positive duration, or 0 for the default")
	}
	r := &p.run
	set := func(i int, v uint64, explicit bool) uint64 {
		if !explicit {
			v = limitTable[i].value
		}
		r.required[i] = v != 0 && (explicit || limitTable[i].refuse)
		return v
	}
	r.procs = set(limitProcesses, uint64(max(l.Processes, 0)), l.Processes > 0)
	if l.Processes == -1 {
		r.procs, r.required[limitProcesses] = 0, false
	}
	r.memory = set(limitMemory, uint64(l.Memory), l.Memory > 0)
	r.cpuSecs = set(limitCPUTime, uint64((l.CPUTime+time.Second-1)/time.Second), l.CPUTime > 0)
	// The proxy's bound travels with its lists (Network.conns), and the
	// proxy resolves it (proxyConnLimit); nothing here is required.
	p.net.conns = l.ProxyConnections
	return nil
}

// limitNames are the run-time limits as errors and probe name them.
var limitNames = [limitCount]string{limitProcesses: "processes", limitMemory: "memory", limitCPUTime: "cpu-time"}

// setLimits fills the plan's bwrap operands from the caller's limits and
// the table's defaults.
func (p *plan) setLimits(l Limits) error {
	for _, s := range [...]struct {
		i    int
		name string
		v    int64
	}{{limitTmpSize, "TmpSize", l.TmpSize}, {limitShmSize, "ShmSize", l.ShmSize}} {
		switch {
		case s.v < 0:
			return fmt.Errorf("sandbox: limits: %s %d: %w (want a positive number of bytes, or 0 for the default)", s.name, s.v, ErrBadLimit)
		case s.v > 0:
			p.limitArgs[s.i] = strconv.FormatInt(s.v, 10)
		default:
			p.limitArgs[s.i] = limitDefaults()[s.i]
		}
	}
	return p.setRunLimits(l)
}

// limitArg is the bwrap operand of limit i: the plan's, or the table's
// default for a plan built without a Config (the probe's).
func (p *plan) limitArg(i int) string {
	if s := p.limitArgs[i]; s != "" {
		return s
	}
	return limitTable[i].arg
}

// limitDefaults are the table's defaults in decimal, each at most its
// share of this machine's memory; computed once, since neither changes.
var limitDefaults = sync.OnceValue(func() (d [limitCount]string) {
	ram := totalRAM()
	for i, row := range limitTable {
		d[i] = row.arg
		if row.ramShare > 0 && ram > 0 && ram/row.ramShare < row.value {
			d[i] = strconv.FormatUint(ram/row.ramShare, 10)
		}
	}
	return d
})

// ParseSize reads a size as sandtable run's flags take it: a number of
// bytes, optionally followed by K, M or G (or KiB, MiB, GiB), powers of
// 1024.
func ParseSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for i, suf := range []string{"K", "M", "G"} {
		if t, ok := strings.CutSuffix(strings.TrimSuffix(s, "iB"), suf); ok && t != "" {
			num, mult = t, 1<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("sandbox: size %q: %w (want a positive number of bytes, optionally followed by K, M or G)", s, ErrBadLimit)
	}
	return n * mult, nil
}

// mountFlagAt skips the options that modify the next mount (--size,
// --perms: [bwrapModifier]) and returns the index of the mount flag itself.
func mountFlagAt(args []string) int {
	i := 0
	for i < len(args) {
		n := bwrapModifier(args[i])
		if n == 0 || i+n >= len(args) {
			break
		}
		i += 1 + n
	}
	return i
}

// limitError is a run-time limit that must be enforced and cannot be.
func limitError(i int, v uint64, why, hint string) error {
	return &unavailableError{
		reason: fmt.Sprintf("%s limit %d (rule %s) cannot be enforced: %s", limitNames[i], v, limitTable[i].rule, why),
		hint:   hint,
	}
}

// refuseRequired refuses a spawn that has no moment to apply run-time
// limits (Command's plain exec.Cmd, macOS) when one of them must be
// enforced; the others are skipped, as the table's rows allow.
func refuseRequired(p *plan, why, hint string) error {
	if p == nil {
		return nil
	}
	for i, req := range p.run.required {
		if req {
			return limitError(i, p.run.value(i), why, hint)
		}
	}
	return nil
}

// Unenforced lists the table's default limits this spawn could not apply
// on this machine (the rows that allow a run without them), one sentence
// each; nil before Start, and when every limit holds. sandtable run prints
// them. A limit set in [Config.Limits] is never here: it is enforced, or
// Start fails.
func (c *Cmd) Unenforced() []string { return c.checked.unenforced() }

// ExplainLimits lists the run-time limits [NewCmd] would apply for cfg, one
// Step each: the row of the limits section that sets the default (or the
// caller's value), and Args naming the limit, its value in its unit
// (bytes, processes, seconds) and whether it is required or skipped where
// this machine cannot enforce it. The sizes are in [Explain]'s argv.
func ExplainLimits(cfg Config) ([]Step, error) {
	var p plan
	if err := p.setLimits(cfg.Limits); err != nil {
		return nil, err
	}
	var steps []Step
	for _, i := range []int{limitProcesses, limitMemory, limitCPUTime} {
		v := p.run.value(i)
		if v == 0 {
			continue
		}
		mode := "skipped where it cannot be enforced"
		if p.run.required[i] {
			mode = "required"
		}
		steps = append(steps, Step{Rule: limitTable[i].rule, Args: []string{limitNames[i], strconv.FormatUint(v, 10), mode}})
	}
	return steps, nil
}
