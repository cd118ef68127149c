package sandbox

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// The reduced backend's second seccomp filter: the landlock section's
// refuse rows (rules/linux.yaml), loaded after the seccomp section's own
// filter, which the kernel applies as well (the stricter verdict wins).
// Assembled as seccomp.go assembles the first, for every system call ABI
// of this GOARCH; an ABI it does not know is refused everything.

const bpfAndK = 0x54 // BPF_ALU | BPF_AND | BPF_K

// landlockSeccomp is the filter for this process's architecture, nil
// where there is none.
var landlockSeccomp = sync.OnceValue(func() []byte { return landlockFilter(runtime.GOARCH, landlockSeccompRows[:]) })

// landlockFilter assembles rows for goarch.
func landlockFilter(goarch string, rows []landlockSeccompRow) []byte {
	arches, ok := seccompArches[goarch]
	if !ok || len(rows) == 0 {
		return nil
	}
	var a bpfAsm
	a.stmt(bpfLdWAbs, offArch)
	for i, arch := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		a.jump(bpfJeqK, arch.audit, "", next)
		a.stmt(bpfLdWAbs, offNr)
		if arch.x32 {
			a.jump(bpfJgeK, x32Bit, deny(1), "")
		}
		var socketNr, cloneNr uint32 = noSyscall, noSyscall
		var families []uint32
		for _, r := range rows {
			nr := r.nr[arch.abi]
			switch r.kind {
			case llRefuseSyscall:
				if nr != noSyscall {
					a.jump(bpfJeqK, nr, deny(r.errno), "")
				}
			case llRefuseSocket:
				socketNr = nr
				for _, f := range r.families {
					if !slices.Contains(families, f) {
						families = append(families, f)
					}
				}
			case llRefuseClone:
				cloneNr = nr
			}
		}
		sock, clone := fmt.Sprintf("sock%d", i), fmt.Sprintf("clone%d", i)
		if socketNr != noSyscall {
			a.jump(bpfJeqK, socketNr, sock, "")
		}
		if cloneNr != noSyscall {
			a.jump(bpfJeqK, cloneNr, clone, "")
		}
		a.stmt(bpfRetK, retAllow)
		if cloneNr != noSyscall {
			a.label(clone)
			// clone's flags are its first argument on every ABI above,
			// and every namespace flag is in their low word.
			a.stmt(bpfLdWAbs, offArgLow(0))
			for _, r := range rows {
				if r.kind == llRefuseClone {
					a.jump(bpfJsetK, r.flags, deny(r.errno), "")
				}
			}
			a.stmt(bpfRetK, retAllow)
		}
		if socketNr == noSyscall {
			a.label(next)
			continue
		}
		a.label(sock)
		a.stmt(bpfLdWAbs, offArgLow(0)) // the family, an int
		for k, f := range families {
			a.jump(bpfJeqK, f, fmt.Sprintf("fam%d.%d", i, k), "")
		}
		a.stmt(bpfRetK, retAllow)
		for k, f := range families {
			a.label(fmt.Sprintf("fam%d.%d", i, k))
			for j, r := range rows {
				if r.kind != llRefuseSocket || !slices.Contains(r.families, f) {
					continue
				}
				ok := fmt.Sprintf("fam%d.%d.%d", i, k, j)
				switch {
				case len(r.keepTypes) > 0:
					// The type's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC
					// are flags above them.
					a.stmt(bpfLdWAbs, offArgLow(1))
					a.stmt(bpfAndK, 0xf)
					for t, typ := range r.keepTypes {
						last := ""
						if t == len(r.keepTypes)-1 {
							last = deny(r.errno)
						}
						a.jump(bpfJeqK, typ, ok, last)
					}
				case len(r.keepProtocols) > 0:
					a.stmt(bpfLdWAbs, offArgLow(2))
					for t, proto := range r.keepProtocols {
						last := ""
						if t == len(r.keepProtocols)-1 {
							last = deny(r.errno)
						}
						a.jump(bpfJeqK, proto, ok, last)
					}
				default:
					a.stmt(bpfRetK, retErrno|r.errno)
				}
				a.label(ok)
			}
			a.stmt(bpfRetK, retAllow)
		}
		a.label(next)
	}
	a.stmt(bpfRetK, retEPERM)
	errnos := []uint32{1}
	for _, r := range rows {
		if !slices.Contains(errnos, r.errno) {
			errnos = append(errnos, r.errno)
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
