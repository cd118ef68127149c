package proxy

import (
	"net"
	"testing"
)

// loopProxy serves a proxy of c on 127.0.0.1 for the test.
func loopProxy(t testing.TB, c Config) string {
	t.Helper()
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	t.Cleanup(func() { ln.Close(); p.Wait() })
	return ln.Addr().String()
}
