//go:build !linux && !darwin

package main

import (
	"os"
	"syscall"
)

// Where there is no sandbox, run spawns only under policy off, and the OS
// has no process groups to manage: these keep the command line building,
// for explain --os and rules.

func setProcessGroup(*syscall.SysProcAttr, bool) {}

func forward(pid int, sig syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Signal(sig)
	}
}
