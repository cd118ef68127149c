package proxy

import (
	"bufio"
	"context"
	"net"
	"slices"
	"sync"
)

// The DNS stub of network mode proxy, for tools that ignore the proxy
// variables (Node 20's built-in fetch): the sandbox's resolv.conf (the
// dns-stub rule) names 127.0.0.1, where the stub answers each name's A
// query with an address of its own in 127.77.0.0/16, one per name, and
// every other type with no records. The helper also listens on ports 80,
// 443 and 22 (and each port Config.Allow and Config.Private name) of
// every address of the sandbox's loopback; a connection to a name's
// address goes to the proxy as name:port, which the policy allows or
// refuses as it would a CONNECT, and the stream passes through untouched
// (TLS included). Both run in the process that serves the proxy.

// dnsStubPorts are the ports a name's address is served on, besides those
// the proxy's lists name: HTTP, HTTPS and ssh (git@host: remotes).
var dnsStubPorts = []int{80, 443, 22}

// ResolvConf is the sandbox's resolv.conf in mode proxy.
const ResolvConf = "# sandtable network mode proxy: the DNS stub\nnameserver 127.0.0.1\noptions attempts:2 timeout:2\n"

const (
	dnsStubTTL = 60
	// dnsStubNames bounds the names one sandbox may resolve: the
	// addresses of 127.77.0.0/16 but the first and the last.
	dnsStubNames = 1<<16 - 2
)

// StubPorts are the ports the helper listens on for a proxy with the
// lists allow and private: dnsStubPorts and each port they name, other
// than the proxy's own.
func StubPorts(allow, private []string) []int {
	ports := slices.Clone(dnsStubPorts)
	for _, l := range [][]string{allow, private} {
		for _, s := range l {
			h, err := ParsePattern(s)
			if err == nil && h.port != 0 && !slices.Contains(ports, h.port) && !slices.Contains(Ports, h.port) && h.port != 53 {
				ports = append(ports, h.port)
			}
		}
	}
	return ports
}

// DNSStub maps names to addresses for one sandbox, and forwards a
// connection to a name's address to the proxy.
type DNSStub struct {
	p      *Proxy
	mu     sync.Mutex
	byName map[string][4]byte
	byAddr map[[4]byte]string
}

// NewDNSStub is a stub whose connections p serves.
func NewDNSStub(p *Proxy) *DNSStub {
	return &DNSStub{p: p, byName: map[string][4]byte{}, byAddr: map[[4]byte]string{}}
}

// addr is name's address, given out on first use; false once all are.
func (s *DNSStub) addr(name string) ([4]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.byName[name]; ok {
		return a, true
	}
	n := len(s.byName) + 1
	if n > dnsStubNames {
		return [4]byte{}, false
	}
	a := [4]byte{127, 77, byte(n >> 8), byte(n)}
	s.byName[name], s.byAddr[a] = a, name
	return a, true
}

// name is the name an address was given to.
func (s *DNSStub) name(a [4]byte) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byAddr[a]
	return n, ok
}

// answer is the response to one query message, nil to send none.
func (s *DNSStub) answer(msg []byte) []byte {
	q, err := parseDNSQuery(msg)
	switch {
	case err != nil && len(msg) >= dnsHeaderLen && q.flags&0x8000 == 0:
		return dnsResponse(dnsQuery{id: q.id, flags: q.flags}, dnsRcodeFormErr, nil, 0)
	case err != nil:
		return nil
	case q.opcode() != 0:
		return dnsResponse(q, dnsRcodeNotImp, nil, 0)
	case q.qclass != dnsClassIN || q.name == "":
		return dnsResponse(q, dnsRcodeRefused, nil, 0)
	case q.qtype != dnsTypeA:
		return dnsResponse(q, dnsRcodeOK, nil, 0) // AAAA and the rest: no records
	}
	a, ok := s.addr(q.name)
	if !ok {
		return dnsResponse(q, dnsRcodeServFail, nil, 0)
	}
	return dnsResponse(q, dnsRcodeOK, a[:], dnsStubTTL)
}

// ServeDNS answers queries on pc until it is closed.
func (s *DNSStub) ServeDNS(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := s.answer(buf[:n]); out != nil {
			_, _ = pc.WriteTo(out, from)
		}
	}
}

// Forward accepts on ln, which listens on port of every loopback address,
// until it is closed: a connection to a name's address goes to the proxy
// as name:port.
func (s *DNSStub) Forward(ln net.Listener, port int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !s.p.admit(c) {
			continue
		}
		s.p.wg.Add(1)
		go func() {
			defer s.p.wg.Done()
			defer s.p.conns.release()
			defer c.Close()
			la, ok := c.LocalAddr().(*net.TCPAddr)
			if !ok || la.IP.To4() == nil {
				return
			}
			name, ok := s.name([4]byte(la.IP.To4()))
			if !ok {
				return
			}
			up, err := s.p.Connect(context.Background(), name, port)
			if err != nil {
				return
			}
			defer up.Close()
			relay(c, up, bufio.NewReader(c))
		}()
	}
}
