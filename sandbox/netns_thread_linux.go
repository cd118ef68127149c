package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A root caller needs no network helper: a thread of its own process can
// make the network namespace (root may unshare it; only a new user
// namespace is refused to a process with threads). That thread unshares
// it, brings its loopback up, binds the proxy's listeners there, and
// starts bwrap, whose --share-net keeps the namespace; it stays, locked,
// until the command has ended, and then dies with its goroutine, never
// serving another goroutine in a namespace not the process's. This spares
// the helper's start (a re-execution of this program, its runtime, the
// hand-over of the listeners), which docs/performance.md
// measures. A caller that runs bwrap under another uid (a Credential) or
// is not root takes the helper.

// netThreadable reports whether run may take the thread instead of the
// helper.
func netThreadable(run *exec.Cmd) bool {
	return os.Geteuid() == 0 && (run.SysProcAttr == nil || run.SysProcAttr.Credential == nil)
}

// startNetThread starts run (bwrap) with start from a thread in a new
// network namespace whose listeners g serves. Once it returned nil,
// release must be called after the command ended.
func startNetThread(run *exec.Cmd, g *netGate, start func() error) (release func(), err error) {
	return prepareNetThread(run.Path, g).run(start)
}

// netThread is that thread, made ahead of the start it waits for.
type netThread struct {
	gatec  chan netBind      // the listeners to serve, once; closed to cancel
	ready  chan error        // the namespace and listeners, or why not
	startc chan func() error // the start, once; closed to cancel
	errc   chan error        // the start's result
	done   chan struct{}     // closed by release

	mu        sync.Mutex
	bound     bool // bind gave it its listeners
	expired   bool // it ended unused: cancelled, or not bound or started in time
	starting  bool // run is handing it the start
	cancelled bool // cancel closed startc
}

// errNetThreadEnded is run's answer from a thread that ended unused.
var errNetThreadEnded = errors.New("sandbox: network thread: ended unused")

// netBind is what bind hands the thread: the listeners to serve, and
// bwrap's name for errors.
type netBind struct {
	g    *netGate
	prog string
}

// newNetThread starts making the thread and its namespace (with its
// loopback up) in the background; bind gives it the listeners to serve.
// A thread not bound within wait ends, and bind then reports false; one
// bound but not started within wait again closes them and ends, and run
// then reports errNetThreadEnded.
func newNetThread(wait time.Duration) *netThread {
	t := &netThread{gatec: make(chan netBind, 1), ready: make(chan error, 1), startc: make(chan func() error, 1), errc: make(chan error, 1), done: make(chan struct{})}
	onDyingThread(func() {
		nsErr := enterNetNamespace()
		b, ok := await(t, t.gatec, wait, func() bool { return t.bound })
		if !ok {
			return // cancelled, or not bound in time
		}
		err := nsErr
		if err != nil {
			err = netThreadError(b.prog, err)
		} else {
			err = serveNetThread(b.g)
		}
		t.ready <- err
		if err != nil {
			return
		}
		g := b.g
		start, started := await(t, t.startc, wait, func() bool { return t.starting })
		if !started {
			g.close()
			return
		}
		if err := start(); err != nil {
			g.close()
			t.errc <- err
			return
		}
		t.errc <- nil
		<-t.done
	})
	return t
}

// await receives from c. After wait it ends t (expired) instead, unless
// claimed, read under t.mu, says a sender has committed to c; false for
// that end, or for c closed.
func await[T any](t *netThread, c <-chan T, wait time.Duration, claimed func() bool) (T, bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case v, ok := <-c:
		return v, ok
	case <-timer.C:
	}
	t.mu.Lock()
	if !claimed() {
		t.expired = true
		t.mu.Unlock()
		var none T
		return none, false
	}
	t.mu.Unlock()
	v, ok := <-c
	return v, ok
}

// prepareNetThread starts making the thread, the namespace and g's
// listeners, in the background; run then starts bwrap from it, or cancel
// ends it unused. prog names bwrap in errors.
func prepareNetThread(prog string, g *netGate) *netThread {
	t := newNetThread(time.Duration(1<<63 - 1))
	t.bind(g, prog)
	return t
}

// bind gives the thread g's listeners to serve; false when it has ended
// unbound.
func (t *netThread) bind(g *netGate, prog string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.expired || t.bound {
		return false
	}
	t.bound = true
	t.gatec <- netBind{g: g, prog: prog}
	return true
}

// run starts bwrap with start on the thread; see startNetThread.
func (t *netThread) run(start func() error) (release func(), err error) {
	if err := <-t.ready; err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.expired || t.cancelled {
		t.mu.Unlock()
		return nil, errNetThreadEnded
	}
	t.starting = true
	t.mu.Unlock()
	t.startc <- start
	if err := <-t.errc; err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { close(t.done) }), nil
}

// cancel ends a thread that will not run: it closes its listeners once
// they are bound. A nil t is none.
func (t *netThread) cancel() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.bound {
		if !t.expired {
			t.expired = true
			close(t.gatec)
		}
		return
	}
	if !t.cancelled {
		t.cancelled = true
		close(t.startc)
	}
}

// errUnshare marks enterNetNamespace's failure to unshare, which
// netThreadError explains as the helper's.
type errUnshare struct{ err error }

func (e errUnshare) Error() string { return e.err.Error() }

// netThreadError is err, enterNetNamespace's, as the spawn reports it.
func netThreadError(prog string, err error) error {
	if u, ok := err.(errUnshare); ok {
		return helperStartError(prog, u.err)
	}
	return err
}

// enterNetNamespace moves the calling thread into a new network namespace
// and brings its loopback up.
func enterNetNamespace() error {
	var before, after unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &before); err != nil {
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return errUnshare{err}
	}
	if err := unix.Stat("/proc/thread-self/ns/net", &after); err != nil {
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	if before.Ino == after.Ino && before.Dev == after.Dev {
		return fmt.Errorf("sandbox: network thread: still in the process's network namespace: %w", ErrUnavailable)
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	return nil
}

// serveNetThread binds g's listeners in the calling thread's namespace and
// serves them.
func serveNetThread(g *netGate) error {
	fds, err := bindListeners(g.ports)
	if err != nil {
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	if err := g.adopt(fds); err != nil {
		g.close()
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	return nil
}
