//go:build linux

package sandbox

import (
	"path/filepath"
	"strings"
)

// The host's socket names: /proc/net/unix and NETLINK_SOCK_DIAG (ss -xl)
// are the network namespace's, so a command that shares the host's lists
// every named socket the host has (the ones hide-host-socket hides at
// their paths included). With a namespace of its own it lists its own.
// Refusing NETLINK_SOCK_DIAG alone would close nothing while /proc/net
// lists the same (docs/filesystem.md, "Host unix sockets").
// sockNamesListed: the attempt escaped when its output names the socket.
func sockNamesListed(e *escEnv, r *escResult) bool { return strings.Contains(r.out, e.vars["SOCK"]) }

var sockNameAttempts = []*attempt{
	&attempt{
		name: "host-socket-names-network-off",
		what: "list a host service's socket path in /proc/net/unix and through NETLINK_SOCK_DIAG (ss -xl), network off",
		setup: func(e *escEnv) {
			e.serveUnix(filepath.Join(e.serviceDir(), "listed.sock"))
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `grep -F "$SOCK" /proc/net/unix; ss -xl 2>/dev/null | grep -F "$SOCK"; true`,
		escaped: sockNamesListed,
		control: func(e *escEnv) escMode {
			e.cfg.Network.Mode = NetworkHost
			return escMode{kind: modeSandbox, note: "network host"}
		},
	},
	&attempt{
		name:       "host-socket-names-network-host",
		what:       "list a host service's socket path in /proc/net/unix and through NETLINK_SOCK_DIAG (ss -xl), network host",
		documented: "network host shares the namespace's socket list (/proc/net/unix, NETLINK_SOCK_DIAG); the sockets themselves stay hidden (hide-host-socket)",
		setup: func(e *escEnv) {
			e.serveUnix(filepath.Join(e.serviceDir(), "listed.sock"))
			e.cfg.Network.Mode = NetworkHost
		},
		script:  `grep -F "$SOCK" /proc/net/unix; ss -xl 2>/dev/null | grep -F "$SOCK"; true`,
		escaped: sockNamesListed,
	},
}
