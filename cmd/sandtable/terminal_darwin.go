package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// ttyExtra is what Linux restores besides termios; nothing here.
type ttyExtra struct{}

func getTTYExtra(int) ttyExtra    { return ttyExtra{} }
func (ttyExtra) changed(int) bool { return false }
func (ttyExtra) restore(int)      {}
