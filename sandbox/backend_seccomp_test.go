package sandbox

import (
	"slices"
	"testing"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// TestLandlockFilterEveryArch runs the reduced backend's second filter on
// every ABI it knows: socket(2) of a unix socket, a datagram, raw or
// SCTP socket and a stream of another protocol (MPTCP) get their rows'
// errnos; a TCP stream (with its flags), a netlink socket, socketpair and
// a plain fork are allowed; unshare, setns and clone with a namespace
// flag are refused, clone3 is ENOSYS; a foreign ABI gets EPERM for
// everything. Each refusal's control: the filter without its row allows
// the call.
func TestLandlockFilterEveryArch(t *testing.T) {
	errno := func(e uint32) uint32 { return seccomp.RetErrno | e }
	const (
		afUnix, afInet, afInet6, afNetlink = 1, 2, 10, 16
		stream, dgram, raw, seqpacket      = 1, 2, 3, 5
		cloexec, nonblock                  = 0x80000, 0x800
		newUser, sigchld, cloneVM          = 0x10000000, 17, 0x100
	)
	rows := landlockSeccompRows[:]
	row := func(id string) seccomp.ReducedRow {
		for _, r := range rows {
			if r.Rule == id {
				return r
			}
		}
		t.Fatalf("no row %s", id)
		return seccomp.ReducedRow{}
	}
	for goarch, arches := range seccomp.Arches {
		prog := seccomp.ReducedFilter(goarch, rows)
		for _, arch := range arches {
			socket, clone := row("landlock-refuse-unix-socket").Nr[arch.ABI], row("landlock-refuse-clone-namespaces").Nr[arch.ABI]
			for _, c := range []struct {
				what string
				nr   uint32
				args [6]uint64
				want uint32
				rule string
			}{
				{"socket(AF_UNIX)", socket, [6]uint64{afUnix, stream | cloexec}, errno(1), "landlock-refuse-unix-socket"},
				{"socket(AF_INET, SOCK_DGRAM)", socket, [6]uint64{afInet, dgram}, errno(1), "landlock-tcp-only"},
				{"socket(AF_INET6, SOCK_RAW)", socket, [6]uint64{afInet6, raw | nonblock}, errno(1), "landlock-tcp-only"},
				{"socket(AF_INET, SOCK_SEQPACKET) (SCTP by default)", socket, [6]uint64{afInet, seqpacket, 0}, errno(1), "landlock-tcp-only"},
				{"socket(AF_INET6, SOCK_STREAM, MPTCP)", socket, [6]uint64{afInet6, stream, 262}, errno(93), "landlock-plain-tcp"},
				{"socket(AF_INET, SOCK_STREAM, SCTP)", socket, [6]uint64{afInet, stream | cloexec, 132}, errno(93), "landlock-plain-tcp"},
				{"socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK)", socket, [6]uint64{afInet, stream | cloexec | nonblock}, seccomp.RetAllow, ""},
				{"socket(AF_INET6, SOCK_STREAM, TCP)", socket, [6]uint64{afInet6, stream, 6}, seccomp.RetAllow, ""},
				{"socket(AF_NETLINK, SOCK_RAW)", socket, [6]uint64{afNetlink, raw}, seccomp.RetAllow, ""},
				{"clone(CLONE_NEWUSER)", clone, [6]uint64{newUser | sigchld}, errno(1), "landlock-refuse-clone-namespaces"},
				{"clone(CLONE_VM|SIGCHLD)", clone, [6]uint64{cloneVM | sigchld}, seccomp.RetAllow, ""},
				{"unshare", row("landlock-refuse-unshare").Nr[arch.ABI], [6]uint64{newUser}, errno(1), "landlock-refuse-unshare"},
				{"setns", row("landlock-refuse-setns").Nr[arch.ABI], [6]uint64{3, 0}, errno(1), "landlock-refuse-setns"},
				{"clone3", row("landlock-refuse-clone3").Nr[arch.ABI], [6]uint64{}, errno(38), "landlock-refuse-clone3"},
				{"getpid-like", 0x3fff, [6]uint64{}, seccomp.RetAllow, ""},
			} {
				if got := runBPF(t, prog, c.nr, arch.Audit, c.args); got != c.want {
					t.Errorf("%s %#x: %s = %#x, want %#x", goarch, arch.Audit, c.what, got, c.want)
				}
				if c.rule == "" {
					continue
				}
				ctl := seccomp.ReducedFilter(goarch, slices.DeleteFunc(slices.Clone(rows), func(r seccomp.ReducedRow) bool { return r.Rule == c.rule }))
				if got := runBPF(t, ctl, c.nr, arch.Audit, c.args); got != seccomp.RetAllow {
					t.Errorf("control %s %#x: %s without %s = %#x, want allowed", goarch, arch.Audit, c.what, c.rule, got)
				}
			}
		}
		if got := runBPF(t, prog, 1, 0x12345678, [6]uint64{}); got != errno(1) {
			t.Errorf("%s: a foreign ABI: %#x, want EPERM", goarch, got)
		}
		if goarch == "amd64" {
			if got := runBPF(t, prog, 0x40000000|41, 0xc000003e, [6]uint64{afUnix}); got != errno(1) {
				t.Errorf("x32 socket: %#x, want EPERM", got)
			}
		}
	}
}
