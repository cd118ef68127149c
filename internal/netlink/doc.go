// Package netlink sends netlink requests in the calling thread's network
// namespace: the proxy's route check asks for a route and the network
// helper adds its loopback addresses (NETLINK_ROUTE, Route), and the plan
// lists the host's unix sockets (NETLINK_SOCK_DIAG, Dump). It owns the
// message framing and nothing else; Linux only, it imports the standard
// library and x/sys.
package netlink
