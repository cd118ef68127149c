//go:build !linux

package proxy

import "net/netip"

// localRoute is Linux's (route_linux.go); elsewhere an address's interface
// alone says it is this host's.
func localRoute(netip.Addr, int) (bool, error) { return false, nil }
