package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// In network mode host the command shares the host's network namespace,
// and with it the host's abstract unix sockets (an X server, D-Bus). Where
// the kernel has Landlock's abstract-unix-socket scope (ABI 6, Linux 6.12),
// bwrap is started from a thread that has entered a Landlock domain with
// that scope and nothing else: the command, bwrap's descendant, cannot
// connect to an abstract socket made outside the domain. The thread is
// locked and never returned to the Go runtime, which ends it; it lives
// until the command has ended, since bwrap's --die-with-parent (and
// exec.Cmd's Pdeathsig) kill bwrap when the thread that forked it ends.

// landlockAttr is struct landlock_ruleset_attr up to its scoped field (ABI 6).
type landlockAttr struct {
	handledFS, handledNet, scoped uint64
}

var landlockABI = sync.OnceValue(func() int {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(abi)
})

// scopeAbstract reports whether a spawn in mode host gets the scope here:
// the kernel has it, and bwrap is not setuid (no_new_privs, which Landlock
// needs, would stop a setuid bwrap from gaining its privileges).
func scopeAbstract(bwrap string) bool {
	if landlockABI() < 6 {
		return false
	}
	fi, err := os.Stat(bwrap)
	return err == nil && fi.Mode()&os.ModeSetuid == 0
}

// startScoped starts run, with start, from a thread inside the scoped
// Landlock domain. Once it returned nil, release must be called after the
// command ended.
func startScoped(run *exec.Cmd, start func() error) (release func(), err error) {
	errc := make(chan error, 1)
	done := make(chan struct{})
	onDyingThread(func() { // the thread keeps the domain and dies with its goroutine
		if err := restrictThread(); err != nil {
			errc <- fmt.Errorf("sandbox: start %s: landlock scope: %w", run.Path, err)
			return
		}
		err := start()
		errc <- err
		if err == nil {
			<-done
		}
	})
	if err := <-errc; err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { close(done) }), nil
}

// restrictThread puts the calling thread in a Landlock domain that only
// scopes abstract unix sockets.
func restrictThread() error {
	attr := landlockAttr{scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errno
	}
	defer unix.Close(int(fd))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
