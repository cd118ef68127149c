//go:build !linux && !darwin

package proxy

import "net"

// waitReadable does not wait here: the relay's Read does.
func waitReadable(net.Conn) error { return nil }
