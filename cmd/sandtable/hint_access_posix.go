//go:build linux || darwin

package main

import "golang.org/x/sys/unix"

// hostWritable reports whether this process may write p on the host.
func hostWritable(p string) bool { return unix.Access(p, unix.W_OK) == nil }
