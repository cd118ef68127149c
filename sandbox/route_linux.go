package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// localRoute reports whether the calling thread's network namespace
// delivers a TCP connection to ip:port to this host itself: the kernel's
// route for it (RTM_GETROUTE, asked with the protocol, the port and this
// process's uid, which policy rules may select by) is of type local. That
// holds for every address of its interfaces, and for any range a local
// route names (ip route add local 198.51.100.0/24 dev lo), which no
// interface lists.
func localRoute(ip netip.Addr, port int) (bool, error) {
	ip = ip.Unmap().WithZone("")
	family, bits := unix.AF_INET, 32
	if ip.Is6() {
		family, bits = unix.AF_INET6, 128
	}
	body := make([]byte, unix.SizeofRtMsg)
	*(*unix.RtMsg)(unsafe.Pointer(&body[0])) = unix.RtMsg{Family: uint8(family), Dst_len: uint8(bits)}
	body = append(body, rtAttr(unix.RTA_DST, ip.AsSlice())...)
	body = append(body, rtAttr(unix.RTA_IP_PROTO, []byte{unix.IPPROTO_TCP})...)
	body = append(body, rtAttr(unix.RTA_DPORT, binary.BigEndian.AppendUint16(nil, uint16(port)))...)
	body = append(body, rtAttr(unix.RTA_UID, binary.NativeEndian.AppendUint32(nil, uint32(os.Getuid())))...)
	msgs, err := netlinkRoute(unix.RTM_GETROUTE, unix.NLM_F_REQUEST, body)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && (errno == unix.ENETUNREACH || errno == unix.EHOSTUNREACH || errno == unix.EAFNOSUPPORT) {
			return false, nil // no route: nothing is delivered, here or anywhere
		}
		return false, fmt.Errorf("route to %s: %w", ip, err)
	}
	for _, m := range msgs {
		if m.Header.Type == unix.RTM_NEWROUTE && len(m.Data) >= unix.SizeofRtMsg {
			return (*unix.RtMsg)(unsafe.Pointer(&m.Data[0])).Type == unix.RTN_LOCAL, nil
		}
	}
	return false, fmt.Errorf("route to %s: no route in the kernel's answer", ip)
}

// rtAttr is one route attribute, padded to 4 bytes.
func rtAttr(typ uint16, v []byte) []byte {
	b := make([]byte, unix.SizeofRtAttr, unix.SizeofRtAttr+len(v)+3)
	*(*unix.RtAttr)(unsafe.Pointer(&b[0])) = unix.RtAttr{Len: uint16(unix.SizeofRtAttr + len(v)), Type: typ}
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// netlinkRoute sends one rtnetlink request of typ with body, in the
// calling thread's network namespace, and returns the kernel's answer; an
// error message in it is returned as its errno (an acknowledgement, errno
// 0, is not an error).
func netlinkRoute(typ, flags uint16, body []byte) ([]syscall.NetlinkMessage, error) {
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
				return nil, errors.New("a short error message")
			}
			if errno := -int32(binary.NativeEndian.Uint32(m.Data)); errno != 0 {
				return nil, syscall.Errno(errno)
			}
		}
	}
	return msgs, nil
}
