package sandbox

import (
	"net/netip"
	"strconv"
)

// checkHostNames refuses, before anything else looks at it, a destination
// that is neither an IP literal nor a host name (validName: letters,
// digits, hyphens, underscores and dots): the command chooses its bytes,
// and they would reach the resolver and, through Network.Refused, the
// caller's log or terminal as they are (a SOCKS5 name may hold a newline
// or an escape sequence). A test turns it off for its control.
var checkHostNames = true

// notHostName refuses host unless it is an IP literal or a host name; the
// destination is quoted in the message.
func (p *proxy) notHostName(host string, port int) error {
	if !checkHostNames {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil || validName(host) {
		return nil
	}
	return p.refuse(strconv.QuoteToASCII(host)+" port "+strconv.Itoa(port), "not a host name or an IP address", "name the host in letters, digits, hyphens and dots")
}
