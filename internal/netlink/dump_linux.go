package netlink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Dump sends one dump request (NLM_F_REQUEST|NLM_F_DUMP) of typ with body
// on a netlink socket of protocol proto, in the calling thread's network
// namespace, and calls each with the data of every message of the answer
// until the kernel's NLMSG_DONE. An error message, an interrupted dump
// (NLM_F_DUMP_INTR), a truncated read, a malformed message or an error of
// each is returned as an error: what each was given is then not the whole
// list.
func Dump(proto int, typ uint16, body []byte, each func(data []byte) error) error {
	s, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return fmt.Errorf("netlink dump: %w", err)
	}
	defer unix.Close(s)
	msg := make([]byte, unix.SizeofNlMsghdr, unix.SizeofNlMsghdr+len(body))
	*(*unix.NlMsghdr)(unsafe.Pointer(&msg[0])) = unix.NlMsghdr{Len: uint32(unix.SizeofNlMsghdr + len(body)), Type: typ, Flags: unix.NLM_F_REQUEST | unix.NLM_F_DUMP, Seq: 1}
	msg = append(msg, body...)
	if err := unix.Sendto(s, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("netlink dump: %w", err)
	}
	// The kernel fills a dump's messages to the size of the reads it has
	// seen (at most 32 KiB), its first to a page: 16 KiB holds each of
	// them, and a longer one is an error below, not a cut list.
	buf := make([]byte, 16<<10)
	for {
		n, _, flags, _, err := unix.Recvmsg(s, buf, nil, 0)
		if err != nil {
			return fmt.Errorf("netlink dump: %w", err)
		}
		if flags&unix.MSG_TRUNC != 0 {
			return errors.New("netlink dump: a message longer than the buffer")
		}
		for b := buf[:n]; len(b) > 0; {
			if len(b) < unix.SizeofNlMsghdr {
				return errors.New("netlink dump: a short message header")
			}
			h := (*unix.NlMsghdr)(unsafe.Pointer(&b[0]))
			l := int(h.Len)
			if l < unix.SizeofNlMsghdr || l > len(b) {
				return errors.New("netlink dump: a message length out of range")
			}
			if h.Seq != 1 {
				return fmt.Errorf("netlink dump: an answer to request %d, not this one's", h.Seq)
			}
			if h.Flags&unix.NLM_F_DUMP_INTR != 0 {
				return errors.New("netlink dump: interrupted by a change of the list")
			}
			data := b[unix.SizeofNlMsghdr:l]
			switch h.Type {
			case unix.NLMSG_DONE:
				if len(data) >= 4 {
					if errno := -int32(binary.NativeEndian.Uint32(data)); errno > 0 {
						return fmt.Errorf("netlink dump: %w", syscall.Errno(errno))
					}
				}
				return nil
			case unix.NLMSG_ERROR:
				if len(data) >= 4 {
					if errno := -int32(binary.NativeEndian.Uint32(data)); errno != 0 {
						return fmt.Errorf("netlink dump: %w", syscall.Errno(errno))
					}
				}
				return errors.New("netlink dump: an error message without an errno")
			}
			if err := each(data); err != nil {
				return fmt.Errorf("netlink dump: %w", err)
			}
			b = b[min(len(b), (l+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
		}
	}
}
