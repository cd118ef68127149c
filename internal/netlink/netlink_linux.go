package netlink

import (
	"encoding/binary"
	"errors"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Attr is one route attribute, padded to 4 bytes.
func Attr(typ uint16, v []byte) []byte {
	b := make([]byte, unix.SizeofRtAttr, unix.SizeofRtAttr+len(v)+3)
	*(*unix.RtAttr)(unsafe.Pointer(&b[0])) = unix.RtAttr{Len: uint16(unix.SizeofRtAttr + len(v)), Type: typ}
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// Route sends one rtnetlink request of typ with body, in the calling
// thread's network namespace, and returns the kernel's answer; an
// error message in it is returned as its errno (an acknowledgement, errno
// 0, is not an error).
func Route(typ, flags uint16, body []byte) ([]syscall.NetlinkMessage, error) {
	s, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	defer unix.Close(s)
	msg := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(body))
	*(*unix.NlMsghdr)(unsafe.Pointer(&msg[0])) = unix.NlMsghdr{Len: uint32(unix.SizeofNlMsghdr + len(body)), Type: typ, Flags: flags, Seq: 1}
	msg = append(msg, body...)
	if err := unix.Sendto(s, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(s, buf, 0)
	if err != nil {
		return nil, err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.Header.Type == unix.NLMSG_ERROR {
			if len(m.Data) < 4 {
				return nil, errors.New("netlink: a short error message")
			}
			if errno := -int32(binary.NativeEndian.Uint32(m.Data)); errno != 0 {
				return nil, syscall.Errno(errno)
			}
		}
	}
	return msgs, nil
}
