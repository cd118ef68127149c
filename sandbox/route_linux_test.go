package sandbox

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/sandtable/sandtable/internal/netlink"
	"github.com/sandtable/sandtable/internal/proxy"
	"golang.org/x/sys/unix"
)

// TestProxyLocalRoute: a local route (ip route add local 198.51.100.0/24
// dev lo) makes the host deliver a whole range to itself, to its services
// on 0.0.0.0 and ::, though no interface holds an address of it. In a
// network namespace the test makes on a thread of its own, with such
// routes for IPv4 and IPv6, one more behind a policy rule that selects by
// protocol and port, and a service on every address, the proxy (serving
// from that thread) refuses an address of each range; the control, with
// the own-address check off (proxy.Config.NoOwnAddrCheck), reaches the
// service through them.
func TestProxyLocalRoute(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a network namespace on a thread of this process needs root")
	}
	done := make(chan struct{})
	// Not the main thread: it cannot end, and /proc/self/net is its
	// namespace's, which every later test of this process would then read.
	onDyingThread(func() {
		defer close(done)
		if err := enterNetNamespace(); err != nil {
			t.Error(err)
			return
		}
		for _, r := range []string{"198.51.100.0/24", "2001:db8:77::/64"} {
			if err := addLocalRoute(netip.MustParsePrefix(r), unix.RT_TABLE_LOCAL); err != nil {
				t.Errorf("local route %s: %v", r, err)
				return
			}
		}
		ln, err := net.Listen("tcp", ":0")
		if err != nil {
			t.Error(err)
			return
		}
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port
		// A policy rule that selects by protocol and port (ip -6 rule add
		// ipproto tcp dport PORT lookup 100) to a table with a local
		// route: a query without them finds no route at all.
		if err := addPortRule(unix.AF_INET6, port, 100); err != nil {
			t.Errorf("rule: %v", err)
			return
		}
		if err := addLocalRoute(netip.MustParsePrefix("2001:db8:78::/64"), 100); err != nil {
			t.Errorf("local route in table 100: %v", err)
			return
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				io.WriteString(c, "host service\n")
				c.Close()
			}
		}()
		p, err := newProxy(Network{}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		unchecked, err := newProxy(Network{testProxy: &proxyTest{config: func(c *proxy.Config) { c.NoOwnAddrCheck = true }}}, nil)
		if err != nil {
			t.Error(err)
			return
		}
		for _, addr := range []string{"198.51.100.7", "2001:db8:77::9", "2001:db8:78::9"} {
			if _, err := p.Connect(context.Background(), addr, port); err == nil || !strings.Contains(err.Error(), "a local route") {
				t.Errorf("%s: the proxy: %v, want a refusal for a local route", addr, err)
			}
			up, err := unchecked.Connect(context.Background(), addr, port)
			if err != nil {
				t.Errorf("control: %s without the own-address check: %v", addr, err)
				continue
			}
			b, _ := io.ReadAll(up)
			up.Close()
			if string(b) != "host service\n" {
				t.Errorf("control: %s read %q", addr, b)
			}
		}
		if ip, err := p.Decide(context.Background(), "192.0.2.1", 80); !ip.IsValid() || err != nil {
			t.Errorf("192.0.2.1, no route: %v, %v; want it allowed, not taken for a local route", ip, err)
		}
	})
	<-done
}

// addLocalRoute adds a route of type local for prefix through lo to table
// in the calling thread's namespace (ip route add local PREFIX dev lo
// table TABLE).
func addLocalRoute(prefix netip.Prefix, table uint8) error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return err
	}
	family := unix.AF_INET
	if prefix.Addr().Is6() {
		family = unix.AF_INET6
	}
	body := make([]byte, unix.SizeofRtMsg)
	*(*unix.RtMsg)(unsafe.Pointer(&body[0])) = unix.RtMsg{Family: uint8(family), Dst_len: uint8(prefix.Bits()),
		Table: table, Protocol: unix.RTPROT_BOOT, Scope: unix.RT_SCOPE_HOST, Type: unix.RTN_LOCAL}
	body = append(body, netlink.Attr(unix.RTA_DST, prefix.Addr().AsSlice())...)
	oif := make([]byte, 4)
	*(*uint32)(unsafe.Pointer(&oif[0])) = uint32(lo.Index)
	body = append(body, netlink.Attr(unix.RTA_OIF, oif)...)
	_, err = netlink.Route(unix.RTM_NEWROUTE, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL, body)
	return err
}

// addPortRule adds a policy rule to the calling thread's namespace that
// looks TCP to port up in table (ip rule add ipproto tcp dport PORT lookup
// TABLE): struct fib_rule_hdr, then the attributes.
func addPortRule(family, port int, table uint8) error {
	body := []byte{byte(family), 0, 0, 0, table, 0, 0, unix.FR_ACT_TO_TBL, 0, 0, 0, 0}
	body = append(body, netlink.Attr(unix.FRA_IP_PROTO, []byte{unix.IPPROTO_TCP})...)
	ports := binary.NativeEndian.AppendUint16(nil, uint16(port))
	body = append(body, netlink.Attr(unix.FRA_DPORT_RANGE, binary.NativeEndian.AppendUint16(ports, uint16(port)))...)
	body = append(body, netlink.Attr(unix.FRA_PRIORITY, binary.NativeEndian.AppendUint32(nil, 100))...)
	_, err := netlink.Route(unix.RTM_NEWRULE, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL, body)
	return err
}
