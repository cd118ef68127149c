//go:build linux || darwin

package main

import (
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// savedTerminal is one standard descriptor's terminal as it was before the
// run: its settings (termios), its window size, the status flags of the
// open file the caller shares with the command (O_NONBLOCK, O_APPEND,
// O_ASYNC) and, on Linux, its line discipline and exclusive mode.
type savedTerminal struct {
	fd      int
	termios unix.Termios
	extra   ttyExtra
	flags   int           // -1: unknown
	winsize *unix.Winsize // nil: unknown
}

// saveTerminals records the state of every standard descriptor that is a
// terminal, before the command can change it: a command that turns echo
// off or leaves raw mode on, and exits or is killed before it puts them
// back, would leave the caller's terminal unusable (as ssh and script do,
// the terminal is restored after the run whatever ended it).
func saveTerminals() []savedTerminal {
	var saved []savedTerminal
	for fd := range 3 {
		t, err := getTermios(fd)
		if err != nil {
			continue
		}
		s := savedTerminal{fd: fd, termios: *t, extra: getTTYExtra(fd), flags: -1}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
			s.flags = fl
		}
		if ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ); err == nil {
			s.winsize = ws
		}
		saved = append(saved, s)
	}
	return saved
}

// restoreTerminals puts back what the run changed of saved. It changes
// nothing that is as it was, so a run in the background that left the
// terminal alone is not stopped by SIGTTOU; one that did change it gets
// its settings back all the same, with SIGTTOU ignored meanwhile, as a
// shell does when it takes the terminal back.
func restoreTerminals(saved []savedTerminal) {
	ignoring := false
	ignore := func() {
		if !ignoring {
			signal.Ignore(syscall.SIGTTOU)
			ignoring = true
		}
	}
	defer func() {
		if ignoring {
			signal.Reset(syscall.SIGTTOU)
		}
	}()
	for _, s := range saved {
		// The open file is the caller's own: O_NONBLOCK left on it makes
		// the caller's next read fail with EAGAIN. No SIGTTOU for this.
		if s.flags >= 0 {
			if now, err := unix.FcntlInt(uintptr(s.fd), unix.F_GETFL, 0); err == nil && now != s.flags {
				_, _ = unix.FcntlInt(uintptr(s.fd), unix.F_SETFL, s.flags)
			}
		}
		if s.winsize != nil {
			if now, err := unix.IoctlGetWinsize(s.fd, unix.TIOCGWINSZ); err == nil && *now != *s.winsize {
				_ = unix.IoctlSetWinsize(s.fd, unix.TIOCSWINSZ, s.winsize)
			}
		}
		// The line discipline first: under another than the one saved
		// (N_NULL, say) the settings cannot even be read.
		if s.extra.changed(s.fd) {
			ignore()
			s.extra.restore(s.fd)
		}
		now, err := getTermios(s.fd)
		if err != nil || *now == s.termios {
			continue
		}
		ignore()
		_ = retryEINTR(func() error { return unix.IoctlSetTermios(s.fd, ioctlSetTermios, &s.termios) })
	}
}

// getTermios reads fd's settings, retried on EINTR.
func getTermios(fd int) (t *unix.Termios, err error) {
	err = retryEINTR(func() error { t, err = unix.IoctlGetTermios(fd, ioctlGetTermios); return err })
	return t, err
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := getTermios(fd)
	return err == nil
}
