package sandbox

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// runBPF runs a classic BPF seccomp program (as seccompFilter assembles it)
// on one struct seccomp_data and returns the verdict: the few instructions
// the assembler emits, interpreted as the kernel does.
func runBPF(t *testing.T, prog []byte, nr, arch uint32, args [6]uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc*8 < len(prog); pc++ {
		in := prog[pc*8:]
		code, jt, jf, k := binary.LittleEndian.Uint16(in), int(in[2]), int(in[3]), binary.LittleEndian.Uint32(in[4:])
		jump := func(cond bool) {
			if cond {
				pc += jt
			} else {
				pc += jf
			}
		}
		switch code {
		case bpfLdWAbs:
			acc = binary.LittleEndian.Uint32(data[k:])
		case bpfJeqK:
			jump(acc == k)
		case bpfJgeK:
			jump(acc >= k)
		case bpfJsetK:
			jump(acc&k != 0)
		case bpfAndK:
			acc &= k
		case bpfRetK:
			return k
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// TestSeccompVerdictsEveryArch runs each architecture's filter, native and
// compat ABI alike (arm64's too, which no test here runs for real), on the
// calls each row names and on their harmless neighbours: every row gets
// its errno on every ABI that has the call, and what the table does not
// refuse is allowed.
func TestSeccompVerdictsEveryArch(t *testing.T) {
	errno := func(e uint32) uint32 { return retErrno | e }
	const other = 0x3fff // a call no row names
	for goarch, arches := range seccompArches {
		prog := seccompFilter(goarch)
		for _, arch := range arches {
			name := fmt.Sprintf("%s/abi%d", goarch, arch.abi)
			check := func(what string, nr uint32, args [6]uint64, want uint32) {
				t.Helper()
				if got := runBPF(t, prog, nr, arch.audit, args); got != want {
					t.Errorf("%s: %s: verdict %#x, want %#x", name, what, got, want)
				}
			}
			check("a call no row names", other, [6]uint64{}, retAllow)
			if arch.x32 {
				check("an x32 call", x32Bit|other, [6]uint64{}, retEPERM)
			}
			for _, sc := range seccompSyscalls {
				if sc.nr[arch.abi] != noSyscall {
					check(sc.name, sc.nr[arch.abi], [6]uint64{}, errno(sc.errno))
				}
			}
			for _, io := range seccompIoctls {
				check(io.name, arch.ioctl, [6]uint64{0, uint64(io.request)}, errno(io.errno))
				check(io.name+" with the high word set", arch.ioctl, [6]uint64{0, 1<<32 | uint64(io.request)}, errno(io.errno))
			}
			check("ioctl TCSETS", arch.ioctl, [6]uint64{0, 0x5402}, retAllow)
			for _, mc := range seccompModeCalls {
				nr := mc.nr[arch.abi]
				if nr == noSyscall {
					continue
				}
				var setuid, plain, noCreate [6]uint64
				setuid[mc.mode], plain[mc.mode], noCreate[mc.mode] = sIsuid|0o755, 0o755, sIsgid|0o755
				if mc.flags >= 0 {
					setuid[mc.flags], plain[mc.flags] = oCreat, oCreat
				}
				check(mc.name+" 04755", nr, setuid, errno(mc.errno))
				check(mc.name+" 0755", nr, plain, retAllow)
				if mc.flags >= 0 {
					check(mc.name+" 02755 without O_CREAT", nr, noCreate, retAllow)
				}
			}
			for _, fr := range seccompFamilies {
				for i, call := range []string{"socket", "socketpair"} {
					nr := fr.calls[i][arch.abi]
					for j, fam := range fr.keep {
						check(call+" "+fr.names[j], nr, [6]uint64{uint64(fam), 1}, retAllow)
					}
					check(call+" AF_VSOCK", nr, [6]uint64{40, 1}, errno(fr.errno))
					check(call+" AF_VSOCK, high word set", nr, [6]uint64{1<<32 | 40, 1}, errno(fr.errno))
					check(call+" AF_PACKET", nr, [6]uint64{17, 1}, errno(fr.errno))
				}
			}
		}
		check := runBPF(t, prog, other, 0xdeadbeef, [6]uint64{})
		if check != retEPERM {
			t.Errorf("%s: an ABI the filter does not know: verdict %#x, want EPERM", goarch, check)
		}
	}
}
