//go:build !linux

package main

import (
	"os"
	"os/exec"
)

const helperArg0 = "floor-helper"

// asHelper and runHelper are Linux's (helper_linux.go).
func asHelper(*exec.Cmd, string) {
	os.Stderr.WriteString("floor: FLOOR_HELPER needs Linux\n")
	os.Exit(1)
}

func runHelper() int { return 1 }
