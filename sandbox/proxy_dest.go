package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// The destinations network mode proxy refuses whatever the name: the
// host's own and its neighbours' rather than the internet's. (The
// documentation ranges are not here: they are not routed on the internet,
// and where a network routes them, as some registry mirrors do, they are
// its public side.) A name is
// resolved once, each address checked, and only an allowed address is
// dialled, so a name cannot be re-pointed between the check and the dial.
var refusedPrefixes = mustPrefixes(
	"0.0.0.0/8",          // this network, unspecified
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // carrier-grade NAT
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local (cloud metadata services)
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, broadcast
	"::/96",              // unspecified, loopback, IPv4-compatible
	"64:ff9b::/96",       // NAT64: an IPv4 address behind a gateway
	"64:ff9b:1::/48",     // local-use NAT64
	"2002::/16",          // 6to4: an IPv4 address behind a relay
	"fc00::/7",           // unique local
	"fe80::/10",          // link-local
	"fec0::/10",          // site-local (deprecated)
	"ff00::/8",           // multicast
	"::ffff:0:0/96",      // IPv4-mapped, checked again unmapped
	"100::/64",           // discard
	"2001::/32",          // Teredo: an IPv4 address behind a relay
	"2001:10::/28",       // ORCHID
	"2001:20::/28",       // ORCHIDv2
	"5f00::/16",          // SRv6 SIDs
	"255.255.255.255/32", // broadcast
)

func mustPrefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// privateAddr reports whether ip is one the proxy refuses unless its
// destination is listed, and says what kind of address it is.
func privateAddr(ip netip.Addr) (string, bool) {
	if ip.Is4In6() {
		return privateAddr(ip.Unmap())
	}
	ip = ip.WithZone("")
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
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

// hostPattern is one destination of an allowlist: a name (exact, or
// *.suffix for any name below it), or an IP literal, and a port, 0 for any.
type hostPattern struct {
	name string // lower-case; "*.example.org" matches below example.org
	ip   netip.Addr
	port int
}

// parseHostPattern reads NAME[:PORT], *.NAME[:PORT], IP[:PORT] or [IPv6]:PORT.
func parseHostPattern(s string) (hostPattern, error) {
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") == 1 {
		return hostPattern{}, fmt.Errorf("%q: %v", s, err)
	}
	var hp hostPattern
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return hostPattern{}, fmt.Errorf("%q: port %q is not 1-65535", s, port)
		}
		hp.port = n
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		hp.ip = ip.Unmap().WithZone("")
		return hp, nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	rest := strings.TrimPrefix(name, "*.")
	if rest == "" || strings.Contains(rest, "*") || !validName(rest) {
		return hostPattern{}, fmt.Errorf("%q: want NAME[:PORT], *.NAME[:PORT] or IP[:PORT]", s)
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
func (h hostPattern) match(host string, port int) bool {
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
func (h hostPattern) exact() bool { return !strings.HasPrefix(h.name, "*.") }

func (h hostPattern) String() string {
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
