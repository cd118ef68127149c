package sandbox

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/sandtable/sandtable/internal/proxy"
)

// Network mode proxy on macOS. There is no network namespace to give the
// command: it shares the host's loopback. The proxy (the same one as on
// Linux) listens on 127.0.0.1 at a port of its own, speaking HTTP,
// CONNECT and SOCKS5 on that one listener; the profile's proxy-outbound
// row lets the command reach that port and no other address, and the
// proxy-env row's variables name it. The listener is the host's, so the
// proxy-auth row has it ask every client for the spawn's own token
// (internal/proxy, auth.go), which only those variables carry. Only
// NewCmd spawns so: the proxy runs in this process for as long as the
// command does, which Command and Prefix, returning before it runs,
// cannot promise.

// attachProxyPort gives p the port its profile names: for a spawn, a
// listener on 127.0.0.1 chosen now, and the credential of macOS's
// proxy-auth row made for it; when the profile is only rendered
// (PrefixFor, explain), the Linux HTTP port as a stand-in and no credential.
func attachProxyPort(p *plan, spawn bool) error {
	if !spawn {
		p.proxyPort = strconv.Itoa(proxy.Ports[0])
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("sandbox: network mode proxy: listen on loopback: %w", err)
	}
	if row, ok := proxyAuthFor("darwin"); ok {
		if p.proxyCred, err = newProxyCred(row); err != nil {
			ln.Close()
			return err
		}
	}
	p.proxyLn = ln
	p.proxyPort = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	return nil
}

// refuseMacProxy closes a spawn's proxy listener and says why op cannot
// carry mode proxy on macOS; nil for any other plan.
func refuseMacProxy(p *plan, op string) error {
	if p == nil || p.proxyLn == nil {
		return nil
	}
	p.proxyLn.Close()
	p.proxyLn, p.proxyCred = nil, nil
	return fmt.Errorf("sandbox: %s: network mode proxy on macOS: the proxy runs in this process while the command does, so only NewCmd can serve it (want NewCmd, or mode off or host): %w", op, ErrBadPolicy)
}

// serveMacProxy serves the proxy on p's listener until the returned stop
// is called, which closes it (connections open then run to their end).
func serveMacProxy(p *plan) (stop func(), err error) {
	if p == nil || p.proxyLn == nil {
		return func() {}, nil
	}
	pr, err := newProxy(p.net, p.proxyCred)
	if err != nil {
		p.proxyLn.Close()
		return nil, err
	}
	ln := p.proxyLn
	go pr.Serve(ln)
	var once sync.Once
	return func() { once.Do(func() { ln.Close() }) }, nil
}

// proxyEnvRow is the proxy-env row's NAME=VALUE pairs, read from the
// row itself (linux.yaml), so both platforms set the same variables.
var proxyEnvRow = sync.OnceValue(func() [][2]string {
	var out [][2]string
	for _, s := range linuxSteps(&plan{network: true, netProxy: true}) {
		if s.Rule != "proxy-env" {
			continue
		}
		for i := 0; i+2 < len(s.Args); i += 3 {
			if s.Args[i] == "--setenv" {
				out = append(out, [2]string{s.Args[i+1], s.Args[i+2]})
			}
		}
	}
	return out
})

// proxyEnv is the proxy-env row for a macOS plan in mode proxy, the
// Linux listeners' ports (127.0.0.1:PORT, the JVM's proxyPort=PORT)
// replaced by the one p's proxy has, and each proxy URL given p's
// credential (http://USER:TOKEN@127.0.0.1:PORT, socks5h://...). The
// JVM's options get none: every JVM prints them on stderr as it starts.
func proxyEnv(p *plan) []string {
	if !p.netProxy || p.proxyPort == "" {
		return nil
	}
	row := proxyEnvRow()
	out := make([]string, 0, len(row))
	for _, kv := range row {
		v := kv[1]
		for _, port := range proxy.Ports {
			v = strings.ReplaceAll(v, "127.0.0.1:"+strconv.Itoa(port), "127.0.0.1:"+p.proxyPort)
			v = strings.ReplaceAll(v, "proxyPort="+strconv.Itoa(port), "proxyPort="+p.proxyPort) // the JVM's
		}
		if p.proxyCred != nil {
			v = strings.ReplaceAll(v, "://127.0.0.1:"+p.proxyPort, "://"+p.proxyCred.Userinfo()+"127.0.0.1:"+p.proxyPort)
		}
		out = append(out, kv[0]+"="+v)
	}
	return out
}
