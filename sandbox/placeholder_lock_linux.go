package sandbox

import (
	"errors"
	"fmt"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// placeholderLockWait bounds how long a run waits for another's exclusive
// lock on a protected path's directory (held only while it removes its
// placeholders) before it refuses to start.
const placeholderLockWait = 2 * time.Second

// dirLocks are a run's shared flocks on the directories of its protected
// paths (rule protect-placeholder), held from before bwrap binds them to
// after the run: a run removes its placeholders only where it can turn its
// lock exclusive, so never one that a concurrent run, which took it for the
// user's file, has bound (the host's unlink would detach that mount).
type dirLocks map[string]int

// lockProtectedDirs takes a shared lock on the directory of each of p's
// protected paths.
func lockProtectedDirs(p *plan) (dirLocks, error) {
	l := dirLocks{}
	for _, f := range p.protected {
		dir := path.Dir(f.path)
		if _, ok := l[dir]; ok {
			continue
		}
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			l.release()
			return nil, fmt.Errorf("sandbox: lock %s, which holds a protected path: %w", dir, err)
		}
		l[dir] = fd
		for deadline := time.Now().Add(placeholderLockWait); ; time.Sleep(5 * time.Millisecond) {
			err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
			if err == nil || !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			l.release()
			return nil, fmt.Errorf("sandbox: lock %s, which holds a protected path (another process holds it): %w", dir, err)
		}
	}
	return l, nil
}

// exclusive reports whether this run alone holds dir's lock, which it then
// holds exclusive until release.
func (l dirLocks) exclusive(dir string) bool {
	fd, ok := l[dir]
	return ok && unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil
}

func (l dirLocks) release() {
	for dir, fd := range l {
		unix.Close(fd)
		delete(l, dir)
	}
}
