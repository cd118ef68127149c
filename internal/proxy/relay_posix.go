//go:build linux || darwin

package proxy

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitReadable returns once c has a byte to read, its end, or an error
// (which the next Read reports), without reading it.
func waitReadable(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var b [1]byte
	return rc.Read(func(fd uintptr) bool {
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return err != unix.EAGAIN && err != unix.EINTR
	})
}
