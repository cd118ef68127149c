//go:build !linux

package main

import (
	"syscall"
)

func setParentDeathSignal(*syscall.SysProcAttr) {}

// checkPidfdEarly has nothing to do: os uses pidfds on Linux alone.
func checkPidfdEarly() {}

// sandboxedProcess is pid itself: sandbox-exec execs the command in place.
func sandboxedProcess(pid int) int { return pid }
