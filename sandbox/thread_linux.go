package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// onDyingThread runs work on an OS thread locked to it and never unlocked,
// so that whatever work changes about the thread (a namespace, a Landlock
// domain, no_new_privs) ends with its goroutine. It is never the main
// thread, which the runtime keeps alive and /proc/self reads.
func onDyingThread(work func()) {
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if unix.Gettid() == unix.Getpid() {
			// The main thread: hold it until another goroutine, which
			// then cannot run on it, holds a thread of its own.
			held := make(chan struct{})
			go func() {
				runtime.LockOSThread() // likewise never unlocked
				close(held)
				work()
			}()
			<-held
			runtime.UnlockOSThread()
			return
		}
		work()
	}()
}
