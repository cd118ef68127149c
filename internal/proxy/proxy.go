// Package proxy is network mode proxy's server: HTTP forwarding, CONNECT
// and SOCKS5 on the listeners the network helper binds, the DNS stub that
// gives names addresses of their own, the relay that copies a tunnel's
// bytes, and the checks that decide a destination (its name, the
// allowlist, the ranges refused, this host's own addresses and local
// routes). It owns the wire formats and the checks; what is allowed is
// the caller's data (Config: package sandbox fills it from Network and
// the table's proxy rows), and so are the rule ids its refusals name. It
// imports the standard library, x/sys and internal/netlink, never
// net/http (a millisecond of init on every helper start).
package proxy

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
	"syscall"
	"time"
)

// Ports are the loopback ports the helper binds in the sandbox's network
// namespace: HTTP (absolute-URI forwarding and CONNECT) and SOCKS5. Each
// listener speaks both; the variables of the proxy rows name them.
var Ports = []int{3128, 1080}

var timeZero time.Time

const (
	proxyHeaderTimeout = 30 * time.Second
	proxyDialTimeout   = 30 * time.Second
)

// Config is one proxy's policy. The zero value of each field is the
// strict one: the checks' switches are for a test's control only.
type Config struct {
	// Allow lists the destinations it may reach (NAME[:PORT],
	// *.NAME[:PORT], IP[:PORT]); nil: every public one.
	Allow []string
	// Private lists the exact destinations that may be non-public.
	Private []string
	// Refused hears each refusal's message; nil: none.
	Refused func(msg string)
	// MaxConns bounds the connections served at once; 0: no bound.
	MaxConns uint64
	// ConnRule is the row that bounds them, named in the refusal.
	ConnRule string
	// Ranges are refused unless a destination is listed exactly.
	Ranges []Range
	// NetRule is the row that refuses the rest of what the policy refuses
	// (names, the allowlist, this host's own addresses).
	NetRule string
	// Cred is what every client must present; nil: none.
	Cred *Cred

	// Lookup and Dial replace the resolver and the dialer (a test's
	// made-up names); nil: the system's.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	// NoNameCheck and NoOwnAddrCheck turn off the name check
	// (notHostName) and the check of this host's own addresses and
	// routes (refusedAddr), for a test's control only.
	NoNameCheck, NoOwnAddrCheck bool
}

// Range is one range of addresses refused, and the row that refuses it.
type Range struct {
	Prefix netip.Prefix
	Rule   string
}

// Proxy serves Config's policy. It allows every public destination, or
// only Allow's when that is set, and refuses the host's own and private
// addresses unless a destination is listed exactly.
type Proxy struct {
	cfg     Config    // Lookup and Dial filled in
	allow   []pattern // nil: every public destination
	private []pattern // may reach a non-public address

	wg      sync.WaitGroup
	conns   connSlots    // the connections served at once, and their bound
	pending pendingConns // those yet to present Config.Cred (pending.go)
}

// ListError is an entry of Config.Allow or Config.Private that does not
// parse, or a wildcard in Private.
type ListError struct {
	List string // "Allow" or "Private"
	Err  error
}

func (e *ListError) Error() string { return e.Err.Error() }
func (e *ListError) Unwrap() error { return e.Err }

// New checks c's lists; an entry that does not parse is a *ListError.
func New(c Config) (*Proxy, error) {
	if c.Dial == nil {
		var d net.Dialer
		c.Dial = d.DialContext
	}
	if c.Lookup == nil {
		c.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	p := &Proxy{cfg: c, conns: connSlots{max: c.MaxConns}}
	for _, l := range []struct {
		list string
		in   []string
		out  *[]pattern
	}{{"Allow", c.Allow, &p.allow}, {"Private", c.Private, &p.private}} {
		for _, s := range l.in {
			h, err := ParsePattern(s)
			if err != nil {
				return nil, &ListError{List: l.list, Err: err}
			}
			if l.out == &p.private && !h.exact() {
				return nil, &ListError{List: l.list, Err: fmt.Errorf("%q: a wildcard cannot reach non-public addresses", s)}
			}
			*l.out = append(*l.out, h)
		}
	}
	return p, nil
}

// Wait waits for the connections being served to end; call it once the
// listeners are closed.
func (p *Proxy) Wait() { p.wg.Wait() }

// Stats is what a proxy holds at a moment: the connections it serves and
// their bound (Config.MaxConns), and those yet to present Config.Cred.
type Stats struct {
	Open, Max uint64
	Pending   int
}

// Stats reads the proxy's counts.
func (p *Proxy) Stats() Stats {
	p.pending.mu.Lock()
	n := len(p.pending.waiting)
	p.pending.mu.Unlock()
	return Stats{Open: p.conns.open.Load(), Max: p.conns.max, Pending: n}
}

// HasAllowlist reports whether the proxy reaches only Config.Allow.
func (p *Proxy) HasAllowlist() bool { return p.allow != nil }

// Refusal is a destination the policy does not allow, and the row that
// refuses it (a range's row for an address in it, Config.NetRule for the
// rest of the proxy's policy).
type Refusal struct{ Msg, Rule string }

func (r *Refusal) Error() string { return r.Msg }

// ResolveError is a destination whose name did not resolve to an address.
type ResolveError struct {
	Host string
	Err  error // nil: the name has no address
}

func (e *ResolveError) Error() string {
	if e.Err == nil {
		return "resolve " + e.Host + ": no address"
	}
	return "resolve " + e.Host + ": " + e.Err.Error()
}

func (e *ResolveError) Unwrap() error { return e.Err }

func (p *Proxy) refuse(dest, rule, reason, fix string) error {
	msg := "sandbox: network proxy refused " + dest + ": " + reason + "; " + fix
	if p.cfg.Refused != nil {
		p.cfg.Refused(msg)
	}
	return &Refusal{Msg: msg, Rule: rule}
}

// Connect dials host:port if the policy allows it: the name is resolved
// once, each address checked, and only an allowed address dialled.
func (p *Proxy) Connect(ctx context.Context, host string, port int) (net.Conn, error) {
	d, err := p.policy(ctx, host, port)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for _, ip := range d.addrs {
		if _, _, bad := p.checkAddr(ip, port, d.listed); bad {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
		c, err := p.cfg.Dial(dctx, "tcp", net.JoinHostPort(ip.Unmap().String(), strconv.Itoa(port)))
		cancel()
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return nil, p.refuseAddr(d, port)
}

// admitted is a destination the proxy's name and list checks passed (policy): its
// addresses, each still to be checked (checkAddr) before it is dialled.
type admitted struct {
	host, dest string
	listed     bool // an exact entry names host:port: it may be non-public
	addrs      []netip.Addr
}

// policy runs the policy's checks of host:port up to its addresses: the
// name, the allowlist, and the one resolution of the name. It is the
// decision connect dials from and Why answers with.
func (p *Proxy) policy(ctx context.Context, host string, port int) (admitted, error) {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	d := admitted{host: host, dest: net.JoinHostPort(host, strconv.Itoa(port))}
	if host == "" || port < 1 || port > 65535 {
		return d, p.refuse(d.dest, p.cfg.NetRule, "not a destination", "name a host and a port")
	}
	if err := p.notHostName(host, port); err != nil {
		return d, err
	}
	if p.allow != nil {
		in := false
		for _, h := range p.allow {
			if h.match(host, port) {
				in = true
				d.listed = d.listed || h.exact()
			}
		}
		if !in {
			return d, p.refuse(d.dest, p.cfg.NetRule, "not in the allowlist", "allow it with --allow-host "+d.dest+" (Config.Network.Allow)")
		}
	}
	for _, h := range p.private {
		d.listed = d.listed || h.match(host, port)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		d.addrs = []netip.Addr{ip}
		return d, nil
	}
	lctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
	addrs, err := p.cfg.Lookup(lctx, host)
	cancel()
	if err != nil {
		return d, &ResolveError{Host: host, Err: err}
	}
	if len(addrs) == 0 {
		return d, &ResolveError{Host: host}
	}
	d.addrs = addrs
	return d, nil
}

// checkAddr reports whether the proxy refuses to dial ip for a destination
// (listed: named exactly by a list), what kind of address it is, and the
// row that refuses it.
func (p *Proxy) checkAddr(ip netip.Addr, port int, listed bool) (kind, rule string, bad bool) {
	if listed {
		return "", "", false
	}
	kind, bad = p.refusedAddr(ip, port)
	if !bad {
		return "", "", false
	}
	return kind, p.addrRule(ip), true
}

// refuseAddr is the refusal of d when none of its addresses may be dialled,
// naming the first one and the row that refuses it.
func (p *Proxy) refuseAddr(d admitted, port int) error {
	for _, ip := range d.addrs {
		kind, rule, bad := p.checkAddr(ip, port, d.listed)
		if !bad {
			continue
		}
		fix := "allow it with --allow-private " + d.dest + " (Config.Network.Private)"
		if p.allow != nil {
			fix = "allow it with --allow-host " + d.dest + " (Config.Network.Allow, an exact entry)"
		}
		what := "it resolves to " + ip.Unmap().String() + ", " + kind
		if _, err := netip.ParseAddr(d.host); err == nil {
			what = "it is " + kind
		}
		return p.refuse(d.dest, rule, what, fix)
	}
	return &ResolveError{Host: d.host}
}

// Decide answers for host:port as a connection to it is decided, without
// dialling: the address the proxy would dial first, or the refusal (a
// *Refusal or a *ResolveError).
func (p *Proxy) Decide(ctx context.Context, host string, port int) (netip.Addr, error) {
	d, err := p.policy(ctx, host, port)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, ip := range d.addrs {
		if _, _, bad := p.checkAddr(ip, port, d.listed); !bad {
			return ip, nil
		}
	}
	return netip.Addr{}, p.refuseAddr(d, port)
}

// Serve accepts on ln until it is closed, one goroutine per connection.
func (p *Proxy) Serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if p.cfg.Cred != nil {
			p.pend(c) // a slot once authenticated (pending.go)
		} else if !p.admit(c) {
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if p.cfg.Cred != nil {
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
func (p *Proxy) serveConn(c net.Conn) {
	defer c.Close()
	timeout := proxyHeaderTimeout
	if p.cfg.Cred != nil {
		timeout = p.cfg.Cred.authTimeout
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
// where Config.Cred asks (auth.go).
const (
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksRefused     = 5
	socksNoCommand   = 7
	socksNoAddrType  = 8
)

func (p *Proxy) socks(c net.Conn, br *bufio.Reader) {
	methods, err := readSocksGreeting(br)
	if err != nil {
		return
	}
	if !p.socksMethod(c, br, methods) {
		return
	}
	if p.cfg.Cred != nil {
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
	up, err := p.Connect(context.Background(), req.host, req.port)
	if err != nil {
		var r *Refusal
		var re *ResolveError
		var op *net.OpError
		switch {
		case errors.As(err, &r):
			socksReply(c, socksNotAllowed)
		case errors.As(err, &op) && errors.Is(op.Err, syscall.ECONNREFUSED):
			socksReply(c, socksRefused)
		case errors.As(err, &re):
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
