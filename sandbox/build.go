package sandbox

import (
	"net"

	"github.com/sandtable/sandtable/internal/proxy"
)

// The build stage: the generated builders (zz_generated.go) turn a plan
// into an argv or a profile. What they need of the host and of one spawn
// is passed in as hostFacts, never written into the plan, which newPlan
// made once and nothing changes afterwards.

// hostFacts are the build's inputs that are not the Config's: whether the
// installed bwrap takes --disable-userns (learnt by the lookup, a probe or
// a rejected spawn), the descriptors of the status and block pipes of
// the one argv NewCmd's Start builds ("" for every other argv), and a
// macOS spawn's own temporary directory and proxy listener (its port, and
// the proxy-auth credential), made for that spawn by attachTmpdir and
// attachProxyPort. Each is a field of plan too, set only in the copy
// with makes; a new one is added to with and spawnFacts both.
type hostFacts struct {
	disableUserns bool
	statusFD      string
	blockFD       string
	tmpdir        string
	proxyPort     string
	proxyLn       net.Listener
	proxyCred     *proxy.Cred
}

// with is what the builders read: a copy of p with h, so a spawn's own
// descriptors, directory and listener or a retry's options never reach
// the plan another build reads.
func (p *plan) with(h hostFacts) *plan {
	q := *p
	q.disableUserns, q.statusFD, q.blockFD = h.disableUserns, h.statusFD, h.blockFD
	q.tmpdir, q.proxyPort, q.proxyLn, q.proxyCred = h.tmpdir, h.proxyPort, h.proxyLn, h.proxyCred
	return &q
}

// spawnFacts reads back the host facts of q, a copy with made that
// attachTmpdir and attachProxyPort have given a spawn's own.
func (q *plan) spawnFacts() hostFacts {
	return hostFacts{disableUserns: q.disableUserns, statusFD: q.statusFD, blockFD: q.blockFD,
		tmpdir: q.tmpdir, proxyPort: q.proxyPort, proxyLn: q.proxyLn, proxyCred: q.proxyCred}
}

// built is p.with(h), or nil for no plan (a command nothing wraps).
func built(p *plan, h hostFacts) *plan {
	if p == nil {
		return nil
	}
	return p.with(h)
}
