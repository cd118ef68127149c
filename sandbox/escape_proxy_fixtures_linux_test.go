package sandbox

import (
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
)

// The fixtures of the proxy connection-limit attacks
// (escape_proxy_linux_test.go): the flooding server, the snippets that hold
// tunnels open, and the heap sampler.

// floodServer accepts on 127.0.0.1 and writes to every connection as fast
// as it can, reading nothing: a remote host that fills whatever relays it.
func floodServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		chunk := make([]byte, 64<<10)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				for {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// proxyHoldScript opens n CONNECT tunnels through the proxy to port, reads
// each answer's status line and nothing after it, holds them all for two
// seconds, and prints how many the proxy established and refused.
func proxyHoldScript(n int, port string) string {
	return `import socket, time
ok = refused = 0
held = []
for i in range(` + strconv.Itoa(n) + `):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"CONNECT 127.0.0.1:` + port + ` HTTP/1.1\r\nHost: 127.0.0.1:` + port + `\r\n\r\n")
    line = b""
    while not line.endswith(b"\r\n"):
        b = s.recv(1)
        if not b:
            break
        line += b
    if b" 200 " in line:
        ok += 1
    elif b" 503 " in line:
        refused += 1
    held.append(s)
time.sleep(2)
print("established", ok, "refused", refused, flush=True)
`
}

// heapPeak samples this process's heap in use until stop is closed, and
// returns its growth over what was in use before.
func heapPeak(stop <-chan struct{}) func() uint64 {
	for range 2 {
		runtime.GC() // twice: the relay's pool keeps its buffers one GC
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		<-done
		return max(peak.Load(), before.HeapInuse) - before.HeapInuse
	}
}

func newProxyOK(t *testing.T, n Network) *proxy.Proxy {
	t.Helper()
	p, err := newProxy(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stubHoldScript connects n times to the DNS stub's address for
// stubTestName on port, reads 4 bytes of each (the flood, or the proxy's
// "HTTP" of a 503), holds them all for two seconds, and prints how many
// the stub relayed and refused.
func stubHoldScript(n int, port string) string {
	return `import socket, time
addr = socket.getaddrinfo("` + stubTestName + `", ` + port + `, socket.AF_INET, socket.SOCK_STREAM)[0][4]
ok = refused = 0
held = []
for i in range(` + strconv.Itoa(n) + `):
    s = socket.create_connection(addr)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    b = b""
    while len(b) < 4:
        c = s.recv(4 - len(b))
        if not c:
            break
        b += c
    if b == b"HTTP":
        refused += 1
    elif len(b) == 4:
        ok += 1
    held.append(s)
time.sleep(2)
print("established", ok, "refused", refused, flush=True)
`
}
