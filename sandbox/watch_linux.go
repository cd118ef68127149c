package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostWatch watches, with one inotify instance, the directories of a
// run's watch targets, and kills the run at the first event on a watched
// name. Events queue in the kernel from startWatch on, so nothing between
// it and run is lost, and stop drains what is queued when the run ends.
type hostWatch struct {
	fd      int
	wake    [2]int // stop writes to wake[1]
	byWD    map[int32]map[string]watchTarget
	dirOf   map[int32]string
	done    chan struct{}
	started bool
	mu      sync.Mutex
	reason  string
	closer  *earlyCloser // holds a copy of fd from run on (KeepClosesForExit)
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// startWatch starts watching p's targets; nil when there are none. A
// directory that vanished or that this process may not read is skipped:
// the sandbox, with the same uid and fewer rights, cannot list it either;
// a missing path's vanished directory is watched for in its own.
func startWatch(p *plan) (*hostWatch, error) {
	w, check, err := addWatches(p)
	if err != nil || w == nil {
		return nil, err
	}
	if err := check(); err != nil {
		return nil, err
	}
	return w, nil
}

// addWatches is startWatch up to the check of the missing names, which it
// returns (it closes the watch when it fails): from its return on, every
// change to a watched name is an event.
func addWatches(p *plan) (*hostWatch, func() error, error) {
	targets := p.watch
	if !p.watchPlanned {
		var r resolver
		targets = watchTargets(p, r.isDir)
	}
	if len(targets) == 0 {
		return nil, nil, nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: watch hidden and protected paths: %w", err)
	}
	w := &hostWatch{fd: fd, byWD: map[int32]map[string]watchTarget{}, dirOf: map[int32]string{}, done: make(chan struct{})}
	if err := unix.Pipe2(w.wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("sandbox: watch hidden and protected paths: %w", err)
	}
	// Many targets share a directory (the home, ~/.config): one watch
	// each, and for the missing names one listing each.
	wds := make(map[string]int32, 16)
	missing := make(map[string][]watchTarget, 16)
	targets = slices.Clip(targets) // p.watch is the plan's: climbs append
	climbed := map[string]bool{}
	for i := 0; i < len(targets); i++ {
		t := targets[i]
		if t.missing {
			missing[t.dir] = append(missing[t.dir], t)
		}
		wd, ok := wds[t.dir]
		if !ok {
			n, err := unix.InotifyAddWatch(fd, t.dir, watchMask)
			if err != nil {
				// The plan found the directory of a missing path; one
				// gone since is watched for from its own directory, as
				// the plan would have if it had been gone then.
				if t.missing && t.dir != "/" && !climbed[t.dir] && !errors.Is(err, unix.EACCES) &&
					(errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)) {
					climbed[t.dir] = true
					targets = append(targets, watchTarget{rule: t.rule, dir: path.Dir(t.dir), name: path.Base(t.dir), missing: true})
				}
				if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTDIR) {
					continue
				}
				w.close()
				return nil, nil, fmt.Errorf("sandbox: watch %s: %w", t.dir, err)
			}
			wd = int32(n)
			wds[t.dir] = wd
		}
		if w.byWD[wd] == nil {
			w.byWD[wd] = map[string]watchTarget{}
			w.dirOf[wd] = t.dir
		}
		w.byWD[wd][t.name] = t
	}
	// A path missing when the plan was made, and so not hidden, that
	// appeared before the watch was in place would go unseen.
	check := func() error {
		for dir, ts := range missing {
			if t, ok := appeared(dir, ts); ok {
				w.close()
				return fmt.Errorf("sandbox: %s/%s appeared on the host after the sandbox was planned (rule %s): %w", t.dir, t.name, t.rule, ErrHostChanged)
			}
		}
		return nil
	}
	return w, check, nil
}

// appeared returns the first of ts, names in dir that were missing, that
// exists now: from one listing of dir, or an lstat of each where dir
// cannot be listed in full.
func appeared(dir string, ts []watchTarget) (watchTarget, bool) {
	if len(ts) >= listAfter {
		if names, ok := listNames(dir); ok {
			for _, t := range ts {
				if names.has(t.name) {
					return t, true
				}
			}
			return watchTarget{}, false
		}
	}
	for _, t := range ts {
		if _, err := os.Lstat(dir + "/" + t.name); err == nil {
			return t, true
		}
	}
	return watchTarget{}, false
}

func (w *hostWatch) close() {
	unix.Close(w.fd)
	unix.Close(w.wake[0])
	unix.Close(w.wake[1])
}

// run reads events until stop, and calls kill once, at the first event
// that concerns a watched name.
func (w *hostWatch) run(kill func()) {
	if w == nil {
		return
	}
	w.started = true
	w.closer = shareSlowClose(w.fd)
	go func() {
		defer close(w.done)
		buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
		fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake[0]), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			stopping := fds[1].Revents != 0
			if why := w.drain(buf); why != "" && w.set(why) && !stopping {
				kill()
			}
			if stopping {
				return
			}
		}
	}()
}

// drain reads every queued event and returns why they stop the run, or "".
func (w *hostWatch) drain(buf []byte) string {
	why := ""
	for {
		n, err := unix.Read(w.fd, buf)
		if n <= 0 || err != nil {
			return why
		}
		if m := w.match(buf[:n]); m != "" && why == "" {
			why = m
		}
	}
}

// match returns why the events in buf stop the run, or "".
func (w *hostWatch) match(buf []byte) string {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
		off += unix.SizeofInotifyEvent + int(ev.Len)
		switch {
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			return "the host's events overflowed the watch, so any watched path may have changed"
		case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
			return fmt.Sprintf("%s, which holds a watched path, was moved or removed", w.dirOf[ev.Wd])
		}
		t, ok := w.byWD[ev.Wd][name]
		if !ok || (t.placeholder && ev.Mask&unix.IN_CREATE != 0) ||
			(!t.removal && ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) == 0) {
			continue
		}
		return fmt.Sprintf("%s/%s was %s (rule %s)", t.dir, t.name, eventWord(ev.Mask), t.rule)
	}
	return ""
}

func eventWord(mask uint32) string {
	switch {
	case mask&unix.IN_CREATE != 0:
		return "created"
	case mask&unix.IN_DELETE != 0:
		return "removed"
	case mask&unix.IN_MOVED_TO != 0:
		return "replaced by a rename"
	}
	return "renamed away"
}

func (w *hostWatch) set(why string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reason != "" {
		return false
	}
	w.reason = why
	return true
}

// stop ends the watch, once the run is over, and returns why it stopped
// the run, or "": an event still queued counts too.
func (w *hostWatch) stop() string {
	if w == nil {
		return ""
	}
	if w.started {
		unix.Write(w.wake[1], []byte{0})
		<-w.done
	} else if why := w.drain(make([]byte, 4096)); why != "" {
		w.set(why)
	}
	// Closing an inotify instance waits for the kernel's grace period
	// (0 to about 20 ms here), which the caller need not wait for.
	unix.Close(w.wake[0])
	unix.Close(w.wake[1])
	closeShared(w.fd, w.closer)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}
