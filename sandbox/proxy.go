package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
)

// Network mode proxy's server is internal/proxy; what it allows is n's
// lists and the table's proxy rows (the proxy-refuse ranges, proxy-net,
// limit-proxy-connections, proxy-auth), handed over here.

// newProxy is n's proxy, with cred (nil: none); an entry of n's lists
// that does not parse is an error naming it, wrapping ErrBadPolicy.
func newProxy(n Network, cred *proxy.Cred) (*proxy.Proxy, error) {
	c := proxy.Config{
		Allow: n.Allow, Private: n.Private, Refused: n.Refused,
		MaxConns: proxyConnLimit(n.conns), ConnRule: limitTable[limitProxyConnections].rule,
		Ranges: proxyRanges(), NetRule: "proxy-net", Cred: cred,
	}
	if t := n.testProxy; t != nil && t.config != nil {
		t.config(&c)
	}
	p, err := proxy.New(c)
	var le *proxy.ListError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("sandbox: Network.%s: %s: %w", le.List, le.Err.Error(), ErrBadPolicy)
	}
	if t := n.testProxy; err == nil && t != nil && t.made != nil {
		t.made(p)
	}
	return p, err
}

// proxyRanges are the proxy-refuse rows' ranges (refusedPrefixes), each
// with its row's id, made once: every plan in mode proxy checks its lists
// with a proxy, and no proxy changes them.
var proxyRanges = sync.OnceValue(func() []proxy.Range {
	ranges := make([]proxy.Range, len(refusedPrefixes))
	for i, p := range refusedPrefixes {
		ranges[i] = proxy.Range{Prefix: p, Rule: refusedPrefixRules[i]}
	}
	return ranges
})

// proxyTest is a test's hold on the proxies of one Network: config
// adjusts each one's Config before it is made (a made-up name's lookup, a
// check turned off for a control), made hears each one made.
type proxyTest struct {
	config func(*proxy.Config)
	made   func(*proxy.Proxy)
}

// proxyConnLimit is the bound of Limits.ProxyConnections v: the table's
// default for 0, none (0) for -1.
func proxyConnLimit(v int) uint64 {
	switch {
	case v > 0:
		return uint64(v)
	case v < 0:
		return 0
	}
	return limitTable[limitProxyConnections].value
}

// proxyAuthRow is one proxy-auth row: goos's proxy asks for user, and
// holds at most pending connections that have not presented it yet, each
// for at most authTimeout.
type proxyAuthRow struct {
	rule, goos, user string
	pending          int
	authTimeout      time.Duration
}

// proxyAuthTable is the rows a spawn consults; a test's control leaves
// one out.
var proxyAuthTable = proxyAuthRows[:]

// proxyAuthFor is goos's proxy-auth row, if the table has one.
func proxyAuthFor(goos string) (proxyAuthRow, bool) {
	for _, r := range proxyAuthTable {
		if r.goos == goos {
			return r, true
		}
	}
	return proxyAuthRow{}, false
}

// newProxyCred makes row's credential with a fresh token.
func newProxyCred(row proxyAuthRow) (*proxy.Cred, error) {
	return proxy.NewCred(row.rule, row.user, row.pending, row.authTimeout)
}

// hostHasResolvConf reports whether /etc/resolv.conf is there for the
// dns-stub rule to bind over: bwrap cannot make it on the read-only root.
func hostHasResolvConf() bool {
	fi, err := os.Stat("/etc/resolv.conf")
	return err == nil && fi.Mode().IsRegular()
}
