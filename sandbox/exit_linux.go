package sandbox

import (
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// closerEnv marks the child Exit hands slow closes to: it holds the
// descriptors it inherited until its stdin ends, then exits, closing them.
const closerEnv = "SANDTABLE_CLOSER"

// closerArg0 is the closer's whole argv. The variable alone does not make
// one: every program that imports this package would otherwise skip its
// main and exit 0 when its environment has it (TestCloserNeedsItsArgv).
const closerArg0 = "sandtable-closer"

// runCloser is the closer's whole life (takeover_linux.go starts it).
func runCloser([]string) int {
	var b [64]byte
	for {
		n, err := unix.Read(0, b[:])
		if n > 0 || err == unix.EINTR {
			continue
		}
		return 0
	}
}

var slowCloses struct {
	sync.Mutex
	keep bool
	fds  []int
}

func keepClosesForExit() {
	slowCloses.Lock()
	slowCloses.keep = true
	slowCloses.Unlock()
}

// closeSlow closes a descriptor whose close waits for the kernel (an
// inotify instance): in the background, or, after KeepClosesForExit, not
// at all until Exit hands it off.
func closeSlow(fd int) {
	slowCloses.Lock()
	defer slowCloses.Unlock()
	if slowCloses.keep {
		slowCloses.fds = append(slowCloses.fds, fd)
		return
	}
	go unix.Close(fd)
}

func handOffCloses() {
	if p, release := startCloser(); p != nil {
		release()
	}
}

// earlyCloser is a closer started while a run goes on, holding a copy of
// one descriptor that this process still uses; nil without
// KeepClosesForExit.
type earlyCloser struct {
	done    chan struct{}
	p       *os.Process
	release func()
}

// shareSlowClose starts, after KeepClosesForExit, a closer that holds a
// copy of fd from now on, in the background: its start then overlaps the
// run instead of delaying the exit. closeShared ends the sharing.
func shareSlowClose(fd int) *earlyCloser {
	slowCloses.Lock()
	keep := slowCloses.keep
	slowCloses.Unlock()
	if !keep {
		return nil
	}
	// A copy to hand over: an *os.File of fd itself would close it when
	// collected, under the watch that reads it.
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	e := &earlyCloser{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		f := os.NewFile(uintptr(dup), "inotify")
		e.p, e.release = spawnCloser([]*os.File{f})
		f.Close() // the closer's copy, if it started, keeps it open
	}()
	return e
}

// closeShared closes fd, which e's closer holds too (so this close is not
// the last, and does not wait), and lets the closer exit: its exit is the
// last close, which nobody waits for. Without a closer it is closeSlow.
func closeShared(fd int, e *earlyCloser) {
	if e != nil {
		<-e.done
		if e.p != nil {
			unix.Close(fd)
			e.release()
			return
		}
	}
	closeSlow(fd)
}

// startCloser starts the child that takes over the kept descriptors and
// closes this process's copies; release ends the child's stdin, after
// which it exits. Nil when nothing is kept or the child did not start.
func startCloser() (*os.Process, func()) {
	slowCloses.Lock()
	fds := slowCloses.fds
	slowCloses.fds = nil
	slowCloses.Unlock()
	if len(fds) == 0 {
		return nil, nil
	}
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "inotify")
	}
	p, release := spawnCloser(files)
	if p == nil {
		return nil, nil // the exit closes them
	}
	// The child holds every one now, so these closes are not the last.
	for _, f := range files {
		f.Close()
	}
	return p, release
}

// spawnCloser starts the closer with files as its descriptors from 3 on,
// which it holds until release ends its stdin; this process's copies stay
// open. Nil when the child did not start.
func spawnCloser(files []*os.File) (*os.Process, func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{closerArg0}
	cmd.Env = []string{closerEnv + "=1"}
	cmd.Stdin = r
	cmd.ExtraFiles = files
	// Its own process group: a ^C at the terminal is not for it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, nil
	}
	return cmd.Process, func() { w.Close() }
}
