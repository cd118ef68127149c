// Command floor is the benchmarks' floor: the smallest Go program that runs
// a sandbox's argv and waits, as scripts/bench-spawn.sh and
// scripts/bench-network.sh time it. FLOOR_FDS descriptors from 3 up are
// passed on, as the sandbox's own spawn passes the filter and /dev/null.
package main

import (
	"os"
	"os/exec"
	"strconv"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	n, _ := strconv.Atoi(os.Getenv("FLOOR_FDS"))
	for fd := 3; fd < 3+n; fd++ {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fd), "inherited"))
	}
	if cmd.Run() != nil {
		os.Exit(1)
	}
}
