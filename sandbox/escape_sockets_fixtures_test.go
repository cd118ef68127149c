//go:build linux

package sandbox

import (
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// The fixtures of the host-socket attempts (escape_sockets_test.go,
// escape_socknames_test.go): the service directory, the programs, and the
// datagram server.

// serviceDir is a directory for the attempt's host service outside the
// workspace and any world-writable sticky directory, where host services
// keep their sockets (under /run), owned by the pass's user. It goes a
// while after the attempt's sockets close (see socketGrace).
func (e *escEnv) serviceDir() string {
	dir, err := os.MkdirTemp("/run", "sandtable-esc-"+e.a.name+"-")
	if err != nil {
		e.t.Skipf("no directory for a service socket under /run: %v", err)
	}
	e.t.Cleanup(func() {
		time.Sleep(socketGrace)
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, dir)
	return dir
}

// ownSocketPy listens on argv[1], connects to it and passes $SECRET
// through.
const ownSocketPy = `
import os, socket, sys
srv = socket.socket(socket.AF_UNIX)
srv.bind(sys.argv[1])
srv.listen(1)
c = socket.socket(socket.AF_UNIX)
c.settimeout(3)
c.connect(sys.argv[1])
a, _ = srv.accept()
a.sendall(os.environ["SECRET"].encode())
print(c.recv(200).decode())
`

// sendDatagramPy sends one datagram to argv[1].
const sendDatagramPy = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(b"from the sandbox", sys.argv[1])
    print("sent")
except Exception as e:
    print("sendto:", e)
`

var datagrams sync.Map // *escEnv -> *atomic.Int32

// serveDatagram binds a datagram socket at path that the user may send to,
// and counts what arrives.
func serveDatagram(e *escEnv, path string) *atomic.Int32 {
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	e.sockets.Store(true)
	if err := os.Chmod(path, 0o777); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, path)
	var got atomic.Int32
	go func() {
		buf := make([]byte, 256)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	return &got
}
