package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// seccompFamiliesProbe opens a socket (and a socketpair) in each family it
// is given as NAME=NUMBER:TYPE and prints the errno, 0 for success; the
// family is passed as a raw 64-bit argument, so "HIGH" tries AF_VSOCK with
// the high word set, which the kernel truncates to an int. On x86-64 it
// also enters the kernel through the i386 ABI (int 0x80, as a 32-bit
// program would): the direct socket call and the socketcall multiplexer,
// whose arguments are in memory the filter cannot read.
const seccompFamiliesProbe = `
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SOCKET, SOCKETPAIR, I386 = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
def errno(r):
    return ctypes.get_errno() if r < 0 else 0
for spec in sys.argv[4:]:
    name, rest = spec.split("=")
    fam, typ = (int(x) for x in rest.split(":"))
    print(name, errno(libc.syscall(SOCKET, ctypes.c_ulong(fam), ctypes.c_long(typ), ctypes.c_long(0))))
pair = (ctypes.c_int * 2)()
print("socketpair-AF_UNIX", errno(libc.syscall(SOCKETPAIR, ctypes.c_long(1), ctypes.c_long(1), ctypes.c_long(0), pair)))
print("socketpair-AF_VSOCK", errno(libc.syscall(SOCKETPAIR, ctypes.c_long(40), ctypes.c_long(1), ctypes.c_long(0), pair)))
if I386:
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    # push rbx; mov eax,edi; mov ebx,esi; xchg ecx,edx; int 0x80; pop rbx; ret
    code = bytes.fromhex("5389f889f387d1cd805bc3")
    page = libc.mmap(None, 4096, 7, 0x22 | 0x40, -1, 0)  # rwx, private, anonymous, below 4 GiB
    ctypes.memmove(page, code, len(code))
    i386 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint)(page)
    args = page + 2048
    for name, fam in (("AF_UNIX", 1), ("AF_VSOCK", 40)):
        print("i386-socket-" + name, max(0, -i386(359, fam, 1, 0)))
        ctypes.memmove(args, struct.pack("<3I", fam, 1, 0), 12)
        print("i386-socketcall-" + name, max(0, -i386(102, 1, args, 0)))
`

// TestSeccompFamiliesUnderBwrap: socket and socketpair work in the four
// families the table keeps and fail with EAFNOSUPPORT in every other one,
// AF_VSOCK above all (the host's vsock port space, which no namespace
// covers), also with the high word of the argument set; on x86-64, where
// the kernel takes system calls through it (i386Entry), the i386
// ABI's direct socket call is held to the same families and its socketcall
// multiplexer fails with ENOSYS. The control, without the filter, opens an
// AF_VSOCK socket every way. Root and the unprivileged user.
func TestSeccompFamiliesUnderBwrap(t *testing.T) {
	bwrap, filter, python := filterProbeSetup(t)
	if len(seccompFamilies) == 0 {
		t.Fatal("the table keeps no socket families")
	}
	i386, why := i386Entry(t, python)
	if !i386 {
		t.Logf("the i386 ABI's entries are not tried: %s", why)
	}
	flag := "0"
	if i386 {
		flag = "1"
	}
	args := []string{python, "-c", seccompFamiliesProbe, fmt.Sprint(unix.SYS_SOCKET), fmt.Sprint(unix.SYS_SOCKETPAIR), flag}
	type try struct {
		name string
		fam  uint64
		typ  int
		kept bool
	}
	tries := []try{
		{"AF_UNIX", unix.AF_UNIX, unix.SOCK_STREAM, true},
		{"AF_INET", unix.AF_INET, unix.SOCK_STREAM, true},
		{"AF_INET6", unix.AF_INET6, unix.SOCK_STREAM, true},
		{"AF_NETLINK", unix.AF_NETLINK, unix.SOCK_RAW, true},
		{"AF_VSOCK", unix.AF_VSOCK, unix.SOCK_STREAM, false},
		{"AF_VSOCK-HIGH", 1<<32 | unix.AF_VSOCK, unix.SOCK_STREAM, false},
		{"AF_PACKET", unix.AF_PACKET, unix.SOCK_DGRAM, false},
		{"AF_ALG", unix.AF_ALG, unix.SOCK_SEQPACKET, false},
		{"AF_KEY", unix.AF_KEY, unix.SOCK_RAW, false},
		{"AF_XDP", unix.AF_XDP, unix.SOCK_RAW, false},
		{"AF_TIPC", unix.AF_TIPC, unix.SOCK_RDM, false},
		{"AF_RDS", unix.AF_RDS, unix.SOCK_SEQPACKET, false},
		{"AF_CAN", unix.AF_CAN, unix.SOCK_RAW, false},
		{"AF_BLUETOOTH", unix.AF_BLUETOOTH, unix.SOCK_STREAM, false},
		{"AF_MCTP", unix.AF_MCTP, unix.SOCK_DGRAM, false},
	}
	for _, tr := range tries {
		args = append(args, fmt.Sprintf("%s=%d:%d", tr.name, tr.fam, tr.typ))
	}
	eafnosupport, enosys := int(unix.EAFNOSUPPORT), int(unix.ENOSYS)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			got := probeLines(t, underFilter(t, u, bwrap, filter, true, nil, args))
			control := probeLines(t, underFilter(t, u, bwrap, filter, false, nil, args))
			want := map[string]int{"socketpair-AF_UNIX": 0, "socketpair-AF_VSOCK": eafnosupport}
			for _, tr := range tries {
				want[tr.name] = eafnosupport
				if tr.kept {
					want[tr.name] = 0
				}
			}
			if i386 {
				want["i386-socket-AF_UNIX"], want["i386-socket-AF_VSOCK"] = 0, eafnosupport
				want["i386-socketcall-AF_UNIX"], want["i386-socketcall-AF_VSOCK"] = enosys, enosys
			}
			for name, w := range want {
				if g, ok := got[name]; !ok || g != w {
					t.Errorf("with the filter %s: errno %d (printed: %v), want %d", name, g, ok, w)
				}
			}
			if control["AF_VSOCK"] != 0 {
				t.Skipf("no AF_VSOCK on this kernel (errno %d without the filter): the control cannot open one", control["AF_VSOCK"])
			}
			wantControl := []string{"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_VSOCK-HIGH", "socketpair-AF_UNIX"}
			if i386 {
				wantControl = append(wantControl, "i386-socket-AF_VSOCK", "i386-socketcall-AF_UNIX", "i386-socketcall-AF_VSOCK")
			}
			for _, name := range wantControl {
				if g, ok := control[name]; !ok || g != 0 {
					t.Errorf("control without the filter: %s errno %d (printed: %v), want 0", name, g, ok)
				}
			}
		})
	}
}

// probeLines reads "NAME ERRNO" lines.
func probeLines(t *testing.T, out string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var name string
		var n int
		if _, err := fmt.Sscanf(line, "%s %d", &name, &n); err != nil {
			t.Fatalf("probe line %q: %v\n%s", line, err, out)
		}
		m[name] = n
	}
	return m
}
