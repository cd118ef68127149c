package sandbox

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/sandtable/sandtable/internal/proxy"
)

// TestProxyRefusedRows checks the proxy-refuse rows as the proxy reads
// them: the first and last address of every range are refused, and each
// row decides: with it left out, the first address of its range gets
// through, unless the test names the other check that still refuses it
// (a range inside another row's, or addresses checked unmapped).
func TestProxyRefusedRows(t *testing.T) {
	if len(refusedPrefixes) < 20 {
		t.Fatalf("%d refused ranges, want the table's two dozen", len(refusedPrefixes))
	}
	alsoRefused := map[string]string{
		"255.255.255.255/32": "inside 240.0.0.0/4",
		"::ffff:0.0.0.0/96":  "an IPv4-mapped address is checked as its IPv4 address, 0.0.0.0 here",
	}
	all := proxyRanges()
	for i, p := range refusedPrefixes {
		for _, a := range []netip.Addr{p.Addr(), lastAddr(p)} {
			if _, refused := proxy.InRanges(a, all); !refused {
				t.Errorf("%s (row %s) is not refused", a, p)
			}
		}
		without := slices.Delete(slices.Clone(all), i, i+1)
		_, still := proxy.InRanges(p.Addr(), without)
		switch why, named := alsoRefused[p.String()]; {
		case still && !named:
			t.Errorf("%s: still refused without row %s; the row decides nothing", p.Addr(), p)
		case !still && named:
			t.Errorf("%s: let through without row %s, though the test says %s", p.Addr(), p, why)
		case still:
			t.Logf("%-20s %s: refused without the row too (%s)", p, p.Addr(), why)
		default:
			t.Logf("%-20s %s: refused; let through without the row", p, p.Addr())
		}
	}
	// A public address, and one in a documentation range, pass.
	for _, s := range []string{"203.0.113.7", "2001:db8::1", "8.8.8.8", "2606:4700::1111"} {
		if _, refused := proxy.InRanges(netip.MustParseAddr(s), all); refused {
			t.Errorf("%s is refused", s)
		}
	}
}

// lastAddr is the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
