package seccomp

import (
	"fmt"
	"slices"
)

// Kind is what a ReducedRow refuses.
type Kind int

// The kinds of ReducedRow.
const (
	RefuseSocket  Kind = iota // socket(2) in Families, unless of a kept type or protocol
	RefuseSyscall             // the call numbered Nr
	RefuseClone               // clone(2) with any of Flags
)

// ReducedRow is one refuse row of the reduced backend's second filter,
// failing with Errno; Nr is numbered as Syscall's.
type ReducedRow struct {
	Rule          string
	Kind          Kind
	Families      []uint32
	KeepTypes     []uint32
	KeepProtocols []uint32
	Nr            [4]uint32
	Flags         uint32
	Errno         uint32
}

// ReducedFilter assembles rows for goarch, every ABI of it in Arches, or
// returns nil when there is none for goarch or no row. It is loaded after
// bwrap's filter (Table.Filter), which the kernel applies as well: the
// stricter verdict wins. An ABI it does not know is refused everything.
func ReducedFilter(goarch string, rows []ReducedRow) []byte {
	arches, ok := Arches[goarch]
	if !ok || len(rows) == 0 {
		return nil
	}
	var a asm
	a.stmt(ldWAbs, offArch)
	for i, arch := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		a.jump(jeqK, arch.Audit, "", next)
		a.stmt(ldWAbs, offNr)
		if arch.X32 {
			a.jump(jgeK, x32Bit, deny(1), "")
		}
		var socketNr, cloneNr uint32 = NoSyscall, NoSyscall
		var families []uint32
		for _, r := range rows {
			nr := r.Nr[arch.ABI]
			switch r.Kind {
			case RefuseSyscall:
				if nr != NoSyscall {
					a.jump(jeqK, nr, deny(r.Errno), "")
				}
			case RefuseSocket:
				socketNr = nr
				for _, f := range r.Families {
					if !slices.Contains(families, f) {
						families = append(families, f)
					}
				}
			case RefuseClone:
				cloneNr = nr
			}
		}
		sock, clone := fmt.Sprintf("sock%d", i), fmt.Sprintf("clone%d", i)
		if socketNr != NoSyscall {
			a.jump(jeqK, socketNr, sock, "")
		}
		if cloneNr != NoSyscall {
			a.jump(jeqK, cloneNr, clone, "")
		}
		a.stmt(retK, RetAllow)
		if cloneNr != NoSyscall {
			a.label(clone)
			// clone's flags are its first argument on every ABI of
			// Arches, and every namespace flag is in their low word.
			a.stmt(ldWAbs, offArgLow(0))
			for _, r := range rows {
				if r.Kind == RefuseClone {
					a.jump(jsetK, r.Flags, deny(r.Errno), "")
				}
			}
			a.stmt(retK, RetAllow)
		}
		if socketNr == NoSyscall {
			a.label(next)
			continue
		}
		a.label(sock)
		a.stmt(ldWAbs, offArgLow(0)) // the family, an int
		for k, f := range families {
			a.jump(jeqK, f, fmt.Sprintf("fam%d.%d", i, k), "")
		}
		a.stmt(retK, RetAllow)
		for k, f := range families {
			a.label(fmt.Sprintf("fam%d.%d", i, k))
			for j, r := range rows {
				if r.Kind != RefuseSocket || !slices.Contains(r.Families, f) {
					continue
				}
				ok := fmt.Sprintf("fam%d.%d.%d", i, k, j)
				switch {
				case len(r.KeepTypes) > 0:
					// The type's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC
					// are flags above them.
					a.stmt(ldWAbs, offArgLow(1))
					a.stmt(andK, 0xf)
					for t, typ := range r.KeepTypes {
						last := ""
						if t == len(r.KeepTypes)-1 {
							last = deny(r.Errno)
						}
						a.jump(jeqK, typ, ok, last)
					}
				case len(r.KeepProtocols) > 0:
					a.stmt(ldWAbs, offArgLow(2))
					for t, proto := range r.KeepProtocols {
						last := ""
						if t == len(r.KeepProtocols)-1 {
							last = deny(r.Errno)
						}
						a.jump(jeqK, proto, ok, last)
					}
				default:
					a.stmt(retK, RetErrno|r.Errno)
				}
				a.label(ok)
			}
			a.stmt(retK, RetAllow)
		}
		a.label(next)
	}
	a.stmt(retK, RetEPERM)
	errnos := make([]uint32, len(rows))
	for i, r := range rows {
		errnos[i] = r.Errno
	}
	a.verdicts(errnos)
	return a.assemble()
}
