package sandbox

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proxyPorts are the loopback ports the helper binds in the sandbox's
// network namespace: HTTP (absolute-URI forwarding and CONNECT) and SOCKS5.
// Each listener speaks both; the variables of the proxy rows name them.
var proxyPorts = []int{3128, 1080}

var timeZero time.Time

const (
	proxyHeaderTimeout = 30 * time.Second
	proxyDialTimeout   = 30 * time.Second
)

// proxy is network mode proxy's server, run in the caller's process: the
// only way out of the sandbox's network namespace. It allows every public
// destination, or only Network.Allow's when that is set, and refuses the
// host's own and private addresses unless a destination is listed exactly.
type proxy struct {
	allow   []hostPattern // nil: every public destination
	private []hostPattern // may reach a non-public address
	refused func(msg string)

	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)

	wg      sync.WaitGroup
	conns   connSlots    // the connections served at once, and their bound
	pending pendingConns // those yet to present cred (proxy_pending.go)

	cred *proxyCred // nil: every client that reaches the listener (proxy_auth.go)
}

// newProxy checks n's lists; an entry that does not parse is an error
// naming it, wrapping ErrBadPolicy.
func newProxy(n Network) (*proxy, error) {
	p := &proxy{refused: n.Refused, conns: connSlots{max: proxyConnLimit(n.conns)}}
	for _, l := range []struct {
		field string
		in    []string
		out   *[]hostPattern
	}{{"Network.Allow", n.Allow, &p.allow}, {"Network.Private", n.Private, &p.private}} {
		for _, s := range l.in {
			h, err := parseHostPattern(s)
			if err != nil {
				return nil, fmt.Errorf("sandbox: %s: %s: %w", l.field, err.Error(), ErrBadPolicy)
			}
			if l.out == &p.private && !h.exact() {
				return nil, fmt.Errorf("sandbox: Network.Private: %q: a wildcard cannot reach non-public addresses: %w", s, ErrBadPolicy)
			}
			*l.out = append(*l.out, h)
		}
	}
	var d net.Dialer
	p.dial = d.DialContext
	p.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	if proxyTestHook != nil {
		proxyTestHook(p)
	}
	return p, nil
}

// refusal is a destination the policy does not allow.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func (p *proxy) refuse(dest, reason, fix string) error {
	msg := "sandbox: network proxy refused " + dest + ": " + reason + "; " + fix
	if p.refused != nil {
		p.refused(msg)
	}
	return &refusal{msg: msg}
}

// connect dials host:port if the policy allows it: the name is resolved
// once, each address checked, and only an allowed address dialled.
func (p *proxy) connect(ctx context.Context, host string, port int) (net.Conn, error) {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	dest := net.JoinHostPort(host, strconv.Itoa(port))
	if host == "" || port < 1 || port > 65535 {
		return nil, p.refuse(dest, "not a destination", "name a host and a port")
	}
	if err := p.notHostName(host, port); err != nil {
		return nil, err
	}
	// listed: an exact entry names host:port, so it may be non-public.
	listed := false
	if p.allow != nil {
		in := false
		for _, h := range p.allow {
			if h.match(host, port) {
				in = true
				listed = listed || h.exact()
			}
		}
		if !in {
			return nil, p.refuse(dest, "not in the allowlist", "allow it with --allow-host "+dest+" (Config.Network.Allow)")
		}
	}
	for _, h := range p.private {
		listed = listed || h.match(host, port)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		lctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
		addrs, err = p.lookup(lctx, host)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	var firstBad string
	var lastErr error
	for _, ip := range addrs {
		if kind, bad := p.refusedAddr(ip, port); bad && !listed {
			if firstBad == "" {
				firstBad = ip.Unmap().String() + ", " + kind
			}
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
		c, err := p.dial(dctx, "tcp", net.JoinHostPort(ip.Unmap().String(), strconv.Itoa(port)))
		cancel()
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	if firstBad != "" {
		fix := "allow it with --allow-private " + dest + " (Config.Network.Private)"
		if p.allow != nil {
			fix = "allow it with --allow-host " + dest + " (Config.Network.Allow, an exact entry)"
		}
		what := "it resolves to " + firstBad
		if _, err := netip.ParseAddr(host); err == nil {
			what = "it is " + firstBad[strings.Index(firstBad, ", ")+2:]
		}
		return nil, p.refuse(dest, what, fix)
	}
	return nil, fmt.Errorf("resolve %s: no address", host)
}

// serve accepts on ln until it is closed, one goroutine per connection.
func (p *proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if p.cred != nil {
			p.pend(c) // a slot once authenticated (proxy_pending.go)
		} else if !p.admit(c) {
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if p.cred != nil {
				defer p.settle(c)
			} else {
				defer p.conns.release()
			}
			p.serveConn(c)
		}()
	}
}

// serveConn answers one client: SOCKS5 when its first byte is 5, HTTP
// otherwise.
func (p *proxy) serveConn(c net.Conn) {
	defer c.Close()
	timeout := proxyHeaderTimeout
	if p.cred != nil {
		timeout = p.cred.authTimeout
	}
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 5 {
		p.socks(c, br)
		return
	}
	p.http(c, br)
}

// relay copies both ways until both directions end. What br buffered past
// the request goes first.
func relay(c, up net.Conn, br *bufio.Reader) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if n := br.Buffered(); n > 0 {
			b, _ := br.Peek(n)
			if _, err := up.Write(b); err != nil {
				return
			}
		}
		_, _ = copyConn(up, c)
		closeWrite(up)
	}()
	_, _ = copyConn(c, up)
	closeWrite(c)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// SOCKS5 (RFC 1928), CONNECT only; RFC 1929 user name and password
// where a proxy-auth row asks (proxy_auth.go).
const (
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksRefused     = 5
	socksNoCommand   = 7
	socksNoAddrType  = 8
)

func (p *proxy) socks(c net.Conn, br *bufio.Reader) {
	methods, err := readSocksGreeting(br)
	if err != nil {
		return
	}
	if !p.socksMethod(c, br, methods) {
		return
	}
	if p.cred != nil {
		_ = c.SetReadDeadline(time.Now().Add(proxyHeaderTimeout))
	}
	req, code, err := readSocksRequest(br)
	if err != nil {
		if code != 0 {
			socksReply(c, code)
		}
		return
	}
	if req.cmd != 1 {
		socksReply(c, socksNoCommand)
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	up, err := p.connect(context.Background(), req.host, req.port)
	if err != nil {
		var r *refusal
		var op *net.OpError
		switch {
		case errors.As(err, &r):
			socksReply(c, socksNotAllowed)
		case errors.As(err, &op) && strings.Contains(op.Err.Error(), "refused"):
			socksReply(c, socksRefused)
		case strings.HasPrefix(err.Error(), "resolve "):
			socksReply(c, socksUnreachable)
		default:
			socksReply(c, socksFailure)
		}
		return
	}
	defer up.Close()
	if !socksReply(c, socksOK) {
		return
	}
	relay(c, up, br)
}

// readSocksGreeting reads a client's greeting (RFC 1928 section 3):
// version 5 and the methods it offers, nothing past them.
func readSocksGreeting(br *bufio.Reader) ([]byte, error) {
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(br, hdr); err != nil {
		return nil, err
	}
	if hdr[0] != 5 {
		return nil, errors.New("socks: not version 5")
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return nil, err
	}
	return methods, nil
}

// socksRequest is a SOCKS5 request as read: its command and the
// destination it names.
type socksRequest struct {
	cmd  byte
	host string
	port int
}

// readSocksRequest reads a request (RFC 1928 section 4) after the method
// negotiation, and nothing past it: version 5, the command, a reserved
// byte, an IPv4 address, a name of up to 255 bytes or an IPv6 address,
// and the port. An address type it does not know is an error with the
// reply code socksNoAddrType (the length of what follows is unknown);
// another error has no reply.
func readSocksRequest(br *bufio.Reader) (socksRequest, byte, error) {
	req := make([]byte, 4)
	if _, err := io.ReadFull(br, req); err != nil {
		return socksRequest{}, 0, err
	}
	if req[0] != 5 {
		return socksRequest{}, 0, errors.New("socks: not version 5")
	}
	var host string
	switch req[3] {
	case 1, 4:
		b := make([]byte, 4)
		if req[3] == 4 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, b); err != nil {
			return socksRequest{}, 0, err
		}
		ip, _ := netip.AddrFromSlice(b)
		host = ip.String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return socksRequest{}, 0, err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return socksRequest{}, 0, err
		}
		host = string(b)
	default:
		return socksRequest{}, socksNoAddrType, errors.New("socks: unknown address type")
	}
	pb := make([]byte, 2)
	if _, err := io.ReadFull(br, pb); err != nil {
		return socksRequest{}, 0, err
	}
	return socksRequest{cmd: req[1], host: host, port: int(binary.BigEndian.Uint16(pb))}, 0, nil
}

func socksReply(c net.Conn, code byte) bool {
	_, err := c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err == nil
}
