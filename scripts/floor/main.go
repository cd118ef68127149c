// Command floor is the benchmarks' floor: the smallest Go program that runs
// a sandbox's argv and waits, as scripts/bench-spawn.sh and
// scripts/bench-network.sh time it. FLOOR_FDS descriptors from 3 up are
// passed on, as the sandbox's own spawn passes the filter and /dev/null.
// With FLOOR_HELPER=1 it is the least a network helper can cost instead
// (helper_linux.go; FLOOR_HELPER=exec and user, its parts).
package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
)

func main() {
	if strings.HasPrefix(os.Args[0], helperArg0) {
		os.Exit(runHelper())
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	n, _ := strconv.Atoi(os.Getenv("FLOOR_FDS"))
	for fd := 3; fd < 3+n; fd++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), "inherited"))
	}
	if mode := os.Getenv("FLOOR_HELPER"); mode != "" {
		asHelper(cmd, mode)
	}
	if cmd.Run() != nil {
		os.Exit(1)
	}
}
