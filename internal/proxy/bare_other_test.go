//go:build !linux

package proxy

import "testing"

var bareRelaysOS []bareRelay

// reportZerocopy: MSG_ZEROCOPY is Linux's.
func reportZerocopy(b *testing.B) {}
