package proxy

import (
	"net"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// bareRelaysOS: splice(2) through a pipe grown to 1 MiB (F_SETPIPE_SZ),
// one chunk per call as large as the pipe; and bare-copy with blocking
// reads and writes, each a system call that sleeps in the kernel until
// its bytes are there, without the runtime's poller between the wakeups.
var bareRelaysOS = []bareRelay{{"bare-splice-1m", spliceBig}, {"bare-blocking", blockingCopy}}

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

// blockingCopy copies src to dst through 1 MiB in blocking mode, on
// duplicates of their descriptors (which share the blocking flag with
// them: the connections are used for nothing else until they close).
func blockingCopy(dst, src *net.TCPConn) {
	sf, err1 := src.File()
	df, err2 := dst.File()
	if err1 != nil || err2 != nil {
		return
	}
	defer sf.Close()
	defer df.Close()
	s, d := int(sf.Fd()), int(df.Fd())
	if unix.SetNonblock(s, false) != nil || unix.SetNonblock(d, false) != nil {
		return
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := unix.Read(s, buf)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off < n; {
			m, err := unix.Write(d, buf[off:n])
			if err != nil {
				return
			}
			off += m
		}
	}
}

// reportZerocopy sends 16 MiB over a loopback connection with
// MSG_ZEROCOPY and reports the share of the sends the kernel says it
// copied after all (SO_EE_CODE_ZEROCOPY_COPIED on the completion): 1 means
// that no relay here can save its send copy that way.
func reportZerocopy(b *testing.B) {
	const sends = 64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 1<<20)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ZEROCOPY, 1)
	}); err != nil || serr != nil {
		b.Logf("SO_ZEROCOPY: %v %v", err, serr)
		return
	}
	buf := make([]byte, 256<<10)
	calls := 0 // each sendmsg is one completion number
	for range sends {
		for off := 0; off < len(buf); calls++ {
			var n int
			if err := rc.Write(func(fd uintptr) bool {
				n, serr = unix.SendmsgN(int(fd), buf[off:], nil, nil, unix.MSG_ZEROCOPY|unix.MSG_DONTWAIT)
				return serr != unix.EAGAIN
			}); err != nil || serr != nil {
				b.Fatalf("send MSG_ZEROCOPY: %v %v", err, serr)
			}
			off += n
		}
	}
	copied, done := 0, 0
	oob := make([]byte, 512)
	for deadline := time.Now().Add(2 * time.Second); done < calls && time.Now().Before(deadline); {
		var oobn int
		_ = rc.Control(func(fd uintptr) {
			_, oobn, _, _, serr = unix.Recvmsg(int(fd), nil, oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		})
		if serr != nil {
			time.Sleep(time.Millisecond)
			continue
		}
		msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			if len(m.Data) < int(unsafe.Sizeof(unix.SockExtendedErr{})) {
				continue
			}
			ee := (*unix.SockExtendedErr)(unsafe.Pointer(&m.Data[0]))
			if ee.Origin != unix.SO_EE_ORIGIN_ZEROCOPY {
				continue
			}
			n := int(ee.Data - ee.Info + 1) // the completed sends Info..Data
			done += n
			if ee.Code&unix.SO_EE_CODE_ZEROCOPY_COPIED != 0 {
				copied += n
			}
		}
	}
	if done < calls {
		b.Fatalf("MSG_ZEROCOPY: %d of %d sends completed", done, calls)
	}
	b.ReportMetric(float64(copied)/float64(done), "zerocopy-copied")
}
