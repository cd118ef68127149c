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
	errc := make(chan error, 1)
	done := make(chan struct{})
	work := func() {
		err := func() error {
			var before, after unix.Stat_t
			if err := unix.Stat("/proc/thread-self/ns/net", &before); err != nil {
				return fmt.Errorf("sandbox: network thread: %w", err)
			}
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				return helperStartError(run.Path, err)
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
			if err := start(); err != nil {
				g.close()
				return err
			}
			return nil
		}()
		errc <- err
		if err == nil {
			<-done
		}
	}
	onDyingThread(work)
	if err := <-errc; err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { close(done) }), nil
}
