package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// ErrBadLimit is a Config.Limits value that cannot be a bound.
var ErrBadLimit = errors.New("bad limit")

// Limits bound what one sandboxed run may use. A zero field takes the
// default of the limits section of rules/linux.yaml (docs/POLICY.md lists
// them with their reasons). Linux only: macOS's temporary directories are
// the host's.
type Limits struct {
	// TmpSize and ShmSize bound the private /tmp and /dev/shm, in bytes:
	// both are memory, and a write past the bound fails with ENOSPC.
	TmpSize, ShmSize int64
}

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
	return nil
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
// --perms) and returns the index of the mount flag itself.
func mountFlagAt(args []string) int {
	i := 0
	for i+1 < len(args) && (args[i] == "--size" || args[i] == "--perms") {
		i += 2
	}
	return i
}
