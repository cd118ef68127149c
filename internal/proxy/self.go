package proxy

import (
	"net"
	"net/netip"
)

// refusedAddr refuses, besides the ranges of Config.Ranges, every
// address of this host's own interfaces in the proxy's network namespace,
// and on Linux every address its routing delivers to the host itself (a
// local route, which may name a whole range no interface lists): a host
// whose interface has a public address (or one of a documentation range,
// which the ranges leave open) reaches its own services through it, those
// listening on 0.0.0.0 or :: included, by way of its loopback, and a
// firewall that drops the address from outside lets that pass. When the
// interfaces cannot be listed, or the route looked up, the address is
// refused. Config.NoOwnAddrCheck turns all but the ranges off, for a
// test's control.
func (p *Proxy) refusedAddr(ip netip.Addr, port int) (string, bool) {
	if kind, bad := p.privateAddr(ip); bad || p.cfg.NoOwnAddrCheck {
		return kind, bad
	}
	ip = ip.Unmap().WithZone("")
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "an address this host's interfaces could not be checked against (" + err.Error() + ")", true
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if own, ok := netip.AddrFromSlice(n.IP); ok && own.Unmap() == ip {
				return "an address of this host", true
			}
		}
	}
	local, err := localRoute(ip, port)
	if err != nil {
		return "an address whose route could not be looked up (" + err.Error() + ")", true
	}
	if local {
		return "an address this host delivers to itself (a local route)", true
	}
	return "", false
}
