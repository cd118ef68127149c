package sandbox

import (
	"net"

	"golang.org/x/sys/unix"
)

// bareRelaysOS: splice(2) through a pipe grown to 1 MiB (F_SETPIPE_SZ),
// one chunk per call as large as the pipe.
var bareRelaysOS = []bareRelay{{"bare-splice-1m", spliceBig}}

func spliceBig(dst, src *net.TCPConn) {
	var p [2]int
	if unix.Pipe2(p[:], unix.O_CLOEXEC) != nil {
		return
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	size, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, 1<<20)
	if err != nil {
		size = 64 << 10
	}
	rs, err1 := src.SyscallConn()
	ws, err2 := dst.SyscallConn()
	if err1 != nil || err2 != nil {
		return
	}
	for {
		var n int64
		var serr error
		if err := rs.Read(func(fd uintptr) bool {
			n, serr = unix.Splice(int(fd), nil, p[1], nil, size, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
			return serr != unix.EAGAIN
		}); err != nil || serr != nil || n == 0 {
			return
		}
		for n > 0 {
			var m int64
			if err := ws.Write(func(fd uintptr) bool {
				m, serr = unix.Splice(p[0], nil, int(fd), nil, int(n), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
				return serr != unix.EAGAIN
			}); err != nil || serr != nil {
				return
			}
			n -= m
		}
	}
}
