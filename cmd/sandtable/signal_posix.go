//go:build linux || darwin

package main

import "syscall"

// setProcessGroup gives the spawned process a process group of its own.
func setProcessGroup(attr *syscall.SysProcAttr, own bool) { attr.Setpgid = own }

// forward sends sig to the sandboxed command's process group when it has
// one of its own (as a terminal would), else to the command alone.
func forward(pid int, sig syscall.Signal) {
	target := sandboxedProcess(pid)
	if pgid, err := syscall.Getpgid(target); err == nil && pgid != syscall.Getpgrp() {
		if syscall.Kill(-pgid, sig) == nil {
			return
		}
	}
	_ = syscall.Kill(target, sig)
}
