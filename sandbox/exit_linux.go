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

func init() {
	if v, ok := os.LookupEnv(closerEnv); ok && v == "1" && len(os.Args) == 1 && os.Args[0] == closerArg0 {
		var b [64]byte
		for {
			n, err := unix.Read(0, b[:])
			if n > 0 || err == unix.EINTR {
				continue
			}
			os.Exit(0)
		}
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
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil // the exit closes them
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
	// The child holds every one now, so these closes are not the last.
	for _, f := range files {
		f.Close()
	}
	return cmd.Process, func() { w.Close() }
}
