package sandbox

import (
	"fmt"
	"testing"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// runBPF runs a seccomp program on one struct seccomp_data and returns
// its verdict (seccomp.Eval); a program Eval cannot run fails t.
func runBPF(t *testing.T, prog []byte, nr, arch uint32, args [6]uint64) uint32 {
	t.Helper()
	v, err := seccomp.Eval(prog, nr, arch, args)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The kernel's values the verdict tests build calls from.
const (
	x32Bit = 0x40000000 // __X32_SYSCALL_BIT
	sIsuid = 0o4000
	sIsgid = 0o2000
	oCreat = 0o100
)

// TestSeccompVerdictsEveryArch runs each architecture's filter, native and
// compat ABI alike (arm64's too, which no test here runs for real), on the
// calls each row names and on their harmless neighbours: every row gets
// its errno on every ABI that has the call, and what the table does not
// refuse is allowed.
func TestSeccompVerdictsEveryArch(t *testing.T) {
	errno := func(e uint32) uint32 { return seccomp.RetErrno | e }
	const other = 0x3fff // a call no row names
	for goarch, arches := range seccomp.Arches {
		prog := seccompFilter(goarch)
		for _, arch := range arches {
			name := fmt.Sprintf("%s/abi%d", goarch, arch.ABI)
			check := func(what string, nr uint32, args [6]uint64, want uint32) {
				t.Helper()
				if got := runBPF(t, prog, nr, arch.Audit, args); got != want {
					t.Errorf("%s: %s: verdict %#x, want %#x", name, what, got, want)
				}
			}
			check("a call no row names", other, [6]uint64{}, seccomp.RetAllow)
			if arch.X32 {
				check("an x32 call", x32Bit|other, [6]uint64{}, seccomp.RetEPERM)
			}
			for _, sc := range seccompSyscalls {
				if sc.Nr[arch.ABI] != seccomp.NoSyscall {
					check(sc.Name, sc.Nr[arch.ABI], [6]uint64{}, errno(sc.Errno))
				}
			}
			for _, io := range seccompIoctls {
				check(io.Name, arch.Ioctl, [6]uint64{0, uint64(io.Request)}, errno(io.Errno))
				check(io.Name+" with the high word set", arch.Ioctl, [6]uint64{0, 1<<32 | uint64(io.Request)}, errno(io.Errno))
			}
			check("ioctl TCSETS", arch.Ioctl, [6]uint64{0, 0x5402}, seccomp.RetAllow)
			for _, mc := range seccompModeCalls {
				nr := mc.Nr[arch.ABI]
				if nr == seccomp.NoSyscall {
					continue
				}
				var setuid, plain, noCreate [6]uint64
				setuid[mc.Mode], plain[mc.Mode], noCreate[mc.Mode] = sIsuid|0o755, 0o755, sIsgid|0o755
				if mc.Flags >= 0 {
					setuid[mc.Flags], plain[mc.Flags] = oCreat, oCreat
				}
				check(mc.Name+" 04755", nr, setuid, errno(mc.Errno))
				check(mc.Name+" 0755", nr, plain, seccomp.RetAllow)
				if mc.Flags >= 0 {
					check(mc.Name+" 02755 without O_CREAT", nr, noCreate, seccomp.RetAllow)
				}
			}
			for _, fr := range seccompFamilies {
				for i, call := range []string{"socket", "socketpair"} {
					nr := fr.Calls[i][arch.ABI]
					for j, fam := range fr.Keep {
						check(call+" "+fr.Names[j], nr, [6]uint64{uint64(fam), 1}, seccomp.RetAllow)
					}
					check(call+" AF_VSOCK", nr, [6]uint64{40, 1}, errno(fr.Errno))
					check(call+" AF_VSOCK, high word set", nr, [6]uint64{1<<32 | 40, 1}, errno(fr.Errno))
					check(call+" AF_PACKET", nr, [6]uint64{17, 1}, errno(fr.Errno))
				}
			}
		}
		check := runBPF(t, prog, other, 0xdeadbeef, [6]uint64{})
		if check != seccomp.RetEPERM {
			t.Errorf("%s: an ABI the filter does not know: verdict %#x, want EPERM", goarch, check)
		}
	}
}
