package proxy

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// connSlots counts the connections a proxy serves at once against its
// bound (Config.MaxConns, Config.ConnRule's; max, 0 for none).
type connSlots struct {
	max      uint64
	open     atomic.Uint64
	reported sync.Once
}

// release gives back the slot of a connection that ended.
func (s *connSlots) release() { s.open.Add(^uint64(0)) }

// admit takes a slot for c, or refuses c at once: a 503 that names the
// rule (a SOCKS client reads it as a failed greeting), then close.
// Config.Refused hears of the first refusal only, since a command that
// keeps trying would flood it.
func (p *Proxy) admit(c net.Conn) bool {
	s := &p.conns
	if n := s.open.Add(1); s.max == 0 || n <= s.max {
		return true
	}
	s.release()
	msg := "sandbox: network proxy refused a connection: " + strconv.FormatUint(s.max, 10) +
		" are open at once, the most one run may have (rule " + p.cfg.ConnRule + "); " +
		"close some, or raise Config.Limits.ProxyConnections (sandtable run --max-proxy-connections)"
	s.reported.Do(func() {
		if p.cfg.Refused != nil {
			p.cfg.Refused(msg)
		}
	})
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	httpError(c, 503, msg)
	c.Close()
	return false
}
