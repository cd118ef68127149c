// Package seccomp assembles the classic BPF seccomp filters the sandbox
// loads: bwrap's (--seccomp, from the table's seccomp section) and the
// reduced backend's second one (the landlock section's refuse rows). It
// owns the instruction encoding, the system call ABIs of each GOARCH and
// the shape of a filter; what a filter refuses is the caller's data (the
// rows package sandbox's zz_generated.go lists). It imports only the
// standard library and builds on every OS, since explain renders the Linux
// argv anywhere.
//
// The filters are assembled here rather than shipped as bytes so that a
// reviewer can read what they do; the constants are spelled out and
// checked against x/sys by TestConstants.
package seccomp

import (
	"encoding/binary"
	"fmt"
)

const (
	ldWAbs     = 0x20 // BPF_LD | BPF_W | BPF_ABS
	jeqK       = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	jgeK       = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	jsetK      = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	andK       = 0x54 // BPF_ALU | BPF_AND | BPF_K
	retK       = 0x06 // BPF_RET | BPF_K
	offNr      = 0    // seccomp_data.nr
	offArch    = 4    // seccomp_data.arch
	offArg1Low = 24   // low word of seccomp_data.args[1], little-endian
	x32Bit     = 0x40000000
	sIsuid     = 0o4000
	sIsgid     = 0o2000
	oCreat     = 0o100      // the same on every ABI below
	oTmpfile   = 0o20000000 // __O_TMPFILE
)

// The verdicts a filter returns.
const (
	RetAllow = 0x7fff0000   // SECCOMP_RET_ALLOW
	RetErrno = 0x00050000   // SECCOMP_RET_ERRNO, or'd with the errno
	RetEPERM = RetErrno | 1 // SECCOMP_RET_ERRNO | EPERM
)

// NoSyscall is a call's number on an ABI that does not have it.
const NoSyscall = 0xffffffff

// offArgLow is the offset of the low word of seccomp_data.args[i].
func offArgLow(i int) uint32 { return 16 + 8*uint32(i) }

// Arch is one system call ABI a process of a GOARCH can enter the kernel
// through: the native one and its 32-bit compat ABI, which has other
// numbers for the same calls and must not be a way around the filter.
type Arch struct {
	Audit uint32 // AUDIT_ARCH_*
	X32   bool   // x86-64 also accepts x32 numbers; refuse them all
	Ioctl uint32 // ioctl's number
	ABI   int    // the index of its numbers in a row's [4]uint32
}

// Arches are the ABIs of each GOARCH a filter is assembled for, the native
// one first; a row's numbers are for x86-64, i386, aarch64 and arm, in
// that order.
var Arches = map[string][]Arch{
	"amd64": {
		{Audit: 0xc000003e, X32: true, Ioctl: 16, ABI: 0},
		{Audit: 0x40000003, Ioctl: 54, ABI: 1}, // i386
	},
	"arm64": {
		{Audit: 0xc00000b7, Ioctl: 29, ABI: 2},
		{Audit: 0x40000028, Ioctl: 54, ABI: 3}, // arm
	},
}

// deny is the label of the verdict that returns errno.
func deny(errno uint32) string { return fmt.Sprintf("deny%d", errno) }

// asm assembles classic BPF with forward jumps to named labels; "" is the
// next instruction.
type asm struct {
	insns  []insn
	labels map[string]int
}

type insn struct {
	code   uint16
	k      uint32
	jt, jf string
}

func (a *asm) stmt(code uint16, k uint32) { a.insns = append(a.insns, insn{code: code, k: k}) }

func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.insns = append(a.insns, insn{code: code, k: k, jt: jt, jf: jf})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insns)
}

// verdicts ends a program: the EPERM verdict for an ABI the filter does
// not know was emitted before; one verdict per errno, EPERM first, then
// the allow.
func (a *asm) verdicts(errnos []uint32) {
	seen := map[uint32]bool{1: true}
	all := []uint32{1}
	for _, e := range errnos {
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
		}
	}
	for _, e := range all {
		a.label(deny(e))
		a.stmt(retK, RetErrno|e)
	}
	a.label("allow")
	a.stmt(retK, RetAllow)
}

// assemble encodes the program as bwrap and the kernel read it: an array
// of struct sock_filter in the machine's byte order, little-endian on
// every GOARCH of Arches.
func (a *asm) assemble() []byte {
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
func (a *asm) offset(i int, label string) byte {
	if label == "" {
		return 0
	}
	to, ok := a.labels[label]
	if d := to - i - 1; !ok || d < 0 || d > 255 {
		panic(fmt.Sprintf("seccomp: bad jump from %d to %q", i, label))
	}
	return byte(to - i - 1)
}
