package testkit

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// NetServers stand in for the host's services and for remote hosts: HTTP
// on 127.0.0.1 (two ports), HTTPS on 127.0.0.1 and an abstract unix
// socket, each answering with Nonce, which only a connection that reached
// it can print. They close when the test ends.
type NetServers struct {
	Nonce            string
	Port, Port2, TLS string
	Abstract         string // the abstract socket's name, without the @
	TLSServer        *httptest.Server
}

// StartNetServers starts them.
func StartNetServers(t testing.TB) *NetServers {
	t.Helper()
	s := &NetServers{Nonce: fmt.Sprintf("reached-%x", rand.Uint64())}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, s.Nonce) })
	for _, p := range []*string{&s.Port, &s.Port2} {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		*p = strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	}
	s.TLSServer = httptest.NewTLSServer(h)
	t.Cleanup(s.TLSServer.Close)
	s.TLS = strconv.Itoa(s.TLSServer.Listener.Addr().(*net.TCPAddr).Port)
	s.Abstract = fmt.Sprintf("sandtable-net-%x", rand.Uint64())
	ln, err := net.Listen("unix", "@"+s.Abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ServeLine(ln, s.Nonce)
	return s
}
