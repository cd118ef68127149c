package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

// probeReduced reports the reduced backend (landlock): whether it runs
// true here, this kernel's Landlock ABI, what it keeps less of than bwrap,
// and which backend a run gets. It reports whether the backend variable
// is valid.
func probeReduced() bool {
	abi := sandbox.LandlockABI()
	if err := probeBackend(sandbox.BackendLandlock); err != nil {
		fmt.Println("reduced backend (landlock): does not work here")
		for _, part := range strings.Split(err.Error(), "; ") {
			fmt.Printf("  %s\n", part)
		}
	} else {
		fmt.Printf("reduced backend (landlock): works here (Landlock ABI %d); a run gets it only with --backend landlock or auto, or %s\n", abi, sandbox.BackendVariable)
		fmt.Println("  it keeps less than bwrap:")
		for _, g := range sandbox.Reduced(abi) {
			fmt.Printf("    %s %s: %s\n", g.Enforce, g.Rule, g.Why)
		}
	}
	switch b, err := sandbox.BackendFromEnvironment(); {
	case err != nil:
		fmt.Printf("backend: %v\n  fix: unset %s, or set it to bwrap, landlock or auto\n", err, sandbox.BackendVariable)
		return false
	case os.Getenv(sandbox.BackendVariable) == "":
		fmt.Printf("backend: %s (%s unset)\n", b, sandbox.BackendVariable)
	default:
		fmt.Printf("backend: %s (%s)\n", b, sandbox.BackendVariable)
	}
	return true
}

// probeBackend runs true under backend b in a temporary workspace.
func probeBackend(b sandbox.Backend) error {
	ws, err := os.MkdirTemp("", "sandtable-probe-")
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer os.RemoveAll(ws)
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd, err := sandbox.Command(ctx, sandbox.Config{Workspace: ws, Policy: sandbox.Required, Backend: b}, "true")
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
