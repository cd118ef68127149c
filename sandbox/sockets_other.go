//go:build !linux

package sandbox

import "io/fs"

// hostSockets lists nothing where there is no /proc/net/unix: a Linux
// profile rendered here hides no host socket.
func hostSockets() []string { return nil }

type identity struct{}

var socketIdentity = func() identity { return identity{} }

// searchable is never asked: hostSockets lists nothing here.
func searchable(*resolver, string, identity) (ok, shared bool) { return false, false }

// listable is never asked either.
func listable(fs.FileInfo, identity) bool { return false }
