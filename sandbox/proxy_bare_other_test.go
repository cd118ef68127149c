//go:build !linux

package sandbox

import "testing"

var bareRelaysOS []bareRelay

// reportZerocopy: MSG_ZEROCOPY is Linux's.
func reportZerocopy(b *testing.B) {}
