package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"github.com/sandtable/sandtable/internal/netlink"
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
	body = append(body, netlink.Attr(unix.RTA_DST, ip.AsSlice())...)
	body = append(body, netlink.Attr(unix.RTA_IP_PROTO, []byte{unix.IPPROTO_TCP})...)
	body = append(body, netlink.Attr(unix.RTA_DPORT, binary.BigEndian.AppendUint16(nil, uint16(port)))...)
	body = append(body, netlink.Attr(unix.RTA_UID, binary.NativeEndian.AppendUint32(nil, uint32(os.Getuid())))...)
	msgs, err := netlink.Route(unix.RTM_GETROUTE, unix.NLM_F_REQUEST, body)
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
