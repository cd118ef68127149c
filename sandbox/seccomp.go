package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// The seccomp filter bwrap loads with --seccomp. What it refuses is the
// rule table's seccomp section (seccompSyscalls and seccompIoctls, from
// rules/linux.yaml); this file only assembles it, for every system call ABI
// a process of this GOARCH can enter the kernel through.
//
// It is classic BPF over struct seccomp_data, assembled here rather than
// shipped as bytes so a reviewer can read what it does. The constants are
// spelled out because this file builds on every OS (explain renders the
// Linux argv anywhere); seccomp_linux_test.go checks them against x/sys.

const (
	bpfLdWAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK    = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgeK    = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfJsetK   = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	retAllow   = 0x7fff0000
	retErrno   = 0x00050000   // SECCOMP_RET_ERRNO, or'd with the errno
	retEPERM   = retErrno | 1 // SECCOMP_RET_ERRNO | EPERM
	offNr      = 0            // seccomp_data.nr
	offArch    = 4            // seccomp_data.arch
	offArg1Low = 24           // low word of seccomp_data.args[1], little-endian
	x32Bit     = 0x40000000   // __X32_SYSCALL_BIT
	noSyscall  = 0xffffffff   // seccompModeCall.nr on an ABI without the call
	sIsuid     = 0o4000
	sIsgid     = 0o2000
	oCreat     = 0o100      // the same on every ABI above
	oTmpfile   = 0o20000000 // __O_TMPFILE
)

// offArgLow is the offset of the low word of seccomp_data.args[i].
func offArgLow(i int) uint32 { return 16 + 8*uint32(i) }

// seccompArch is one system call ABI a process of this GOARCH can enter the
// kernel through: the native one and its 32-bit compat ABI, which has other
// numbers for the same calls and must not be a way around the filter.
type seccompArch struct {
	audit uint32 // AUDIT_ARCH_*
	x32   bool   // x86-64 also accepts x32 numbers; refuse them all
	ioctl uint32
	abi   int // the index of its numbers in seccompSyscall.nr
}

var seccompArches = map[string][]seccompArch{
	"amd64": {
		{audit: 0xc000003e, x32: true, ioctl: 16, abi: 0},
		{audit: 0x40000003, ioctl: 54, abi: 1}, // i386
	},
	"arm64": {
		{audit: 0xc00000b7, ioctl: 29, abi: 2},
		{audit: 0x40000028, ioctl: 54, abi: 3}, // arm
	},
}

// seccompTable is what one filter refuses: the generated entries, or (in
// tests) a copy without some of them.
type seccompTable struct {
	syscalls []seccompSyscall
	modes    []seccompModeCall
	ioctls   []seccompIoctl
	families []seccompFamilyRule
}

// generatedSeccomp is the table's seccomp section.
var generatedSeccomp = seccompTable{seccompSyscalls[:], seccompModeCalls[:], seccompIoctls[:], seccompFamilies[:]}

// nativeSeccomp is the filter for this process's architecture, assembled
// once: every plan asks whether there is one, and every Linux Prefix passes
// it on. Nil when there is none.
var nativeSeccomp = sync.OnceValue(func() []byte { return seccompFilter(runtime.GOARCH) })

// seccompFilter returns the filter for goarch as bwrap reads it (an array
// of struct sock_filter in the machine's byte order, little-endian on
// every arch above), or nil when there is none for goarch.
func seccompFilter(goarch string) []byte { return generatedSeccomp.filter(goarch) }

func (t seccompTable) filter(goarch string) []byte {
	arches, ok := seccompArches[goarch]
	if !ok || len(t.syscalls)+len(t.modes)+len(t.ioctls)+len(t.families) == 0 {
		return nil
	}
	var a bpfAsm
	a.stmt(bpfLdWAbs, offArch)
	for i, arch := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		ioctl := fmt.Sprintf("ioctl%d", i)
		a.jump(bpfJeqK, arch.audit, "", next)
		a.stmt(bpfLdWAbs, offNr)
		if arch.x32 {
			a.jump(bpfJgeK, x32Bit, deny(1), "")
		}
		for _, sc := range t.syscalls {
			if sc.nr[arch.abi] != noSyscall {
				a.jump(bpfJeqK, sc.nr[arch.abi], deny(sc.errno), "")
			}
		}
		for k, fr := range t.families {
			for _, nr := range fr.calls {
				a.jump(bpfJeqK, nr[arch.abi], fmt.Sprintf("family%d.%d", i, k), "")
			}
		}
		var modes []seccompModeCall
		for _, mc := range t.modes {
			if mc.nr[arch.abi] != noSyscall {
				a.jump(bpfJeqK, mc.nr[arch.abi], fmt.Sprintf("mode%d.%d", i, len(modes)), "")
				modes = append(modes, mc)
			}
		}
		if len(t.ioctls) == 0 {
			a.stmt(bpfRetK, retAllow)
		} else {
			a.jump(bpfJeqK, arch.ioctl, ioctl, "allow")
			a.label(ioctl)
			// The kernel reads the request as an unsigned int, so only
			// the low word counts: comparing all 64 bits would let
			// 1<<32|TIOCSTI through (CVE-2019-10063).
			a.stmt(bpfLdWAbs, offArg1Low)
			for j, io := range t.ioctls {
				last := ""
				if j == len(t.ioctls)-1 {
					last = "allow"
				}
				a.jump(bpfJeqK, io.request, deny(io.errno), last)
			}
		}
		// A mode is an unsigned int too: its low word is all of it.
		for j, mc := range modes {
			a.label(fmt.Sprintf("mode%d.%d", i, j))
			if mc.flags >= 0 {
				a.stmt(bpfLdWAbs, offArgLow(mc.flags))
				a.jump(bpfJsetK, oCreat|oTmpfile, "", "allow")
			}
			a.stmt(bpfLdWAbs, offArgLow(mc.mode))
			a.jump(bpfJsetK, sIsuid|sIsgid, deny(mc.errno), "allow")
		}
		// The family is an int: its low word is all the kernel reads.
		for k, fr := range t.families {
			a.label(fmt.Sprintf("family%d.%d", i, k))
			if len(fr.keep) == 0 {
				a.stmt(bpfRetK, retErrno|fr.errno)
				continue
			}
			a.stmt(bpfLdWAbs, offArgLow(0))
			for j, fam := range fr.keep {
				last := ""
				if j == len(fr.keep)-1 {
					last = deny(fr.errno)
				}
				a.jump(bpfJeqK, fam, "allow", last)
			}
		}
		a.label(next)
	}
	// An ABI this filter does not know: nothing it asks for is allowed.
	a.stmt(bpfRetK, retEPERM)
	// One verdict per errno the entries return, EPERM first.
	errnos := []uint32{1}
	for _, e := range t.errnos() {
		if !slices.Contains(errnos, e) {
			errnos = append(errnos, e)
		}
	}
	for _, e := range errnos {
		a.label(deny(e))
		a.stmt(bpfRetK, retErrno|e)
	}
	a.label("allow")
	a.stmt(bpfRetK, retAllow)
	return a.assemble()
}

// deny is the label of the verdict that returns errno.
func deny(errno uint32) string { return fmt.Sprintf("deny%d", errno) }

// errnos are the errnos the entries return, in table order.
func (t seccompTable) errnos() []uint32 {
	var out []uint32
	for _, e := range t.syscalls {
		out = append(out, e.errno)
	}
	for _, e := range t.modes {
		out = append(out, e.errno)
	}
	for _, e := range t.ioctls {
		out = append(out, e.errno)
	}
	for _, e := range t.families {
		out = append(out, e.errno)
	}
	return out
}

// bpfAsm assembles classic BPF with forward jumps to named labels; "" is
// the next instruction.
type bpfAsm struct {
	insns  []bpfInsn
	labels map[string]int
}

type bpfInsn struct {
	code   uint16
	k      uint32
	jt, jf string
}

func (a *bpfAsm) stmt(code uint16, k uint32) { a.insns = append(a.insns, bpfInsn{code: code, k: k}) }

func (a *bpfAsm) jump(code uint16, k uint32, jt, jf string) {
	a.insns = append(a.insns, bpfInsn{code: code, k: k, jt: jt, jf: jf})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insns)
}

func (a *bpfAsm) assemble() []byte {
	out := make([]byte, 0, 8*len(a.insns))
	for i, in := range a.insns {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, a.offset(i, in.jt), a.offset(i, in.jf))
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out
}

// offset is how far instruction i jumps to reach label; BPF only jumps
// forward, at most 255 instructions, which the generator's bound on the
// table's seccomp section keeps the filter within.
func (a *bpfAsm) offset(i int, label string) byte {
	if label == "" {
		return 0
	}
	to, ok := a.labels[label]
	if d := to - i - 1; !ok || d < 0 || d > 255 {
		panic(fmt.Sprintf("seccomp: bad jump from %d to %q", i, label))
	}
	return byte(a.labels[label] - i - 1)
}
