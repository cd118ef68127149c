// Package testkit holds the fixtures that the tests of more than one
// package share. Only tests import it.
package testkit

import (
	"strconv"
	"strings"
)

// ForkScript is a python3 program that forks up to 200 sleeping children,
// prints "STARTED=N" (and "FORKFAIL errno=E" if a fork failed), and kills
// them: bounded whatever the limit it runs under.
const ForkScript = `
import os, time
kids = []
for i in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        print("FORKFAIL errno=%d" % e.errno)
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
print("STARTED=%d" % len(kids), flush=True)
for k in kids:
    os.kill(k, 9)
for k in kids:
    os.waitpid(k, 0)
`

// ForksStarted is the N of [ForkScript]'s "STARTED=N" in out, or -1.
func ForksStarted(out string) int {
	_, rest, ok := strings.Cut(out, "STARTED=")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	if err != nil {
		return -1
	}
	return n
}
