package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// NetworkMode is how the sandboxed command reaches the network. Each mode is
// a set of rows of the rule table (see docs/POLICY.md), and README.md has an
// example of each.
type NetworkMode uint8

const (
	// NetworkDefault is the zero value: the default mode, NetworkHost.
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
)

var networkModes = [...]string{NetworkDefault: "default", NetworkOff: "off", NetworkHost: "host"}

func (m NetworkMode) String() string {
	if int(m) < len(networkModes) {
		return networkModes[m]
	}
	return "NetworkMode(" + strconv.Itoa(int(m)) + ")"
}

// ParseNetworkMode reads a mode name as `sandtable run --network` takes it:
// off or host. An unknown name is an error wrapping ErrBadPolicy.
func ParseNetworkMode(s string) (NetworkMode, error) {
	for m, name := range networkModes {
		if m != int(NetworkDefault) && strings.EqualFold(s, name) {
			return NetworkMode(m), nil
		}
	}
	return NetworkDefault, fmt.Errorf("sandbox: network mode %q: %w (accepted: %s)", s, ErrBadPolicy, strings.Join(networkModes[1:], ", "))
}

// Network is the network part of a Config.
type Network struct {
	// Mode is the network mode; the zero value is the default.
	Mode NetworkMode
}

// networkMode resolves cfg's mode: the deprecated NoNetwork is NetworkOff,
// and contradicts any other explicit mode.
func networkMode(cfg Config) (NetworkMode, error) {
	m := cfg.Network.Mode
	switch m {
	case NetworkDefault, NetworkOff, NetworkHost:
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
		return NetworkHost, nil
	}
	return m, nil
}
