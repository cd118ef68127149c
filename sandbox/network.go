package sandbox

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// NetworkMode is how the sandboxed command reaches the network. Each mode is
// a set of rows of the rule table (see docs/POLICY.md), and README.md has an
// example of each.
type NetworkMode uint8

const (
	// NetworkDefault is the zero value: the table's default mode for the
	// OS ([DefaultNetworkMode]): [NetworkProxy] on Linux, [NetworkHost] on macOS.
	NetworkDefault NetworkMode = iota
	// NetworkOff gives the command a network namespace of its own with
	// only a loopback interface: no network, and none of the host's
	// loopback services or abstract unix sockets.
	NetworkOff
	// NetworkHost shares the host's network namespace: the whole network,
	// and with it every loopback service and abstract unix socket of the
	// host (an X server, D-Bus). An explicit opt-in for tools that need
	// raw sockets or UDP.
	NetworkHost
	// NetworkProxy gives the command a network namespace of its own
	// whose only way out is a proxy in the caller's process (HTTP,
	// HTTPS through CONNECT, and SOCKS5 for other TCP), set in the
	// command's proxy variables. It reaches every public destination, or
	// only [Network.Allow]'s, and none of the host's loopback services,
	// abstract unix sockets or private addresses unless listed. Linux
	// only; see the package documentation for the helper it runs.
	NetworkProxy
)

var networkModes = [...]string{NetworkDefault: "default", NetworkOff: "off", NetworkHost: "host", NetworkProxy: "proxy"}

func (m NetworkMode) String() string {
	if int(m) < len(networkModes) {
		return networkModes[m]
	}
	return "NetworkMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseNetworkMode reads a mode name as `sandtable run --network` takes it:
// off, proxy or host. An unknown name is an error wrapping [ErrBadPolicy].
func ParseNetworkMode(s string) (NetworkMode, error) {
	for m, name := range networkModes {
		if m != int(NetworkDefault) && strings.EqualFold(s, name) {
			return NetworkMode(m), nil
		}
	}
	return NetworkDefault, fmt.Errorf("sandbox: network mode %q: %w (accepted: %s)", s, ErrBadPolicy, strings.Join(networkModes[1:], ", "))
}

// DefaultNetworkMode is the mode a [Config] that names none gets on goos: the
// table's network-default rows (docs/POLICY.md).
func DefaultNetworkMode(goos string) NetworkMode { return defaultNetworkMode(goos) }

// withDefaultNetwork is cfg with the default mode for goos named, so that
// every check and builder after it sees the mode that applies.
func withDefaultNetwork(goos string, cfg Config) Config {
	if cfg.Network.Mode == NetworkDefault && !cfg.NoNetwork {
		cfg.Network.Mode = defaultNetworkMode(goos)
	}
	return cfg
}

// Network is the network part of a [Config].
type Network struct {
	// Mode is the network mode; the zero value is the default.
	Mode NetworkMode

	// Allow, in mode proxy, makes the proxy an allowlist: only these
	// destinations, each NAME[:PORT], *.NAME[:PORT] (any name below NAME)
	// or IP[:PORT] (an IP literal the command connects to), any port when
	// none is given. Empty: every public destination. An exact entry
	// (no wildcard) may also reach a loopback, link-local or private
	// address, which the proxy otherwise refuses.
	Allow []string

	// Private, in mode proxy, names exact destinations (NAME[:PORT] or
	// IP[:PORT]) the proxy may reach on a loopback, link-local or private
	// address, without making it an allowlist: a registry mirror on the
	// local network, or a test's server on 127.0.0.1.
	Private []string

	// HostAbstract, in mode host, leaves the host's abstract unix sockets
	// reachable. Without it, where the kernel has Landlock's
	// abstract-unix-socket scope (Linux 6.12 and later), NewCmd and the
	// wrap helper of Command and Prefix start bwrap inside a Landlock
	// domain with that scope, and the command cannot connect to an
	// abstract socket made outside the sandbox (an X server, D-Bus, a
	// host service).
	HostAbstract bool

	// Refused, when set, is called with the message of each destination
	// the proxy refuses (the command sees the same message); sandtable run
	// prints it on stderr. NewCmd calls it on the proxy's goroutines;
	// Command, whose proxy runs in its wrap helper, on a goroutine that
	// reads the helper's reports, possibly just after Wait has returned.
	// A Prefix argv's helper reports to nothing.
	Refused func(msg string)

	// conns is Config.Limits.ProxyConnections, set with the other limits
	// (setRunLimits): 0 for the table's default, -1 for no bound.
	conns int

	// testProxy is set only by this package's tests (proxy.go): only a
	// proxy in this process sees it.
	testProxy *proxyTest
}

// networkMode resolves cfg's mode: the deprecated NoNetwork is NetworkOff,
// and contradicts any other explicit mode.
func networkMode(cfg Config) (NetworkMode, error) {
	m := cfg.Network.Mode
	switch m {
	case NetworkDefault, NetworkOff, NetworkHost, NetworkProxy:
	default:
		return 0, fmt.Errorf("sandbox: network mode %v: %w (accepted: %s)", m, ErrBadPolicy, strings.Join(networkModes[1:], ", "))
	}
	if cfg.NoNetwork {
		if m != NetworkDefault && m != NetworkOff {
			return 0, fmt.Errorf("sandbox: NoNetwork with network mode %v: %w (NoNetwork is NetworkOff; set one of them)", m, ErrBadPolicy)
		}
		return NetworkOff, nil
	}
	if m == NetworkDefault {
		return defaultNetworkMode(runtime.GOOS), nil
	}
	return m, nil
}

// checkNetwork checks the network part of cfg: the mode, and the proxy's
// lists, which only mode proxy reads.
func checkNetwork(cfg Config) error {
	mode, err := networkMode(cfg)
	if err != nil {
		return err
	}
	if cfg.Network.HostAbstract && mode != NetworkHost {
		return fmt.Errorf("sandbox: Network.HostAbstract needs network mode host, not %v: %w", mode, ErrBadPolicy)
	}
	if mode != NetworkProxy {
		if len(cfg.Network.Allow) > 0 || len(cfg.Network.Private) > 0 {
			return fmt.Errorf("sandbox: Network.Allow and Network.Private need network mode proxy, not %v: %w", mode, ErrBadPolicy)
		}
		return nil
	}
	_, err = newProxy(cfg.Network, nil)
	return err
}

// Check reports what is wrong with n, as a spawn would: an unknown mode, or
// an entry of Allow or Private that does not parse or needs mode proxy.
// The error wraps [ErrBadPolicy].
func (n Network) Check() error { return checkNetwork(Config{Network: n}) }
