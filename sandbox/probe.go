package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// probeTimeout bounds the one-off availability check; a sandbox that takes
// longer than this to start /bin/true is not one to rely on.
const probeTimeout = 10 * time.Second

// probePlan is the smallest real plan: the same argv shape as a spawn, with
// the spawn's own resolved workspace, which is known to exist and to pass the
// validator, so the probe costs no lstat of its own.
func probePlan(ws string) *plan {
	return &plan{workspace: ws, network: true, callerRoot: os.Geteuid() == 0, nullFD: nullFD}
}

// runProbe runs prog with args and returns bwrap's or sandbox-exec's own
// account of a failure: its stderr, or the exec error when there is none.
func runProbe(prog string, args ...string) (failure string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = "/"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return "", true
	}
	msg := strings.TrimSpace(stderr.String())
	if len(msg) > 2048 {
		msg = msg[:2048] + "..."
	}
	if msg == "" {
		msg = err.Error()
	}
	return msg, false
}

// versionAtLeast reads `bwrap --version` output ("bubblewrap 0.8.0") and
// reports whether it is at least major.minor. Anything unparsable is false,
// which only drops --disable-userns; the probe still decides whether bwrap
// works at all.
func versionAtLeast(out string, major, minor int) bool {
	f := strings.Fields(out)
	if len(f) < 2 {
		return false
	}
	parts := strings.SplitN(f[1], ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || maj == major && mnr >= minor
}
