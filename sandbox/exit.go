package sandbox

import "os"

// KeepClosesForExit tells the package that this process exits soon after
// its last Wait, with [Exit]: a run's watch then shares its inotify instance,
// once the command has started, with a short-lived child process (this
// executable, re-executed, that does nothing else), so that closing it
// after Wait is not the last close; failing that, it keeps it open for
// Exit to hand off. Closing an inotify instance waits for a kernel grace
// period (0 to about 20 ms on some kernels, 0.1 ms on others), and a
// process cannot finish exiting while one of its threads is inside that
// close, so its parent would wait for it. It pays only where that wait is
// longer than starting this executable again (README.md, Performance); a
// long-running program has no reason to call it.
func KeepClosesForExit() { keepClosesForExit() }

// Exit ends the process with code, like [os.Exit]. What [KeepClosesForExit]
// kept open is first handed to a short-lived child process (this
// executable, re-executed, that does nothing else), which closes it once
// this process has closed its own copies, so the exit does not wait for
// the kernel; if the child cannot start, the exit closes it as before.
func Exit(code int) {
	handOffCloses()
	os.Exit(code)
}
