//go:build linux || darwin

package main

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignals are the job-control stops run handles itself.
var stopSignals = []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// stopSelf stops sandtable (SIGSTOP) and returns once it is continued.
func stopSelf() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	<-cont
	signal.Stop(cont)
}

// foreground reports whether sandtable's process group is the foreground
// one of the first terminal in saved (true when there is none): only then
// may it change the terminal's settings without taking it from the shell.
func foreground(saved []savedTerminal) bool {
	if len(saved) == 0 {
		return true
	}
	pg, err := unix.IoctlGetInt(saved[0].fd, unix.TIOCGPGRP)
	return err == nil && pg == syscall.Getpgrp()
}
