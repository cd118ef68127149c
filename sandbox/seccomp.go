package sandbox

import (
	"runtime"
	"sync"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// The seccomp filter bwrap loads with --seccomp. What it refuses is the
// rule table's seccomp section (seccompSyscalls, seccompModeCalls,
// seccompIoctls and seccompFamilies, from rules/linux.yaml);
// internal/seccomp assembles it, for every system call ABI a process of
// this GOARCH can enter the kernel through.

// generatedSeccomp is the table's seccomp section.
var generatedSeccomp = seccomp.Table{Syscalls: seccompSyscalls[:], Modes: seccompModeCalls[:], Ioctls: seccompIoctls[:], Families: seccompFamilies[:]}

// nativeSeccomp is the filter for this process's architecture, assembled
// once: every plan asks whether there is one, and every Linux Prefix passes
// it on. Nil when there is none.
var nativeSeccomp = sync.OnceValue(func() []byte { return seccompFilter(runtime.GOARCH) })

// seccompFilter returns the filter for goarch as bwrap reads it, or nil
// when there is none for goarch.
func seccompFilter(goarch string) []byte { return generatedSeccomp.Filter(goarch) }
