// Package netlink sends rtnetlink requests (NETLINK_ROUTE) in the calling
// thread's network namespace: the proxy's route check asks for a route,
// and the network helper adds its loopback addresses. It owns the message
// framing and nothing else; Linux only, it imports the standard library
// and x/sys.
package netlink
