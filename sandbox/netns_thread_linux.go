package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"

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
// hand-over of the listeners), which the README's Performance section
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
	ready  chan error        // the namespace and listeners, or why not
	startc chan func() error // the start, once; closed to cancel
	errc   chan error        // the start's result
	done   chan struct{}     // closed by release
}

// prepareNetThread starts making the thread, the namespace and g's
// listeners, in the background; run then starts bwrap from it, or cancel
// ends it unused. prog names bwrap in errors.
func prepareNetThread(prog string, g *netGate) *netThread {
	t := &netThread{ready: make(chan error, 1), startc: make(chan func() error, 1), errc: make(chan error, 1), done: make(chan struct{})}
	onDyingThread(func() {
		err := setupNetThread(prog, g)
		t.ready <- err
		if err != nil {
			return
		}
		start, ok := <-t.startc
		if !ok {
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

// run starts bwrap with start on the thread; see startNetThread.
func (t *netThread) run(start func() error) (release func(), err error) {
	if err := <-t.ready; err != nil {
		return nil, err
	}
	t.startc <- start
	if err := <-t.errc; err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { close(t.done) }), nil
}

// cancel ends a thread that will not run: it closes its listeners once
// they are bound.
func (t *netThread) cancel() { close(t.startc) }

// setupNetThread moves the calling thread into a new network namespace,
// brings its loopback up and serves g's listeners there.
func setupNetThread(prog string, g *netGate) error {
	var before, after unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &before); err != nil {
		return fmt.Errorf("sandbox: network thread: %w", err)
	}
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return helperStartError(prog, err)
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
