package sandbox

import (
	"bytes"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// onDyingThread runs work on an OS thread locked to it and never unlocked,
// so that whatever work changes about the thread (a namespace, a Landlock
// domain, no_new_privs) ends with its goroutine. It is never the main
// thread, which the runtime keeps alive and /proc/self reads, nor a thread
// with a live child: a parent-death signal (exec.Cmd's Pdeathsig, bwrap's
// --die-with-parent, the wrap helper's own) fires when the thread that
// forked the child ends, not the process, so another run started from that
// thread would be killed with it.
func onDyingThread(work func()) {
	go dyingThread(work, make(chan struct{}))
}

// spareChildren makes dyingThread pass over a thread with a live child; a
// test turns it off for its control.
var spareChildren = true

// dyingThread locks the calling goroutine's thread and runs work there if
// the thread may die; otherwise it holds the thread, so that the goroutine
// it starts to try again cannot run on it, until one has found a thread
// (closed found), and gives it back. A new thread is always one that may.
func dyingThread(work func(), found chan struct{}) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() || spareChildren && threadHasChildren() {
		go dyingThread(work, found)
		<-found
		runtime.UnlockOSThread()
		return
	}
	close(found)
	work() // never unlocked: the thread dies with this goroutine
}

// threadHasChildren reports whether the calling thread has a child that
// has not been reaped (/proc/thread-self/children lists the children this
// thread forked). Where the kernel has no such file it reports false.
func threadHasChildren() bool {
	b, err := os.ReadFile("/proc/thread-self/children")
	return err == nil && len(bytes.TrimSpace(b)) > 0
}
