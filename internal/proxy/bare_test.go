package proxy

import (
	"io"
	"net"
	"testing"
)

// bareRelays are the simplest relays BenchmarkProxyDownload measures the
// proxy against, each a fixed forward to the server in the benchmark's
// process: what any relay on this machine pays for the second TCP
// connection, without the proxy's parsing, checks and buffer pool. More
// are added per platform (bareRelaysOS).
var bareRelays = append([]bareRelay{
	// A user-space copy through one 1 MiB buffer each way, as io.Copy
	// would do were it not for splice: the proxy's technique, bare.
	{"bare-copy", func(dst, src *net.TCPConn) {
		_, _ = io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, 1<<20))
	}},
	// io.Copy between two TCP connections: the standard library's
	// splice(2) through a pipe of the default size.
	{"bare-splice", func(dst, src *net.TCPConn) { _, _ = io.Copy(dst, src) }},
}, bareRelaysOS...)

type bareRelay struct {
	way  string
	copy func(dst, src *net.TCPConn) // until src ends
}

// startBareRelay listens on 127.0.0.1 and relays each connection to
// server both ways with r.copy, closing each direction's write side at its
// end. It returns the listener's address.
func startBareRelay(b *testing.B, r bareRelay, server string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", server)
				if err != nil {
					return
				}
				defer up.Close()
				cc, uc := c.(*net.TCPConn), up.(*net.TCPConn)
				done := make(chan struct{})
				go func() {
					r.copy(uc, cc)
					_ = uc.CloseWrite()
					close(done)
				}()
				r.copy(cc, uc)
				_ = cc.CloseWrite()
				<-done
			}()
		}
	}()
	return ln.Addr().String()
}
