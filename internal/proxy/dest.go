package proxy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// privateAddr reports whether ip is one the proxy refuses unless its
// destination is listed (in a range of Config.Ranges; an IPv4-mapped
// address checked as its IPv4 address), and says what kind of address it
// is. A name is resolved once, each address checked, and only an allowed
// address is dialled, so a name cannot be re-pointed between the check
// and the dial.
func (p *Proxy) privateAddr(ip netip.Addr) (string, bool) { return InRanges(ip, p.cfg.Ranges) }

// InRanges reports whether ip is in one of refused (an IPv4-mapped
// address checked as its IPv4 address), and says what kind of address it
// is: privateAddr against those ranges.
func InRanges(ip netip.Addr, refused []Range) (string, bool) {
	if ip.Is4In6() {
		return InRanges(ip.Unmap(), refused)
	}
	ip = ip.WithZone("")
	for _, r := range refused {
		if r.Prefix.Contains(ip) {
			switch {
			case ip.IsLoopback() || ip.IsUnspecified():
				return "a loopback address", true
			case ip.IsLinkLocalUnicast():
				return "a link-local address", true
			case ip.IsMulticast():
				return "a multicast address", true
			}
			return "a non-public address", true
		}
	}
	return "", false
}

// addrRule is the row of the range that holds ip, or Config.NetRule,
// whose policy refuses the host's own addresses and local routes.
func (p *Proxy) addrRule(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	for _, r := range p.cfg.Ranges {
		if r.Prefix.Contains(ip) {
			return r.Rule
		}
	}
	return p.cfg.NetRule
}

// pattern is one destination of an allowlist: a name (exact, or
// *.suffix for any name below it), or an IP literal, and a port, 0 for any.
type pattern struct {
	name string // lower-case; "*.example.org" matches below example.org
	ip   netip.Addr
	port int
}

// ParsePattern reads NAME[:PORT], *.NAME[:PORT], IP[:PORT] or [IPv6]:PORT,
// an entry of Config.Allow or Config.Private. A URL is refused with the
// entry to write for it.
func ParsePattern(s string) (pattern, error) {
	if scheme, _, ok := strings.Cut(s, "://"); ok {
		want := "NAME:PORT"
		if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
			port := u.Port()
			switch {
			case port != "":
			case strings.EqualFold(scheme, "https"):
				port = "443"
			case strings.EqualFold(scheme, "http"):
				port = "80"
			default:
				port = "PORT"
			}
			want = net.JoinHostPort(u.Hostname(), port)
		}
		return pattern{}, fmt.Errorf("%q: a URL, where the proxy takes a host and port (want %s)", s, want)
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") == 1 {
		return pattern{}, fmt.Errorf("%q: %v", s, err)
	}
	var hp pattern
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return pattern{}, fmt.Errorf("%q: port %q is not 1-65535", s, port)
		}
		hp.port = n
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if ip.Zone() != "" {
			return pattern{}, fmt.Errorf("%s: an IPv6 address with a zone (name it without its %%zone)", strconv.QuoteToASCII(s))
		}
		hp.ip = ip.Unmap()
		return hp, nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	rest := strings.TrimPrefix(name, "*.")
	if rest == "" || strings.Contains(rest, "*") || !validName(rest) {
		return pattern{}, fmt.Errorf("%q: want NAME[:PORT], *.NAME[:PORT] or IP[:PORT]", s)
	}
	hp.name = name
	return hp, nil
}

// validName is a host name of letters, digits, hyphens and dots.
func validName(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return len(s) <= 253
}

// match reports whether the pattern names host (a name, or an IP literal as
// the command wrote it) on port. A name pattern never matches an IP literal.
func (h pattern) match(host string, port int) bool {
	if h.port != 0 && h.port != port {
		return false
	}
	lit, err := netip.ParseAddr(host)
	if h.ip.IsValid() {
		return err == nil && lit.Unmap().WithZone("") == h.ip
	}
	if err == nil {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if suffix, ok := strings.CutPrefix(h.name, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return host == h.name
}

// exact reports whether the pattern names one destination, not a wildcard.
func (h pattern) exact() bool { return !strings.HasPrefix(h.name, "*.") }

func (h pattern) String() string {
	s := h.name
	if h.ip.IsValid() {
		s = h.ip.String()
		if h.ip.Is6() && h.port != 0 {
			s = "[" + s + "]"
		}
	}
	if h.port != 0 {
		s += ":" + strconv.Itoa(h.port)
	}
	return s
}
