package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)

// ttyExtra is what a terminal keeps besides its termios that a command
// could leave broken: the line discipline (N_NULL discards everything)
// and exclusive mode (every later open by an unprivileged caller fails).
// The seccomp filter refuses both changes; this puts them back where it
// has no filter for the architecture.
type ttyExtra struct{ ldisc, excl int }

func getTTYExtra(fd int) ttyExtra {
	x := ttyExtra{ldisc: -1, excl: -1}
	var v int
	if err := retryEINTR(func() (err error) { v, err = unix.IoctlGetInt(fd, unix.TIOCGETD); return err }); err == nil {
		x.ldisc = v
	}
	if err := retryEINTR(func() (err error) { v, err = unix.IoctlGetInt(fd, unix.TIOCGEXCL); return err }); err == nil {
		x.excl = v
	}
	return x
}

func (x ttyExtra) changed(fd int) bool { return getTTYExtra(fd) != x }

func (x ttyExtra) restore(fd int) {
	now := getTTYExtra(fd)
	if x.ldisc >= 0 && now.ldisc != x.ldisc {
		_ = retryEINTR(func() error { return unix.IoctlSetPointerInt(fd, unix.TIOCSETD, x.ldisc) })
	}
	if x.excl == 0 && now.excl == 1 {
		_ = retryEINTR(func() error { return unix.IoctlSetInt(fd, unix.TIOCNXCL, 0) })
	}
}
