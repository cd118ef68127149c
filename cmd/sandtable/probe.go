package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/sandtable/sandtable/sandbox"
)

var probeHelp = helpText{
	synopsis: "probe",
	description: `Say whether the sandbox works on this machine: build it as 'sandtable run'
would (policy required, a temporary workspace, your default hidden set) and
run 'true' in it. When it does not work, print why and the exact fix.
Also report the policy that $` + sandbox.PolicyVariable + ` selects.

Exit status: 0 when the sandbox works and the policy variable is valid,
1 otherwise.`,
	example: `  sandtable probe && sandtable run -- make test`,
}

// probeTimeout bounds the trial spawn; a sandbox that takes this long to run
// true is broken for practical purposes.
const probeTimeout = 10 * time.Second

func cmdProbe(args []string) int {
	fs := newFlagSet("probe")
	if code, done := parseFlags(fs, probeHelp, args); done {
		return code
	}
	if err := noArgs(fs); err != nil {
		return report("probe", err)
	}
	ok := true
	if err := probe(); err != nil {
		ok = false
		fmt.Println("sandbox: does not work here")
		// The sandbox package joins the reason and each remedy with "; ".
		for _, part := range strings.Split(err.Error(), "; ") {
			fmt.Printf("  %s\n", part)
		}
	} else {
		fmt.Println("sandbox: works")
	}
	if runtime.GOOS == "linux" && !probeReduced() {
		ok = false
	}
	fmt.Println("limits:")
	for _, l := range sandbox.LimitReport() {
		fmt.Printf("  %s\n", l)
	}
	switch policy, err := sandbox.PolicyFromEnv(); {
	case err != nil:
		ok = false
		fmt.Printf("policy: %v\n  fix: unset %s, or set it to required or off\n", err, sandbox.PolicyVariable)
	case policy == sandbox.Off:
		fmt.Printf("policy: off (%s): commands run WITHOUT a sandbox\n", sandbox.PolicyVariable)
	default:
		fmt.Printf("policy: %s: commands run only inside the sandbox\n", policy)
	}
	if !ok {
		return 1
	}
	return 0
}

// probe builds the sandbox the way run does and spawns true in it: Prefix
// already checks bwrap on a minimal argv, and this adds the caller's own
// hidden set, which is what a real run would mount.
func probe() error {
	ws, err := os.MkdirTemp("", "sandtable-probe-")
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	// All: nothing but a placeholder (protect-placeholder) can be there,
	// and the spawn removes its own.
	defer os.RemoveAll(ws)
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd, err := sandbox.Command(ctx, sandbox.Config{Workspace: ws, Policy: sandbox.Required, Backend: sandbox.BackendBwrap}, "true")
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("probe: %s: %s", err, msg)
		}
		return fmt.Errorf("probe: %w", err)
	}
	return nil
}
