package seccomp

import "fmt"

// Syscall is one system call a filter refuses, with its number in each
// ABI of Arches and the errno it returns.
type Syscall struct {
	Rule  string
	Name  string
	Nr    [4]uint32
	Errno uint32
}

// ModeCall is one system call a filter refuses when the mode it sets has
// the setuid or setgid bit: the mode is argument Mode, and counts, when
// Flags is not -1, only if argument Flags creates a file.
type ModeCall struct {
	Rule  string
	Name  string
	Nr    [4]uint32 // NoSyscall where the ABI lacks the call
	Mode  int
	Flags int
	Errno uint32
}

// Ioctl is one ioctl request a filter refuses.
type Ioctl struct {
	Rule    string
	Name    string
	Request uint32
	Errno   uint32
}

// FamilyRule refuses every address family but Keep in the calls numbered
// in Calls (socket, socketpair), returning Errno.
type FamilyRule struct {
	Rule  string
	Names []string
	Calls [2][4]uint32
	Keep  []uint32
	Errno uint32
}

// Table is what bwrap's filter refuses.
type Table struct {
	Syscalls []Syscall
	Modes    []ModeCall
	Ioctls   []Ioctl
	Families []FamilyRule
}

// Filter returns the filter for goarch, covering every ABI of it in
// Arches, or nil when there is none for goarch or nothing to refuse. An
// ABI the filter does not know is refused everything.
func (t Table) Filter(goarch string) []byte {
	arches, ok := Arches[goarch]
	if !ok || len(t.Syscalls)+len(t.Modes)+len(t.Ioctls)+len(t.Families) == 0 {
		return nil
	}
	var a asm
	a.stmt(ldWAbs, offArch)
	for i, arch := range arches {
		next := fmt.Sprintf("arch%d", i+1)
		ioctl := fmt.Sprintf("ioctl%d", i)
		a.jump(jeqK, arch.Audit, "", next)
		a.stmt(ldWAbs, offNr)
		if arch.X32 {
			a.jump(jgeK, x32Bit, deny(1), "")
		}
		for _, sc := range t.Syscalls {
			if sc.Nr[arch.ABI] != NoSyscall {
				a.jump(jeqK, sc.Nr[arch.ABI], deny(sc.Errno), "")
			}
		}
		for k, fr := range t.Families {
			for _, nr := range fr.Calls {
				a.jump(jeqK, nr[arch.ABI], fmt.Sprintf("family%d.%d", i, k), "")
			}
		}
		var modes []ModeCall
		for _, mc := range t.Modes {
			if mc.Nr[arch.ABI] != NoSyscall {
				a.jump(jeqK, mc.Nr[arch.ABI], fmt.Sprintf("mode%d.%d", i, len(modes)), "")
				modes = append(modes, mc)
			}
		}
		if len(t.Ioctls) == 0 {
			a.stmt(retK, RetAllow)
		} else {
			a.jump(jeqK, arch.Ioctl, ioctl, "allow")
			a.label(ioctl)
			// The kernel reads the request as an unsigned int, so only
			// the low word counts: comparing all 64 bits would let
			// 1<<32|TIOCSTI through (CVE-2019-10063).
			a.stmt(ldWAbs, offArg1Low)
			for j, io := range t.Ioctls {
				last := ""
				if j == len(t.Ioctls)-1 {
					last = "allow"
				}
				a.jump(jeqK, io.Request, deny(io.Errno), last)
			}
		}
		// A mode is an unsigned int too: its low word is all of it.
		for j, mc := range modes {
			a.label(fmt.Sprintf("mode%d.%d", i, j))
			if mc.Flags >= 0 {
				a.stmt(ldWAbs, offArgLow(mc.Flags))
				a.jump(jsetK, oCreat|oTmpfile, "", "allow")
			}
			a.stmt(ldWAbs, offArgLow(mc.Mode))
			a.jump(jsetK, sIsuid|sIsgid, deny(mc.Errno), "allow")
		}
		// The family is an int: its low word is all the kernel reads.
		for k, fr := range t.Families {
			a.label(fmt.Sprintf("family%d.%d", i, k))
			if len(fr.Keep) == 0 {
				a.stmt(retK, RetErrno|fr.Errno)
				continue
			}
			a.stmt(ldWAbs, offArgLow(0))
			for j, fam := range fr.Keep {
				last := ""
				if j == len(fr.Keep)-1 {
					last = deny(fr.Errno)
				}
				a.jump(jeqK, fam, "allow", last)
			}
		}
		a.label(next)
	}
	// An ABI this filter does not know: nothing it asks for is allowed.
	a.stmt(retK, RetEPERM)
	a.verdicts(t.errnos())
	return a.assemble()
}

// errnos are the errnos the entries return, in table order.
func (t Table) errnos() []uint32 {
	var out []uint32
	for _, e := range t.Syscalls {
		out = append(out, e.Errno)
	}
	for _, e := range t.Modes {
		out = append(out, e.Errno)
	}
	for _, e := range t.Ioctls {
		out = append(out, e.Errno)
	}
	for _, e := range t.Families {
		out = append(out, e.Errno)
	}
	return out
}
