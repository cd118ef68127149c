package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
)

// hostCheck is how much hostProgramWith must prove about the wrapper.
type hostCheck uint8

const (
	checkNone  hostCheck = iota // render only: PrefixFor, Explain
	checkFound                  // the program must exist: NewCmd, whose spawn is the check
	checkWorks                  // and must have run a command here: Prefix, Command
)

// probeTimeout bounds the one-off availability check; a sandbox that takes
// longer than this to start /bin/true is not one to rely on.
const probeTimeout = 10 * time.Second

// probePlan is the smallest real plan: the same argv shape as a spawn, with
// the spawn's own resolved workspace, which is known to exist and to pass the
// validator, so the probe costs no lstat of its own.
func probePlan(ws string) *plan {
	p := &plan{workspace: ws, network: true, netHost: true, callerRoot: os.Geteuid() == 0}
	p.varTmp = hostVarTmp(os.Lstat)
	p.numberFiles(nativeSeccomp() != nil)
	return p
}

// runProbe runs prog with args, and extra as descriptors 3, 4, ..., and
// returns bwrap's or sandbox-exec's own account of a failure: its stderr,
// or the exec error when there is none.
func runProbe(prog string, extra []*os.File, args ...string) (failure string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	// The probe's sandbox hides nothing, so what it runs must be the
	// system's: a PATH of system directories only, and no other variable
	// (none of the caller's secrets, no loader variable for bwrap).
	cmd.Dir, cmd.Env = "/", []string{"PATH=/usr/bin:/bin"}
	cmd.ExtraFiles = extra
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
