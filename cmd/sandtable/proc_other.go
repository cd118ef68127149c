//go:build !linux

package main

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

// sandboxedProcess is pid itself: sandbox-exec execs the command in place.
func sandboxedProcess(pid int) int { return pid }
