package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
)

// fakeNet is a proxy's resolver and dialler with no network: names
// resolve from a map, and a dial records its address.
type fakeNet struct {
	hosts  map[string][]string
	dialed []string
}

func (f *fakeNet) proxy(t *testing.T, n Network) *proxy.Proxy {
	t.Helper()
	n.testProxy = &proxyTest{config: f.config}
	p, err := newProxy(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fakeNet) config(c *proxy.Config) {
	c.Lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, s := range f.hosts[host] {
			out = append(out, netip.MustParseAddr(s))
		}
		if len(out) == 0 {
			return nil, errors.New("no such host")
		}
		return out, nil
	}
	c.Dial = func(_ context.Context, _, addr string) (net.Conn, error) {
		f.dialed = append(f.dialed, addr)
		a, b := net.Pipe()
		b.Close()
		return a, nil
	}
}

// TestProxyDestinations is the proxy's policy, destination by destination:
// what it dials (the checked address itself) and what it refuses, with the
// message naming the destination and the flag that would allow it.
func TestProxyDestinations(t *testing.T) {
	hosts := map[string][]string{
		"public.example":   {"93.184.215.14"},
		"mixed.example":    {"127.0.0.1", "93.184.215.15"},
		"rebind.example":   {"10.1.2.3"},
		"metadata.example": {"169.254.169.254"},
		"v6.example":       {"2606:4700::1111"},
		"v6local.example":  {"fd00::1"},
		"mapped.example":   {"::ffff:127.0.0.1"},
		"nat64.example":    {"64:ff9b::7f00:1"},
		"cgnat.example":    {"100.64.0.1"},
		"a.pkg.example":    {"93.184.215.16"},
		"pkg.example":      {"93.184.215.17"},
		"mirror.lan":       {"192.168.1.10"},
	}
	for _, c := range []struct {
		name          string
		allow, priv   []string
		host          string
		port          int
		dial          string // the address dialled; "" for a refusal
		refusal, flag string
	}{
		{name: "public name", host: "public.example", port: 443, dial: "93.184.215.14:443"},
		{name: "public literal", host: "93.184.215.14", port: 80, dial: "93.184.215.14:80"},
		{name: "public v6", host: "v6.example", port: 443, dial: "[2606:4700::1111]:443"},
		{name: "only the public address of a mixed name", host: "mixed.example", port: 443, dial: "93.184.215.15:443"},
		{name: "loopback literal", host: "127.0.0.1", port: 80, refusal: "127.0.0.1:80: it is a loopback address", flag: "--allow-private 127.0.0.1:80"},
		{name: "loopback v6", host: "::1", port: 80, refusal: "it is a loopback address", flag: "--allow-private [::1]:80"},
		{name: "v4-mapped loopback literal", host: "::ffff:127.0.0.1", port: 80, refusal: "a loopback address"},
		{name: "v4-mapped loopback name", host: "mapped.example", port: 80, refusal: "it resolves to 127.0.0.1, a loopback address"},
		{name: "unspecified", host: "0.0.0.0", port: 80, refusal: "a loopback address"},
		{name: "unspecified v6", host: "::", port: 80, refusal: "a loopback address"},
		{name: "private name (DNS rebinding)", host: "rebind.example", port: 443, refusal: "rebind.example:443: it resolves to 10.1.2.3, a non-public address"},
		{name: "link-local metadata", host: "metadata.example", port: 80, refusal: "169.254.169.254, a link-local address"},
		{name: "link-local v6", host: "fe80::1", port: 80, refusal: "a link-local address"},
		{name: "unique local v6", host: "v6local.example", port: 80, refusal: "fd00::1, a non-public address"},
		{name: "NAT64 loopback", host: "nat64.example", port: 80, refusal: "a non-public address"},
		{name: "carrier-grade NAT", host: "cgnat.example", port: 80, refusal: "a non-public address"},
		{name: "multicast", host: "224.0.0.1", port: 80, refusal: "a multicast address"},
		{name: "broadcast", host: "255.255.255.255", port: 80, refusal: "a non-public address"},
		{name: "private listed", priv: []string{"mirror.lan:443"}, host: "mirror.lan", port: 443, dial: "192.168.1.10:443"},
		{name: "private listed, other port", priv: []string{"mirror.lan:443"}, host: "mirror.lan", port: 80, refusal: "a non-public address"},
		{name: "private listed by address, reached by name", priv: []string{"192.168.1.10"}, host: "mirror.lan", port: 80, refusal: "a non-public address"},
		{name: "private literal listed", priv: []string{"127.0.0.1:8080"}, host: "127.0.0.1", port: 8080, dial: "127.0.0.1:8080"},

		{name: "allowlist: listed", allow: []string{"pkg.example:443"}, host: "pkg.example", port: 443, dial: "93.184.215.17:443"},
		{name: "allowlist: unlisted name", allow: []string{"pkg.example:443"}, host: "public.example", port: 443, refusal: "public.example:443: not in the allowlist", flag: "--allow-host public.example:443"},
		{name: "allowlist: unlisted port", allow: []string{"pkg.example:443"}, host: "pkg.example", port: 22, refusal: "pkg.example:22: not in the allowlist"},
		{name: "allowlist: any port", allow: []string{"pkg.example"}, host: "pkg.example", port: 22, dial: "93.184.215.17:22"},
		{name: "allowlist: case and trailing dot", allow: []string{"PKG.example"}, host: "pkg.EXAMPLE.", port: 443, dial: "93.184.215.17:443"},
		{name: "allowlist: wildcard below", allow: []string{"*.pkg.example:443"}, host: "a.pkg.example", port: 443, dial: "93.184.215.16:443"},
		{name: "allowlist: wildcard not the name itself", allow: []string{"*.pkg.example:443"}, host: "pkg.example", port: 443, refusal: "not in the allowlist"},
		{name: "allowlist: wildcard not a suffix lookalike", allow: []string{"*.pkg.example"}, host: "evilpkg.example", port: 443, refusal: "not in the allowlist"},
		{name: "allowlist: IP literal of a listed name", allow: []string{"pkg.example"}, host: "93.184.215.17", port: 443, refusal: "93.184.215.17:443: not in the allowlist"},
		{name: "allowlist: wildcard never matches a literal", allow: []string{"*.215.17"}, host: "93.184.215.17", port: 443, refusal: "not in the allowlist"},
		{name: "allowlist: IP literal listed", allow: []string{"93.184.215.17:443"}, host: "93.184.215.17", port: 443, dial: "93.184.215.17:443"},
		{name: "allowlist: listed name resolving private", allow: []string{"mirror.lan"}, host: "mirror.lan", port: 443, dial: "192.168.1.10:443"},
		{name: "allowlist: wildcard resolving private", allow: []string{"*.lan"}, host: "mirror.lan", port: 443, refusal: "a non-public address", flag: "--allow-host mirror.lan:443"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeNet{hosts: hosts}
			var told []string
			p := f.proxy(t, Network{Mode: NetworkProxy, Allow: c.allow, Private: c.priv, Refused: func(m string) { told = append(told, m) }})
			conn, err := p.Connect(context.Background(), c.host, c.port)
			if c.dial != "" {
				if err != nil || len(f.dialed) != 1 || f.dialed[0] != c.dial {
					t.Fatalf("dialed %q, err %v; want %s", f.dialed, err, c.dial)
				}
				conn.Close()
				return
			}
			var r *proxy.Refusal
			if !errors.As(err, &r) || len(f.dialed) != 0 {
				t.Fatalf("dialed %q, err %v; want a refusal", f.dialed, err)
			}
			if !strings.Contains(r.Msg, c.refusal) || !strings.Contains(r.Msg, c.flag) {
				t.Errorf("refusal %q, want %q and %q", r.Msg, c.refusal, c.flag)
			}
			if len(told) != 1 || told[0] != r.Msg {
				t.Errorf("Refused got %q, want the refusal once", told)
			}
		})
	}
}

func TestProxyListsChecked(t *testing.T) {
	for _, n := range []Network{
		{Mode: NetworkProxy, Allow: []string{"exa mple.org"}},
		{Mode: NetworkProxy, Allow: []string{"example.org:0"}},
		{Mode: NetworkProxy, Allow: []string{"*.*.org"}},
		{Mode: NetworkProxy, Allow: []string{"*"}},
		{Mode: NetworkProxy, Allow: []string{""}},
		{Mode: NetworkProxy, Allow: []string{"[fe80::1%eth0]:80"}},
		{Mode: NetworkProxy, Private: []string{"fe80::1%\n"}},
		{Mode: NetworkProxy, Private: []string{"*.lan"}},
		{Mode: NetworkHost, Allow: []string{"example.org"}},
		{Mode: NetworkOff, Private: []string{"127.0.0.1"}},
	} {
		if err := checkNetwork(Config{Network: n}); !errors.Is(err, ErrBadPolicy) {
			t.Errorf("%+v: %v, want ErrBadPolicy", n, err)
		}
	}
	if err := checkNetwork(Config{Network: Network{Mode: NetworkProxy, Allow: []string{"*.example.org:443", "[::1]:80", "10.0.0.1"}}}); err != nil {
		t.Error(err)
	}
	// A URL (npm config get registry's) says the entry to write.
	for in, want := range map[string]string{
		"https://registry.npmjs.org/": "(want registry.npmjs.org:443)",
		"http://[::1]:8080/x":         "(want [::1]:8080)",
		"git://example.org/r":         "(want example.org:PORT)",
	} {
		err := checkNetwork(Config{Network: Network{Mode: NetworkProxy, Allow: []string{in}}})
		if !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), "a URL, where the proxy takes a host and port "+want) {
			t.Errorf("%s: %v, want ErrBadPolicy saying %s", in, err, want)
		}
	}
}

// loopProxy serves a real proxy on 127.0.0.1 for the test.
func loopProxy(t testing.TB, n Network) string {
	t.Helper()
	p, err := newProxy(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ln)
	t.Cleanup(func() { ln.Close(); p.Wait() })
	return ln.Addr().String()
}

// TestProxyProtocols speaks HTTP forwarding, CONNECT and SOCKS5 to a real
// proxy, with a server on 127.0.0.1 that the test lists, and checks that
// the same server is refused unlisted.
func TestProxyProtocols(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s host=%s", r.URL.Path, r.Host)
	}))
	defer srv.Close()
	tls := httptest.NewTLSServer(srv.Config.Handler)
	defer tls.Close()
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	tlsHostPort := strings.TrimPrefix(tls.URL, "https://")

	listed := loopProxy(t, Network{Mode: NetworkProxy, Private: []string{hostPort, tlsHostPort}})
	unlisted := loopProxy(t, Network{Mode: NetworkProxy})

	client := func(proxy string) *http.Client {
		tr := tls.Client().Transport.(*http.Transport).Clone()
		tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: proxy})
		return &http.Client{Transport: tr, Timeout: 10 * time.Second}
	}
	get := func(c *http.Client, u string) (int, string) {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(client(listed), srv.URL+"/plain"); code != 200 || body != "hello /plain host="+hostPort {
		t.Errorf("forwarding: %d %q", code, body)
	}
	if code, body := get(client(listed), tls.URL+"/tunnel"); code != 200 || body != "hello /tunnel host="+tlsHostPort {
		t.Errorf("CONNECT: %d %q", code, body)
	}
	if code, body := get(client(unlisted), srv.URL+"/plain"); code != 403 || !strings.Contains(body, "refused "+hostPort+": it is a loopback address; allow it with --allow-private "+hostPort) {
		t.Errorf("unlisted forwarding: %d %q, want 403 naming the destination and the flag", code, body)
	}
	if code, body := get(client(unlisted), tls.URL+"/tunnel"); code != 0 || !strings.Contains(body, "Forbidden") {
		t.Errorf("unlisted CONNECT: %d %q, want the tunnel refused", code, body)
	}

	// A request that is not an absolute URL is refused: the Host header
	// alone never chooses a destination.
	c, err := net.Dial("tcp", listed)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /plain HTTP/1.1\r\nHost: %s\r\n\r\n", hostPort)
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if !strings.HasPrefix(line, "HTTP/1.1 400") {
		t.Errorf("origin-form request: %q, want 400", line)
	}
	// A Host header that names another destination than the one checked
	// is refused, for CONNECT and forwarding alike: a server behind an
	// allowed address must not be asked for another site.
	for _, req := range []string{
		"GET http://" + hostPort + "/x HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n",
		"CONNECT " + hostPort + " HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
	} {
		c, err := net.Dial("tcp", listed)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, req)
		b, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(b), "HTTP/1.1 400") || !strings.Contains(string(b), "does not name the destination "+hostPort) {
			t.Errorf("%q: %q, want 400", req, b)
		}
	}

	for _, s := range []struct {
		proxy string
		reply byte
	}{{listed, socksOK}, {unlisted, socksNotAllowed}} {
		got, body := socksGet(t, s.proxy, hostPort)
		if got != s.reply || (got == socksOK) != strings.Contains(body, "hello /socks") {
			t.Errorf("SOCKS5 via %s: reply %d %q, want %d", s.proxy, got, body, s.reply)
		}
	}
}

// The SOCKS5 replies the tests read (RFC 1928 section 6).
const (
	socksOK         = 0
	socksNotAllowed = 2
)

// socksGet makes a SOCKS5 CONNECT to dest by name and a GET through it.
func socksGet(t *testing.T, proxy, dest string) (byte, string) {
	t.Helper()
	host, ps, _ := net.SplitHostPort(dest)
	port, _ := strconv.Atoi(ps)
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}
	req = append(append(req, host...), byte(port>>8), byte(port))
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 12)
	if _, err := io.ReadFull(c, reply); err != nil {
		t.Fatal(err)
	}
	if reply[0] != 5 || reply[1] != 0 || reply[2] != 5 {
		t.Fatalf("SOCKS5 reply %v", reply)
	}
	if reply[3] != socksOK {
		return reply[3], ""
	}
	fmt.Fprintf(c, "GET /socks HTTP/1.0\r\nHost: %s\r\n\r\n", dest)
	b, _ := io.ReadAll(c)
	return reply[3], string(b)
}
