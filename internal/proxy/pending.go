package proxy

import (
	"net"
	"slices"
	"sync"
)

// Where a proxy-auth row asks for a credential, a connection takes a
// slot of limit-proxy-connections only once it has presented it. Until
// then it is pending: one of at most the row's pending, the oldest closed
// when another arrives, and closed after the row's auth-timeout. A client
// without the token (any local process, on macOS) thus holds no slot, and
// a flood of idle connections closes only its own older ones.

// pendingConns are the connections not yet authenticated, oldest first,
// and the authenticated ones that hold a slot.
type pendingConns struct {
	mu      sync.Mutex
	waiting []net.Conn
	slotted map[net.Conn]bool
}

// pend takes c in as pending, closing the oldest pending connection when
// the row's bound is reached.
func (p *Proxy) pend(c net.Conn) {
	q := &p.pending
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) >= p.cfg.Cred.pending {
		q.waiting[0].Close()
		q.waiting = slices.Delete(q.waiting, 0, 1)
	}
	q.waiting = append(q.waiting, c)
}

// authenticated moves c, which has just presented the credential, from
// pending to a slot of limit-proxy-connections: false when it was closed
// as the oldest meanwhile, or when admit refused it (and answered it).
// Where the proxy asks for no credential, c took its slot when accepted.
func (p *Proxy) authenticated(c net.Conn) bool {
	if p.cfg.Cred == nil {
		return true
	}
	q := &p.pending
	q.mu.Lock()
	i := slices.Index(q.waiting, c)
	if i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
	}
	q.mu.Unlock()
	if i < 0 || !p.admit(c) {
		return false
	}
	q.mu.Lock()
	if q.slotted == nil {
		q.slotted = map[net.Conn]bool{}
	}
	q.slotted[c] = true
	q.mu.Unlock()
	return true
}

// settle forgets c, which has ended: out of pending, or its slot given
// back.
func (p *Proxy) settle(c net.Conn) {
	q := &p.pending
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := slices.Index(q.waiting, c); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
	}
	if q.slotted[c] {
		delete(q.slotted, c)
		p.conns.release()
	}
}
