package proxy

import (
	"net/netip"
	"strconv"
)

// notHostName refuses, before anything else looks at it, a destination
// that is neither an IP literal without a zone nor a host name (validName:
// letters, digits, hyphens, underscores and dots): the command chooses its
// bytes, and they would reach the resolver and, through Config.Refused,
// the caller's log or terminal as they are (a SOCKS5 name may hold a
// newline or an escape sequence, and so may an IPv6 literal's zone, which
// takes any bytes after its %); the destination is quoted in the message.
// Config.NoNameCheck turns it off, for a test's control.
func (p *Proxy) notHostName(host string, port int) error {
	if p.cfg.NoNameCheck {
		return nil
	}
	dest := strconv.QuoteToASCII(host) + " port " + strconv.Itoa(port)
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() == "" {
			return nil
		}
		return p.refuse(dest, p.cfg.NetRule, "an IPv6 address with a zone", "name the address without its %zone")
	}
	if validName(host) {
		return nil
	}
	return p.refuse(dest, p.cfg.NetRule, "not a host name or an IP address", "name the host in letters, digits, hyphens and dots")
}
