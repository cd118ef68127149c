//go:build !linux

package sandbox

var bareRelaysOS []bareRelay
