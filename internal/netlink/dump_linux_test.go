package netlink

import (
	"encoding/binary"
	"net"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// unixDiagReq is a struct unix_diag_req for family with every state and
// the name shown.
func unixDiagReq(family byte) []byte {
	req := make([]byte, 24)
	req[0] = family
	binary.NativeEndian.PutUint32(req[4:], ^uint32(0))
	binary.NativeEndian.PutUint32(req[12:], 1) // UDIAG_SHOW_NAME
	return req
}

// TestDump lists this namespace's unix sockets and finds one the test
// binds, by its inode; a family the kernel has no dumper for is an error,
// not an empty list.
func TestDump(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "d.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	n, found := 0, false
	err = Dump(unix.NETLINK_SOCK_DIAG, unix.SOCK_DIAG_BY_FAMILY, unixDiagReq(unix.AF_UNIX), func(m []byte) error {
		n++
		if len(m) >= 8 && uint64(binary.NativeEndian.Uint32(m[4:])) == st.Ino {
			found = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Errorf("Dump: %d sockets, not the test's (inode %d)", n, st.Ino)
	}
	if err := Dump(unix.NETLINK_SOCK_DIAG, unix.SOCK_DIAG_BY_FAMILY, unixDiagReq(unix.AF_MAX-1), func([]byte) error { return nil }); err == nil {
		t.Error("Dump of a family without a dumper: no error")
	}
}
